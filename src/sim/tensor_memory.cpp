// Tensor memory and the tcgen05 tensor core of a block: allocation, 32x32b loads and stores, and
// mma completed when the scheduler chooses, observed through commits on mbarriers.
#include "tensor_memory.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "machine.hpp"
#include "tensor_core_sums.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

namespace {

constexpr uint32_t kPoison = 0x7FC00000u;  // a quiet NaN

std::string tile_name(const ir::TMemoryTensorNode& t) {
  return fmt::format("allocated at {}", t.allocation()->loc.str());
}

// The value of a block scale: ue8m0 is 2^(e - 127) (0xff NaN), ue4m3 an e4m3 value without its
// sign bit.
float block_scale(Tcgen05ScaleFormat format, uint32_t byte) {
  if (format == Tcgen05ScaleFormat::ue4m3) return float_from_bits(DType::F8E4M3, byte & 0x7F);
  return byte == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, int(byte) - 127);
}

}  // namespace

TensorMemory::TensorMemory(Cta& cta)
    : cta_(cta), committed_writes_(size_t(kTmemColumns)), taken_(size_t(kTmemColumns), false) {}

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
    cta_.mark_written(word, 4);
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
  check_observed(allocation->column, allocation->column + allocation->columns, "tcgen05.dealloc", n.loc, w);
  std::fill_n(taken_.begin() + allocation->column, allocation->columns, false);
  std::fill_n(committed_writes_.begin() + allocation->column, allocation->columns, CommittedWrite{});
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

const TensorMemory::Arrival& TensorMemory::Commit::arrival_seen_by(const Cta& block) const {
  for (const Arrival& a : arrivals)
    if (a.block == &block) return a;
  return arrivals.front();
}

bool TensorMemory::Commit::released_for(const Cta& block) const {
  if (!arrived) return false;
  const Arrival& seen = arrival_seen_by(block);
  return seen.block->mbarriers.all().at(seen.barrier).phase > seen.phase;
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

void TensorMemory::check_not_written(int begin, int end, std::string_view operation, const SourceLoc& loc, int warp,
                                     bool writes) const {
  const auto overlaps = [&](int first, int last) { return first < end && begin < last; };
  for (const TensorMemory* issuer : issuers())
    for (const auto& m : issuer->operations_) {
      bool conflict = overlaps(m->column, m->column + m->columns);
      if (writes)
        for (const auto& [first, last] : m->scale_columns) conflict |= overlaps(first, last);
      if (!issuer->touches(*m, cta_) || !conflict || !issuer->owned(*m, cta_)) continue;
      bool committed = false;
      for (const Commit& c : issuer->commits_) committed |= c.thread == m->thread && c.covers > m->sequence;
      throw Error(loc, fmt::format("{} of tensor memory that the {} issued at {} may still be {} (warp {} of "
                                   "block {}); {}",
                                   operation, m->name(), m->loc().str(),
                                   overlaps(m->column, m->column + m->columns) ? "writing" : "reading as block scales",
                                   warp, cta_.block_name(),
                                   committed ? wait_advice()
                                             : fmt::format("the {0} was never committed (a tcgen05.commit covers only "
                                                           "the operations its own warp issued): commit it to an "
                                                           "mbarrier from the warp that issued it and wait for that "
                                                           "phase first",
                                                           m->kind())));
    }
}

void TensorMemory::note_commit(const Commit& c) {
  // The blocks whose columns the commit's operations may have written: this one, the pair peers
  // of its operations, and those it arrives at.
  std::vector<Cta*> blocks{&cta_};
  const auto add = [&](Cta* block) {
    if (block && std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
  };
  for (const Arrival& a : c.arrivals) add(a.block);
  for (auto& m : operations_) {
    if (m->thread != c.thread || m->sequence >= c.covers) continue;
    add(m->peer);
    if (m->committed) continue;
    m->committed = true;
    const CommittedWrite write{&m->loc(), m->name(), this, m->thread, m->sequence, {}};
    for (Cta* block : {&cta_, m->peer})
      if (block) std::fill_n(block->tensor_memory.committed_writes_.begin() + m->column, m->columns, write);
  }
  for (Cta* block : blocks) {
    const Arrival& seen = c.arrival_seen_by(*block);
    const MbarrierState& barrier = seen.block->mbarriers.all().at(seen.barrier);
    const Clock completed = Clock(seen.phase + 1);
    for (CommittedWrite& write : block->tensor_memory.committed_writes_)
      if (write.loc && write.issuer == this && write.thread == c.thread && write.sequence < c.covers) {
        write.observed_through.push_back(Epoch{barrier.actor, completed});
        write.observed_through.push_back(Epoch{barrier.peer_actor, completed});
      }
  }
}

void TensorMemory::check_observed(int begin, int end, std::string_view operation, const SourceLoc& loc,
                                  const Warp& w) const {
  for (int column = begin; column < end; ++column) {
    const CommittedWrite& write = committed_writes_[size_t(column)];
    if (!write.loc || std::any_of(write.observed_through.begin(), write.observed_through.end(),
                                  [&](const Epoch& e) { return w.clock.covers(e); }))
      continue;
    throw Error(loc, fmt::format("{} of tensor memory that the {} issued at {} may still be writing (warp {} of "
                                 "block {}); {}",
                                 operation, write.name, write.loc->str(), w.id, cta_.block_name(), wait_advice()));
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
    check_not_written(column, column + n.src->shape[1], "tcgen05.load", n.loc, w.id, false);
    check_observed(column, column + n.src->shape[1], "tcgen05.load", n.loc, w);
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
    check_observed(column, column + n.dst->shape[1], "tcgen05.store", n.loc, w);
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
                                   "it inside an if_ that part of the warp takes?){}",
                                   popcount(mask), w.id, w.returned_note(~mask)));
  const int lane = 0, thread = w.thread(lane);
  auto mma = std::make_unique<Operation>();
  mma->mma = &n;
  mma->thread = thread;
  mma->sequence = issued_[thread]++;
  mma->column = first_column(w, n.acc, lane, "tcgen05.mma", n.loc);
  mma->columns = n.n();
  if (n.cta_group() == 2) mma->peer = &pair_peer(w, n);
  mma->accumulate = w.eval(n.enable_input_d, Mask(1) << lane)[size_t(lane)].i != 0;
  const ir::MmaOperand a = n.a_operand(), b = n.b_operand();
  // The unswizzled shared byte where an instruction reading operand `t` (laid out as `o`) from
  // column `k` starts.
  const auto start = [&](const ir::SharedTensor& t, const ir::MmaOperand& o, int k) {
    const int bits = t->slot_bits();
    const int64_t offset = t->offset ? w.eval(t->offset, Mask(1) << lane)[size_t(lane)].i : 0;
    const int64_t span = int64_t(16) << t->allocation()->swizzle_bits;
    TESSEL_CHECK((offset * bits / 8) % (8 * span) == 0,
                 "tcgen05.mma at {}: an operand starts inside its swizzle pattern", n.loc.str());
    return cta_.shared_offsets.at(t->allocation()) + (offset + o.element(0, k)) * bits / 8;
  };
  const auto smem_descriptor = [&](const ir::SharedTensor& t, const ir::MmaOperand& o, int k) {
    const auto address = uint32_t(start(t, o, k));
    const int swizzle = t->allocation()->swizzle_bits, bits = t->slot_bits();
    return Tcgen05SmemDescriptor::decode(
        (o.mn_major ? tcgen05_mn_major_descriptor(address, swizzle, uint32_t(o.block_stride * bits / 8))
                    : tcgen05_k_major_descriptor(address, swizzle))
            .bits());
  };
  const int vector = tcgen05_scale_vector(n.mma_kind());
  int scale_a = 0, scale_b = 0;
  if (vector) {
    scale_a = first_column(w, n.scale_a, lane, "tcgen05.mma's scales of a", n.loc);
    scale_b = first_column(w, n.scale_b, lane, "tcgen05.mma's scales of b", n.loc);
    mma->scale_columns = {{scale_a, scale_a + n.scale_columns(0)}, {scale_b, scale_b + n.scale_columns(1)}};
  }
  for (int s = 0; s < n.instructions(); ++s) {
    const int k0 = s * n.instruction_k();
    Tcgen05InstrDescriptor idesc{n.m(),        n.n(),      n.operand_type(), n.b->dtype,
                                 n.acc->dtype, a.mn_major, b.mn_major,       n.mma_kind()};
    idesc.saturate = n.saturate;
    Instruction in{smem_descriptor(n.a, a, k0), smem_descriptor(n.b, b, k0), k0};
    if (vector) {
      // Instruction s reads the scale bytes s * vector ... of the cells of its group of columns.
      idesc.scale_format = n.scale_format;
      idesc.a_scale_id = idesc.b_scale_id = s * vector % 4;
      in.scale_a_column = scale_a + s * vector / 4 * n.scale_group_columns(0);
      in.scale_b_column = scale_b + s * vector / 4 * n.scale_group_columns(1);
    }
    in.instruction_descriptor = idesc.bits();
    mma->instructions.push_back(in);
  }
  // Each block's operands: a pair's blocks hold half of a's rows and half of b's columns each.
  const auto read = [&](const ir::SharedTensor& t, const ir::MmaOperand& o) {
    const int64_t bytes = o.extent() * t->slot_bits() / 8;
    return InFlightRead{this, start(t, o, 0), start(t, o, 0) + bytes, &n.loc, thread, "tcgen05.mma"};
  };
  mma->a = read(n.a, a);
  mma->b = read(n.b, b);
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
                            "it inside an if_ that part of the warp takes?){}",
                            popcount(mask), w.id, w.returned_note(~mask)));
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
  if (n.to_every_quadrant()) {
    copy->instructions.push_back(
        Instruction{Tcgen05SmemDescriptor::decode(tcgen05_interleaved_descriptor(uint32_t(start)).bits()), {}, 0});
  } else {
    TESSEL_CHECK((start - cta_.shared_offsets.at(n.src->allocation())) % (8 * (int64_t(16) << swizzle)) == 0,
                 "tcgen05.copy at {}: the source starts inside its swizzle pattern", n.loc.str());
    for (int k0 = 0; k0 < copy->columns; k0 += 8)
      copy->instructions.push_back(Instruction{
          Tcgen05SmemDescriptor::decode(tcgen05_k_major_descriptor(uint32_t(start + k0 * bytes), swizzle).bits()),
          {},
          k0});
  }
  const int64_t end = start + int64_t(n.src->shape[0]) * n.src->shape[1] * bytes;
  copy->a = InFlightRead{this, start, end, &n.loc, thread, "tcgen05.copy"};
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
  const auto copy_word = [&](int64_t address, int lane, int column) {
    if (!std::all_of(cta_.written.begin() + address, cta_.written.begin() + address + 4, [](uint8_t b) { return b; }))
      throw Error(n.loc, fmt::format("tcgen05.copy reads shared memory that was never written (byte {} of block "
                                     "{}'s shared memory){}",
                                     address, cta_.block_name(), unwritten_memory_cause(cta_, address, m.thread / 32)));
    std::memcpy(&cells_[size_t(lane) * kTmemColumns + size_t(column)], &cta_.smem[size_t(address)], 4);
  };
  for (const Instruction& in : m.instructions)
    if (n.to_every_quadrant()) {
      // 32 rows of 16 bytes, row l to lane l of every lane quadrant.
      for (int row = 0; row < 32; ++row)
        for (int c = 0; c < 4; ++c)
          for (int quadrant = 0; quadrant < 4; ++quadrant)
            copy_word(tcgen05_interleaved_address(in.a, row, 4 * c), 32 * quadrant + row, m.column + c);
    } else {
      for (int row = 0; row < n.dst->shape[0]; ++row)
        for (int c = 0; c < 8; ++c) copy_word(tcgen05_k_major_address(in.a, row, c, 4), row, m.column + in.k0 + c);
    }
  m.done = true;
}

void TensorMemory::complete(Operation& m) {
  if (m.copy) return complete_copy(m);
  const ir::Tcgen05MmaNode& n = *m.mma;
  const int k = n.k(), instruction_k = n.instruction_k(), rows = n.m(), cols = n.n();
  // A pair mma's first half of a's rows, of b's columns and of the result's rows are the issuing
  // block's, the second half its peer's.
  const int blocks = m.peer ? 2 : 1, block_rows = rows / blocks, block_cols = cols / blocks;
  const auto block_of = [&](int i, int half) -> Cta& { return i < half ? cta_ : *m.peer; };
  // Element (row of m or n, kk) of operand `t` of `type`, in the layout the descriptor `d` names:
  // packed elements two to a byte, or 16 to a 16-byte chunk.
  const auto element = [&](const Cta& block, const ir::SharedTensor& t, DType type, bool mn_major,
                           const Tcgen05SmemDescriptor& d, int row, int kk) {
    const int bits = dtype_bits(type);
    const int64_t bit = t->element_bit(kk);  // the operand's rows start on chunks
    const int64_t address = !is_packed(type) ? mn_major ? tcgen05_mn_major_address(d, row, kk, bits / 8)
                                                        : tcgen05_k_major_address(d, row, kk, bits / 8)
                                             : tcgen05_k_major_address(d, row, int(bit / 8), 1);
    if (!block.written[size_t(address)])
      throw Error(n.loc, fmt::format("tcgen05.mma reads shared memory that was never written (byte {} of block {}'s "
                                     "shared memory){}",
                                     address, block.block_name(),
                                     unwritten_memory_cause(block, address, &block == &cta_ ? m.thread / 32 : -1)));
    if (!is_packed(type)) {
      const ir::Scalar v = operand_value(type, load_value(type, &block.smem[size_t(address)]));
      return is_float(type) ? float(v.f) : float(v.i);
    }
    return float(load_packed(type, &block.smem[size_t(address)], int(bit % 8)).f);
  };
  // The scale byte `v` of an instruction's cell at (lane, column).
  const auto scale = [&](int lane, int column, int v) {
    return block_scale(n.scale_format, cells_[size_t(lane) * kTmemColumns + size_t(column)] >> (8 * v) & 0xFF);
  };
  std::vector<float> a(size_t(rows) * k), b(size_t(cols) * k);
  // Block scales: b's column j as the rows of lane quadrant q see it, each quadrant reading its own
  // copy of b's scales.
  const bool scaled = n.scale_format != Tcgen05ScaleFormat::none;
  std::vector<float> b_scales(scaled ? size_t(4) * cols * k : 0);
  bool saturating = false;  // the instructions' saturate bit, which clamps kind::i8 sums after each
  for (const Instruction& in : m.instructions) {
    const Tcgen05InstrDescriptor idesc = Tcgen05InstrDescriptor::decode(in.instruction_descriptor, n.mma_kind());
    saturating = idesc.saturate;
    TESSEL_CHECK(idesc.m == rows && idesc.n == cols, "tcgen05.mma at {}: instruction descriptor of {}x{}", n.loc.str(),
                 idesc.m, idesc.n);
    const int block = scaled ? tcgen05_scale_block(n.mma_kind()) : instruction_k;
    for (int kk = 0; kk < instruction_k; ++kk) {
      const int p = in.k0 + kk, v = kk / block;
      for (int row = 0; row < rows; ++row) {
        a[size_t(row) * k + p] =
            element(block_of(row, block_rows), n.a, idesc.a_type, idesc.a_mn_major, in.a, row % block_rows, kk);
        // Row r of a is computed by lane r's quadrant, which holds its scales at column r / 32.
        if (scaled) a[size_t(row) * k + p] *= scale(row, in.scale_a_column + row / 32, idesc.a_scale_id + v);
      }
      for (int col = 0; col < cols; ++col) {
        b[size_t(col) * k + p] =
            element(block_of(col, block_cols), n.b, idesc.b_type, idesc.b_mn_major, in.b, col % block_cols, kk);
        if (scaled)
          for (int q = 0; q < 4; ++q)
            b_scales[(size_t(q) * cols + col) * k + p] =
                scale(32 * q + col % 32, in.scale_b_column + col / 32, idesc.b_scale_id + v);
      }
    }
  }
  const bool integer = n.mma_kind() == Tcgen05Kind::i8;
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < cols; ++col) {
      uint32_t& cell = block_of(row, block_rows)
                           .tensor_memory.cells_[size_t(row % block_rows) * kTmemColumns + size_t(m.column + col)];
      if (integer) {
        // s8 and u8 values, exact in the floats above: their products are summed exactly and the
        // s32 accumulator wraps modulo 2^32 (tensor_core_sums.hpp).
        int64_t sum = m.accumulate ? int64_t(int32_t(cell)) : 0;
        for (int kk = 0; kk < k; ++kk) {
          sum += int64_t(a[size_t(row) * k + kk]) * int64_t(b[size_t(col) * k + kk]);
          // The saturate bit clamps the sum after each instruction, in the order they run.
          if (saturating && (kk + 1) % instruction_k == 0) sum = IntegerSums::saturated(sum);
        }
        cell = uint32_t(uint64_t(sum));
        continue;
      }
      float sum = 0;
      if (m.accumulate) std::memcpy(&sum, &cell, 4);
      const float* b_scale = scaled ? &b_scales[(size_t(row / 32) * cols + col) * k] : nullptr;
      for (int kk = 0; kk < k; ++kk)
        sum += a[size_t(row) * k + kk] * b[size_t(col) * k + kk] * (b_scale ? b_scale[kk] : 1.0f);
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
    note_commit(c);
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
