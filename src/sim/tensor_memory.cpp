// Tensor memory and the tcgen05 tensor core of a block: allocation, 32x32b loads and stores, and
// mma completed when the scheduler chooses, observed through commits on mbarriers.
#include "tensor_memory.hpp"

#include <cstring>

#include "machine.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

namespace {

constexpr uint32_t kPoison = 0x7FC00000u;  // a quiet NaN

std::string tile_name(const ir::TMemoryTensorNode& t) {
  return fmt::format("{} (allocated at {})", t.allocation()->name, t.allocation()->loc.str());
}

}  // namespace

TensorMemory::TensorMemory(Cta& cta) : cta_(cta), taken_(size_t(kTmemColumns), false) {}

int TensorMemory::free_columns() const { return int(std::count(taken_.begin(), taken_.end(), false)); }

bool TensorMemory::can_allocate(int columns) const {
  for (int first = 0; first + columns <= kTmemColumns; first += columns)
    if (std::none_of(taken_.begin() + first, taken_.begin() + first + columns, [](bool t) { return t; })) return true;
  return false;
}

const TensorMemory::Allocation* TensorMemory::newest(const ir::TMemoryTensorNode* tensor) const {
  for (auto it = allocations_.rbegin(); it != allocations_.rend(); ++it)
    if (it->tensor == tensor) return &*it;
  return nullptr;
}

void TensorMemory::allocate(const Warp& w, const ir::Tcgen05AllocNode& n) {
  const int columns = n.tensor->allocated_columns();
  if (cells_.empty()) cells_.assign(size_t(kTmemLanes) * kTmemColumns, kPoison);
  for (int first = 0; first + columns <= kTmemColumns; first += columns) {
    if (std::any_of(taken_.begin() + first, taken_.begin() + first + columns, [](bool t) { return t; })) continue;
    std::fill_n(taken_.begin() + first, columns, true);
    for (int lane = 0; lane < kTmemLanes; ++lane)
      std::fill_n(cells_.begin() + lane * kTmemColumns + first, columns, kPoison);
    allocations_.push_back(Allocation{n.tensor.get(), first, columns});
    freed_at_.erase(n.tensor.get());
    // The address tcgen05.alloc writes to the shared word: lane 0, the first column.
    const int64_t word = cta_.shared_offsets.at(n.tensor->address.get());
    const uint32_t address = uint32_t(first);
    std::memcpy(&cta_.smem[size_t(word)], &address, 4);
    std::memset(&cta_.written[size_t(word)], 1, 4);
    return;
  }
  TESSEL_CHECK(false, "tcgen05.alloc at {} by warp {} without {} free columns", n.loc.str(), w.id, columns);
}

void TensorMemory::deallocate(const Warp& w, const ir::Tcgen05DeallocNode& n) {
  const Allocation* allocation = newest(n.tensor.get());
  if (!allocation) {
    const auto freed = freed_at_.find(n.tensor.get());
    throw Error(
        n.loc, fmt::format("tcgen05.dealloc of tensor memory {}, which {} (warp {} of block {})", tile_name(*n.tensor),
                           freed != freed_at_.end() ? fmt::format("was already deallocated at {}", freed->second->str())
                                                    : std::string("is not allocated"),
                           w.id, cta_.block_name()));
  }
  check_not_written(allocation->column, allocation->column + allocation->columns, "tcgen05.dealloc", n.loc, w.id);
  std::fill_n(taken_.begin() + allocation->column, allocation->columns, false);
  allocations_.erase(allocations_.begin() + (allocation - allocations_.data()));
  if (!newest(n.tensor.get())) freed_at_[n.tensor.get()] = &n.loc;
}

int TensorMemory::first_column(Warp& w, const ir::TMemoryTensor& t, int lane, std::string_view operation,
                               const SourceLoc& loc) const {
  const Allocation* allocation = newest(t->allocation());
  if (!allocation) {
    const auto freed = freed_at_.find(t->allocation());
    throw Error(loc, fmt::format("{} of tensor memory {}, which {} (warp {} of block {})", operation, tile_name(*t),
                                 freed != freed_at_.end() ? fmt::format("was deallocated at {}", freed->second->str())
                                                          : std::string("is not allocated"),
                                 w.id, cta_.block_name()));
  }
  int64_t offset = 0;
  if (t->column_offset) offset = w.eval(t->column_offset, Mask(1) << lane)[size_t(lane)].i;
  const int columns = t->shape[1] * dtype_bytes(t->dtype) / 4;
  if (offset < 0 || offset + columns > allocation->columns)
    throw Error(loc, fmt::format("{} of columns {}..{} of tensor memory {}, which has {} columns allocated (warp {} "
                                 "of block {})",
                                 operation, offset, offset + columns - 1, tile_name(*t), allocation->columns, w.id,
                                 cta_.block_name()));
  return allocation->column + int(offset);
}

bool TensorMemory::Commit::released_for(const Cta& block) const {
  if (!arrived) return false;
  const Arrival* seen = &arrivals.front();
  for (const Arrival& a : arrivals)
    if (a.block == &block) seen = &a;
  return seen->block->mbarriers.all().at(seen->barrier).phase > seen->phase;
}

bool TensorMemory::owned(const Operation& m, const Cta& block) const {
  for (const Commit& c : commits_)
    if (c.thread == m.thread && c.covers > m.sequence && c.released_for(block)) return false;
  return true;
}

std::vector<const TensorMemory*> TensorMemory::issuers() const {
  std::vector<const TensorMemory*> all{this};
  if (cta_.kernel.tcgen05_cta_group == 2 && cta_.cluster_rank % 2 == 1)
    all.push_back(&cta_.scheduler.cluster_peer(cta_, cta_.cluster_rank - 1).tensor_memory);
  return all;
}

void TensorMemory::check_not_written(int begin, int end, std::string_view operation, const SourceLoc& loc,
                                     int warp) const {
  for (const TensorMemory* issuer : issuers())
    for (const auto& m : issuer->operations_) {
      if (!issuer->touches(*m, cta_) || m->column >= end || m->column + m->columns <= begin || !issuer->owned(*m, cta_))
        continue;
      bool committed = false;
      for (const Commit& c : issuer->commits_) committed |= c.thread == m->thread && c.covers > m->sequence;
      throw Error(loc, fmt::format("{} of tensor memory that the {} issued at {} may still be writing (warp {} of "
                                   "block {}); {}",
                                   operation, m->name(), m->loc().str(), warp, cta_.block_name(),
                                   committed ? wait_advice()
                                             : fmt::format("the {0} was never committed (a tcgen05.commit covers only "
                                                           "the operations its own warp issued): commit it to an "
                                                           "mbarrier from the warp that issued it and wait for that "
                                                           "phase first",
                                                           m->kind())));
    }
}

int TensorMemory::access_lane(const Warp& w, const ir::TMemoryTensor& t, const ir::RegisterTensor& tile, int lane,
                              std::string_view operation, const SourceLoc& loc) const {
  const int accessed = 32 * (w.id % 4) + lane;
  const int row = cta_.tables.coords(tile.get())[size_t(w.thread_in_group(lane)) * tile->layout.local_size() * 2];
  if (row + t->lane_offset != accessed)
    throw Error(loc, fmt::format("{}: warp {} may access only tensor-memory lanes {}..{}, but its thread {} holds row "
                                 "{} of a tile at lanes {}..{}",
                                 operation, w.id, 32 * (w.id % 4), 32 * (w.id % 4) + 31, w.thread(lane), row,
                                 t->lane_offset, t->lane_offset + t->shape[0] - 1));
  return accessed;
}

void TensorMemory::load(Warp& w, const ir::Tcgen05LoadNode& n, Mask mask) {
  auto& values = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  const auto& coords = cta_.tables.coords(n.out.get());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int column = first_column(w, n.src, lane, "tcgen05.load", n.loc);
    check_not_written(column, column + n.src->shape[1], "tcgen05.load", n.loc, w.id);
    const int tmem_lane = access_lane(w, n.src, n.out, lane, "tcgen05.load", n.loc);
    for (int s = 0; s < local; ++s) {
      const int col = coords[(size_t(w.thread_in_group(lane)) * local + size_t(s)) * 2 + 1];
      values[size_t(lane) * local + s] =
          load_value(n.out->dtype, &cells_[size_t(tmem_lane) * kTmemColumns + size_t(column + col)]);
    }
  }
}

void TensorMemory::store(Warp& w, const ir::Tcgen05StoreNode& n, Mask mask) {
  const auto& values = w.tile(n.src.get());
  const int local = n.src->layout.local_size();
  const auto& coords = cta_.tables.coords(n.src.get());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int column = first_column(w, n.dst, lane, "tcgen05.store", n.loc);
    check_not_written(column, column + n.dst->shape[1], "tcgen05.store", n.loc, w.id);
    const int tmem_lane = access_lane(w, n.dst, n.src, lane, "tcgen05.store", n.loc);
    for (int s = 0; s < local; ++s) {
      const int col = coords[(size_t(w.thread_in_group(lane)) * local + size_t(s)) * 2 + 1];
      store_value(n.src->dtype, &cells_[size_t(tmem_lane) * kTmemColumns + size_t(column + col)],
                  values[size_t(lane) * local + s]);
    }
  }
}

void TensorMemory::issue_mma(Warp& w, const ir::Tcgen05MmaNode& n, Mask mask) {
  if (mask != 0xffffffffu)
    throw Error(n.loc, fmt::format("tcgen05.mma is executed by a whole warp, but only {} lanes of warp {} reach it (is "
                                   "it inside an if_ that part of the warp takes?)",
                                   popcount(mask), w.id));
  const int lane = 0, thread = w.thread(lane), bytes = dtype_bytes(n.operand_type());
  auto mma = std::make_unique<Operation>();
  mma->mma = &n;
  mma->thread = thread;
  mma->sequence = issued_[thread]++;
  mma->column = first_column(w, n.acc, lane, "tcgen05.mma", n.loc);
  mma->columns = n.n();
  if (n.cta_group() == 2) mma->peer = &pair_peer(w, n);
  mma->accumulate = w.eval(n.enable_input_d, Mask(1) << lane)[size_t(lane)].i != 0;
  const ir::MmaOperand a = n.a_operand(), b = n.b_operand();
  Tcgen05InstrDescriptor idesc{n.m(), n.n(), n.operand_type(), n.operand_type(), DType::F32};
  idesc.a_mn_major = a.mn_major;
  idesc.b_mn_major = b.mn_major;
  mma->instruction_descriptor = idesc.bits();
  // The unswizzled shared byte where an instruction reading operand `t` (laid out as `o`) from
  // column `k` starts.
  const auto start = [&](const ir::SharedTensor& t, const ir::MmaOperand& o, int k) {
    const int64_t offset = t->offset ? w.eval(t->offset, Mask(1) << lane)[size_t(lane)].i : 0;
    const int64_t span = int64_t(16) << t->allocation()->swizzle_bits;
    TESSEL_CHECK((offset * bytes) % (8 * span) == 0, "tcgen05.mma at {}: an operand starts inside its swizzle pattern",
                 n.loc.str());
    return cta_.shared_offsets.at(t->allocation()) + (offset + o.element(0, k)) * bytes;
  };
  const auto smem_descriptor = [&](const ir::SharedTensor& t, const ir::MmaOperand& o, int k) {
    const auto address = uint32_t(start(t, o, k));
    const int swizzle = t->allocation()->swizzle_bits;
    return Tcgen05SmemDescriptor::decode(
        (o.mn_major ? tcgen05_mn_major_descriptor(address, swizzle, uint32_t(o.block_stride * bytes))
                    : tcgen05_k_major_descriptor(address, swizzle))
            .bits());
  };
  for (int k0 = 0; k0 < n.k(); k0 += kTcgen05K)
    mma->instructions.push_back(Instruction{smem_descriptor(n.a, a, k0), smem_descriptor(n.b, b, k0), k0});
  // Each block's operands: a pair's blocks hold half of a's rows and half of b's columns each.
  mma->a = InFlightRead{this, start(n.a, a, 0), start(n.a, a, 0) + a.extent() * bytes, &n.loc, thread, "tcgen05.mma"};
  mma->b = InFlightRead{this, start(n.b, b, 0), start(n.b, b, 0) + b.extent() * bytes, &n.loc, thread, "tcgen05.mma"};
  // The tensor core may read the operands at once: a copy still writing them is a race, and so
  // is a write the issuing warp is not ordered after.
  for (Cta* block : {&cta_, mma->peer})
    for (const InFlightRead* r : {&mma->a, &mma->b})
      if (block) {
        block->check_not_in_flight(r->begin, int(r->end - r->begin), false, n.loc, thread);
        block->check_async_read(w.clock, w.access(n.loc, "tcgen05.mma"), r->begin, r->end);
      }
  operations_.push_back(std::move(mma));
}

Cta& TensorMemory::pair_peer(Warp& w, const ir::Tcgen05MmaNode& n) const {
  if (cta_.cluster_rank % 2 != 0)
    throw Error(n.loc, fmt::format("tcgen05.mma into the pair's tensor memory {} is issued by block {} (cluster rank "
                                   "{}), but the even block of a pair issues the pair's mma: issue it under "
                                   "if_(cluster.blockRank % 2 == 0)",
                                   tile_name(*n.acc), cta_.block_name(), cta_.cluster_rank));
  Cta& peer = pair_block(w, cta_.cluster_rank + 1, 0, n.loc, "tcgen05.mma");
  const Allocation* own = newest(n.acc->allocation());
  const Allocation* held = peer.tensor_memory.newest(n.acc->allocation());
  if (!held || held->column != own->column)
    throw Error(n.loc, fmt::format("tcgen05.mma into the pair's tensor memory {}: block {} of the pair {} (warp {} of "
                                   "block {}); both blocks allocate a pair's tile, and a cluster.sync() after the "
                                   "allocation lets the even block issue into it",
                                   tile_name(*n.acc), peer.block_name(),
                                   held ? fmt::format("holds it at column {}, this block at column {}", held->column,
                                                      own->column)
                                        : std::string("has not allocated it"),
                                   w.id, cta_.block_name()));
  return peer;
}

void TensorMemory::issue_copy(Warp& w, const ir::Tcgen05CopyNode& n, Mask mask) {
  if (mask != 0xffffffffu)
    throw Error(n.loc,
                fmt::format("tcgen05.copy is executed by a whole warp, but only {} lanes of warp {} reach it (is "
                            "it inside an if_ that part of the warp takes?)",
                            popcount(mask), w.id));
  const int lane = 0, thread = w.thread(lane), bytes = dtype_bytes(n.src->dtype),
            swizzle = n.src->allocation()->swizzle_bits;
  auto copy = std::make_unique<Operation>();
  copy->copy = &n;
  copy->thread = thread;
  copy->sequence = issued_[thread]++;
  copy->column = first_column(w, n.dst, lane, "tcgen05.copy", n.loc);
  copy->columns = n.dst->shape[1];
  const int64_t offset = n.src->offset ? w.eval(n.src->offset, Mask(1) << lane)[size_t(lane)].i : 0;
  const int64_t start = cta_.shared_offsets.at(n.src->allocation()) + offset * bytes;
  TESSEL_CHECK((start - cta_.shared_offsets.at(n.src->allocation())) % (8 * (int64_t(16) << swizzle)) == 0,
               "tcgen05.copy at {}: the source starts inside its swizzle pattern", n.loc.str());
  for (int k0 = 0; k0 < copy->columns; k0 += 8)
    copy->instructions.push_back(Instruction{
        Tcgen05SmemDescriptor::decode(tcgen05_k_major_descriptor(uint32_t(start + k0 * bytes), swizzle).bits()),
        {},
        k0});
  copy->a = InFlightRead{this,   start,  start + int64_t(n.src->shape[0]) * copy->columns * bytes,
                         &n.loc, thread, "tcgen05.copy"};
  copy->b = InFlightRead{this, 0, 0, &n.loc, thread, "tcgen05.copy"};
  cta_.check_not_in_flight(copy->a.begin, int(copy->a.end - copy->a.begin), false, n.loc, thread);
  cta_.check_async_read(w.clock, w.access(n.loc, "tcgen05.copy"), copy->a.begin, copy->a.end);
  operations_.push_back(std::move(copy));
}

void TensorMemory::commit(Warp& w, const ir::Tcgen05CommitNode& n, Mask mask) {
  const int lane = __builtin_ctz(mask), thread = w.thread(lane);
  const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, "tcgen05.commit");
  std::vector<Arrival> arrivals;
  if (n.cta_mask)
    for (Cta* block : multicast_blocks(w, w.eval(n.cta_mask, Mask(1) << lane)[size_t(lane)].i, n.barrier, lane, n.loc,
                                       "tcgen05.commit", "receives the arrival"))
      arrivals.push_back(Arrival{block, barrier});
  else
    arrivals.push_back(Arrival{&cta_, barrier});
  const auto it = issued_.find(thread);
  commits_.push_back(Commit{&n, thread, std::move(arrivals), it == issued_.end() ? 0 : it->second, w.clock});
}

void TensorMemory::complete_copy(Operation& m) {
  const ir::Tcgen05CopyNode& n = *m.copy;
  for (const Instruction& in : m.instructions)
    for (int row = 0; row < n.dst->shape[0]; ++row)
      for (int c = 0; c < 8; ++c) {
        const int64_t address = tcgen05_k_major_address(in.a, row, c, 4);
        if (!std::all_of(cta_.written.begin() + address, cta_.written.begin() + address + 4,
                         [](uint8_t b) { return b; }))
          throw Error(n.loc,
                      fmt::format("tcgen05.copy reads shared memory that was never written (byte {} of block "
                                  "{}'s shared memory){}",
                                  address, cta_.block_name(), unwritten_memory_cause(cta_, address, m.thread / 32)));
        std::memcpy(&cells_[size_t(row) * kTmemColumns + size_t(m.column + in.k0 + c)], &cta_.smem[size_t(address)], 4);
      }
  m.done = true;
}

void TensorMemory::complete(Operation& m) {
  if (m.copy) return complete_copy(m);
  const ir::Tcgen05MmaNode& n = *m.mma;
  const Tcgen05InstrDescriptor idesc = Tcgen05InstrDescriptor::decode(m.instruction_descriptor);
  TESSEL_CHECK(idesc.m == n.m() && idesc.n == n.n(), "tcgen05.mma at {}: instruction descriptor of {}x{}", n.loc.str(),
               idesc.m, idesc.n);
  const DType type = idesc.a_type;
  const int bytes = dtype_bytes(type), k = n.k(), rows = idesc.m, cols = idesc.n;
  // A pair mma's first half of a's rows, of b's columns and of the result's rows are the issuing
  // block's, the second half its peer's.
  const int blocks = m.peer ? 2 : 1, block_rows = rows / blocks, block_cols = cols / blocks;
  const auto block_of = [&](int i, int half) -> Cta& { return i < half ? cta_ : *m.peer; };
  const auto read = [&](const Cta& block, int64_t address) {
    if (!block.written[size_t(address)])
      throw Error(n.loc, fmt::format("tcgen05.mma reads shared memory that was never written (byte {} of block {}'s "
                                     "shared memory){}",
                                     address, block.block_name(),
                                     unwritten_memory_cause(block, address, &block == &cta_ ? m.thread / 32 : -1)));
    return float(load_value(type, &block.smem[size_t(address)]).f);
  };
  // Element (row of m or n, kk) of an operand, in the layout the instruction descriptor names.
  const auto address = [&](bool mn_major, const Tcgen05SmemDescriptor& d, int row, int kk) {
    return mn_major ? tcgen05_mn_major_address(d, row, kk, bytes) : tcgen05_k_major_address(d, row, kk, bytes);
  };
  std::vector<float> a(size_t(rows) * k), b(size_t(cols) * k);
  for (const Instruction& in : m.instructions)
    for (int kk = 0; kk < kTcgen05K; ++kk) {
      for (int row = 0; row < rows; ++row)
        a[size_t(row) * k + in.k0 + kk] =
            read(block_of(row, block_rows), address(idesc.a_mn_major, in.a, row % block_rows, kk));
      for (int col = 0; col < cols; ++col)
        b[size_t(col) * k + in.k0 + kk] =
            read(block_of(col, block_cols), address(idesc.b_mn_major, in.b, col % block_cols, kk));
    }
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < cols; ++col) {
      uint32_t& cell = block_of(row, block_rows)
                           .tensor_memory.cells_[size_t(row % block_rows) * kTmemColumns + size_t(m.column + col)];
      float sum = 0;
      if (m.accumulate) std::memcpy(&sum, &cell, 4);
      for (int kk = 0; kk < k; ++kk) sum += a[size_t(row) * k + kk] * b[size_t(col) * k + kk];
      std::memcpy(&cell, &sum, 4);
    }
  m.done = true;
}

void TensorMemory::complete_thread_until(int thread, int64_t end) {
  for (auto& m : operations_)
    if (m->thread == thread && m->sequence < end && !m->done) complete(*m);
}

void TensorMemory::arrive_ready_commits() {
  for (Commit& c : commits_) {
    if (c.arrived) continue;
    bool ready = true;
    for (const auto& m : operations_) ready &= m->thread != c.thread || m->sequence >= c.covers || m->done;
    if (!ready) continue;
    c.arrived = true;
    const std::string block = cta_.block_name();
    for (Arrival& a : c.arrivals) {
      a.phase = a.block->mbarriers.all().at(a.barrier).phase;
      a.block->mbarriers.arrive(a.barrier, 1, 0, c.issuer, a.block != &cta_, "tcgen05.commit",
                                Mbarriers::Origin{&c.node->loc, c.thread, block});
    }
  }
  forget_released();
}

void TensorMemory::forget_released() {
  std::erase_if(operations_, [&](const std::unique_ptr<Operation>& m) {
    return m->done && !owned(*m, cta_) && (!m->peer || !owned(*m, *m->peer));
  });
  std::erase_if(commits_, [&](const Commit& c) {
    if (!c.arrived) return false;
    for (const Arrival& a : c.arrivals)
      if (a.block->mbarriers.all().at(a.barrier).phase <= a.phase) return false;
    for (const auto& m : operations_)
      if (m->thread == c.thread && m->sequence < c.covers) return false;
    return true;
  });
}

bool TensorMemory::busy() const {
  for (const auto& m : operations_)
    if (!m->done) return true;
  for (const Commit& c : commits_)
    if (!c.arrived) return true;
  return false;
}

void TensorMemory::complete_all() {
  for (auto& m : operations_)
    if (!m->done) complete(*m);
  arrive_ready_commits();
}

void TensorMemory::complete_at_random(std::mt19937_64& rng) {
  for (auto& m : operations_)
    if (!m->done && rng() % 2 == 0) complete_thread_until(m->thread, m->sequence + 1);
  arrive_ready_commits();
}

bool TensorMemory::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        [](const BulkGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },  // only a dealloc frees columns
                        [](const ClusterBarrierWait&) { return false; },
                        // The oldest commit on the barrier, with the mma it waits for.
                        [&](const MbarrierPhaseWait& wait) {
                          for (Commit& c : commits_) {
                            const bool reaches = std::any_of(
                                c.arrivals.begin(), c.arrivals.end(),
                                [&](const Arrival& a) { return a.block == &warp.cta && a.barrier == wait.barrier; });
                            if (c.arrived || !reaches) continue;
                            complete_thread_until(c.thread, c.covers);
                            arrive_ready_commits();
                            return true;
                          }
                          return false;
                        },
                    },
                    condition);
}

const InFlightRead* TensorMemory::reading(int64_t begin, int64_t end) const {
  for (const TensorMemory* issuer : issuers())
    for (const auto& m : issuer->operations_) {
      if (!issuer->touches(*m, cta_) || !issuer->owned(*m, cta_)) continue;
      for (const InFlightRead* r : {&m->a, &m->b})
        if (r->begin < end && begin < r->end) return r;
    }
  return nullptr;
}

void TensorMemory::check_released() const {
  for (const Allocation& allocation : allocations_)
    throw Error(allocation.tensor->loc, fmt::format("block {} ended holding the {} columns of tensor memory allocated "
                                                    "here; call tcgen05.dealloc before the kernel ends",
                                                    cta_.block_name(), allocation.columns));
}

}  // namespace tessel::sim
