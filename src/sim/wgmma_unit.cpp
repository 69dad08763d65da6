// The wgmma unit: per-warp mma in flight, completed in issue order when the scheduler chooses.
// Operands are read when an mma completes, the shared ones at the addresses its descriptors give
// (hw-semantics.md §4.3), and summed as tensor_core_sums.hpp says.
#include <type_traits>

#include "machine.hpp"
#include "tensor_core_sums.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/layout/wgmma_atoms.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

WgmmaUnit::WgmmaUnit(Cta& cta) : cta_(cta), warps_(size_t(cta.kernel.warps)) {
  ir::walk(cta.kernel.body, [&](const ir::StmtNode& s) { watching_ |= s.kind == ir::NodeKind::WgmmaMma; });
}

void WgmmaUnit::before_instruction(const Warp& w, const ir::StmtNode& s) {
  if (ir::instruction_traits(s.kind).family == "wgmma") return;
  WarpState& state = warps_[size_t(w.id)];
  for (const ir::Ref<ir::Node>& t : ir::direct_operands(s).tensors) {
    if (t->kind != ir::NodeKind::RegisterTensor) continue;
    const auto* tile = static_cast<const ir::RegisterTensorNode*>(t.get());
    for (const auto& mma : state.issued)
      if (mma->node->acc.get() == tile || mma->node->a_registers.get() == tile)
        throw Error(s.loc,
                    fmt::format("the register tile created at {} is {} of the wgmma.mma issued at {}, which "
                                "may still be running (warp {} of block {}); wait for it with "
                                "wgmma.wait_group before touching it",
                                tile->loc.str(), mma->node->acc.get() == tile ? "the accumulator" : "the A operand",
                                mma->node->loc.str(), w.id, cta_.block_name()));
    state.accessed[tile] = &s.loc;
  }
}

std::optional<WgmmaUnit::Reader> WgmmaUnit::reading(int64_t byte, int n) const {
  if (readers_.empty()) return std::nullopt;
  for (int64_t b = byte; b < byte + n; ++b) {
    if (!readers_[size_t(b)]) continue;
    for (const WarpState& state : warps_)
      for (const auto& mma : state.issued)
        for (int64_t read : mma->bytes_read)
          if (read == b) return Reader{&mma->node->loc, mma->warp, mma->issued, mma->steps_before};
  }
  return std::nullopt;
}

void WgmmaUnit::fence(const Warp& w) { warps_[size_t(w.id)].accessed.clear(); }

void WgmmaUnit::commit(const Warp& w) { ++warps_[size_t(w.id)].committed; }

int WgmmaUnit::pending_groups(const Warp& w) const {
  const WarpState& state = warps_[size_t(w.id)];
  if (state.completed == state.issued.size()) return 0;
  return std::max(0, state.committed - state.issued[state.completed]->group);
}

void WgmmaUnit::retire(const Warp& w, int pending) {
  WarpState& state = warps_[size_t(w.id)];
  while (state.completed > 0 && state.issued.front()->group < state.committed - pending) {
    for (int64_t b : state.issued.front()->bytes_read) --readers_[size_t(b)];
    state.issued.pop_front();
    --state.completed;
  }
}

// The descriptor of the instruction that reads shared operand `t` (laid out as `o`) from its row
// `row` and column `k`. The view's offset must be the same in every lane, as the descriptor must
// be the same in every thread of the warpgroup.
WgmmaDescriptor WgmmaUnit::descriptor(Warp& w, const ir::SharedTensor& t, const ir::MmaOperand& o, int row, int k,
                                      Mask mask, std::string_view name, const SourceLoc& loc) const {
  int64_t offset = 0;
  if (t->offset) {
    const Lanes view = w.eval(t->offset, mask);
    offset = view[0].i;
    for (int lane = 1; lane < 32; ++lane)
      if (view[lane].i != offset)
        throw Error(loc, fmt::format("wgmma.mma: the view {} of {} differs between the lanes of warp {} (element {} "
                                     "in lane 0, {} in lane {}); wgmma operands must be the same in every thread",
                                     t->name, name, w.id, offset, view[lane].i, lane));
  }
  const int bytes = dtype_bytes(t->dtype), swizzle = t->allocation()->swizzle_bits;
  const int64_t element = offset + o.element(row, k);
  const int64_t span = int64_t(16) << swizzle;
  // Operand rows are multiples of 8 (m of 64, n of 8), k-rows multiples of 16, and views select
  // whole operands, so every operand starts on a repeat of its swizzle pattern, where the
  // descriptor's base offset is 0.
  TESSEL_CHECK(element * bytes / span % 8 == 0, "wgmma.mma at {}: {} starts at row {} of its swizzle pattern",
               loc.str(), name, element * bytes / span % 8);
  const auto start = uint32_t(cta_.shared_offsets.at(t->allocation()) + element * bytes);
  return WgmmaDescriptor::decode((o.mn_major
                                      ? wgmma_mn_major_descriptor(start, swizzle, uint32_t(o.block_stride * bytes))
                                      : wgmma_k_major_descriptor(start, swizzle))
                                     .bits());
}

// The shared byte from which the tensor core reads element (`row` of m or n, `k`) of an operand.
int64_t WgmmaUnit::address(const ir::MmaOperand& o, const WgmmaDescriptor& d, int row, int k, int elem_bytes) {
  return o.mn_major ? wgmma_mn_major_address(d, row, k, elem_bytes) : wgmma_k_major_address(d, row, k, elem_bytes);
}

void WgmmaUnit::issue(Warp& w, const ir::WgmmaMmaNode& n, Mask mask) {
  if (mask != 0xffffffffu)
    throw Error(n.loc, fmt::format("wgmma.mma is executed by whole warps, but only {} lanes of warp {} reach it (is "
                                   "it inside an if_ that part of the warp takes?){}",
                                   popcount(mask), w.id, w.returned_note(~mask)));
  WarpState& state = warps_[size_t(w.id)];
  for (const ir::RegisterTensor& operand : {n.acc, n.a_registers})
    if (operand && state.accessed.count(operand.get()))
      throw Error(n.loc, fmt::format("wgmma.mma: the register tile created at {} was accessed at {} since the last "
                                     "wgmma.fence(); call wgmma.fence() between other accesses to an mma's "
                                     "accumulator or register A and the mma",
                                     operand->loc.str(), state.accessed.at(operand.get())->str()));
  if (readers_.empty()) readers_.assign(cta_.smem.size(), 0);
  const int warpgroups = w.group().count / 128, bytes = dtype_bytes(n.operand_type()), step = wgmma_k(n.operand_type());
  const int warp_in_group = w.thread_in_group(0) / 32, warpgroup = warp_in_group / 4, quarter = warp_in_group % 4;
  auto mma = std::make_unique<Mma>(Mma{&w, w.clock[w.actor], w.steps_noted, &n, state.committed, quarter, {}, {}});
  const ir::MmaOperand b = n.b_operand(), a = n.a_shared ? n.a_operand() : ir::MmaOperand{};
  for (int r = 0; r < n.m() / kWgmmaM / warpgroups; ++r)
    for (int k0 = 0; k0 < n.k(); k0 += step) {
      Instruction in{{}, {}, kWgmmaM * (warpgroup + warpgroups * r), k0};
      in.b = descriptor(w, n.b, b, 0, k0, mask, "b", n.loc);
      for (int row = 0; row < n.n(); ++row)
        for (int k = 0; k < step; ++k)
          for (int byte = 0; byte < bytes; ++byte) mma->bytes_read.push_back(address(b, in.b, row, k, bytes) + byte);
      if (n.a_shared) {
        in.a = descriptor(w, n.a_shared, a, in.row0, k0, mask, "a", n.loc);
        for (int row = 16 * quarter; row < 16 * quarter + 16; ++row)
          for (int k = 0; k < step; ++k)
            for (int byte = 0; byte < bytes; ++byte) mma->bytes_read.push_back(address(a, in.a, row, k, bytes) + byte);
      }
      mma->instructions.push_back(in);
    }
  for (int64_t b : mma->bytes_read) {
    cta_.check_not_in_flight(b, 1, false, n.loc, w.thread(0));
    ++readers_[size_t(b)];
  }
  cta_.check_async_read(w.clock, w.access(n.loc, "wgmma.mma"), mma->bytes_read);
  state.issued.push_back(std::move(mma));
}

void WgmmaUnit::complete(Mma& mma) {
  const ir::WgmmaMmaNode& n = *mma.node;
  for (int64_t b : mma.bytes_read)
    if (!cta_.written[size_t(b)])
      throw Error(n.loc,
                  fmt::format("wgmma.mma reads shared memory that was never written (byte {} of block {}'s "
                              "shared memory, warp {}){}",
                              b, cta_.block_name(), mma.warp->id, unwritten_memory_cause(cta_, b, mma.warp->id)));
  if (n.acc->dtype == DType::I32)
    multiply<IntegerSums>(mma);
  else
    multiply<FloatSums>(mma);
}

template <class Sums> void WgmmaUnit::multiply(Mma& mma) {
  Warp& w = *mma.warp;
  const ir::WgmmaMmaNode& n = *mma.node;
  const DType type = n.operand_type(), a_type = n.a_type();
  const int bytes = dtype_bytes(type), cols = n.n(), k = n.k(), step = wgmma_k(type);
  auto read = [&](DType t, int64_t address) {
    return Sums::value(operand_value(t, load_value(t, &cta_.smem[size_t(address)])));
  };
  // The warp's rows of A and all of B as dense matrices; rows the warp does not compute stay missing.
  std::vector<typename Sums::Value> a(size_t(n.m()) * k, Sums::missing), b(size_t(k) * cols);
  const ir::MmaOperand b_operand = n.b_operand(), a_operand = n.a_shared ? n.a_operand() : ir::MmaOperand{};
  for (const Instruction& in : mma.instructions) {
    for (int row = 0; row < cols; ++row)
      for (int kk = 0; kk < step; ++kk)
        b[size_t(in.k0 + kk) * cols + row] = read(type, address(b_operand, in.b, row, kk, bytes));
    if (n.a_shared)
      for (int row = 16 * mma.quarter; row < 16 * mma.quarter + 16; ++row)
        for (int kk = 0; kk < step; ++kk)
          a[size_t(in.row0 + row) * k + in.k0 + kk] = read(a_type, address(a_operand, in.a, row, kk, bytes));
  }
  if (n.a_registers) {
    const auto& table = cta_.tables.coords(n.a_registers.get());
    const auto& values = w.tile(n.a_registers.get());
    const int local = n.a_registers->layout.local_size();
    for (int lane = 0; lane < 32; ++lane)
      for (int s = 0; s < local; ++s) {
        const int* c = &table[(size_t(w.thread_in_group(lane)) * local + s) * 2];
        a[size_t(c[0]) * k + c[1]] = Sums::value(operand_value(a_type, values[size_t(lane) * local + s]));
      }
  }
  const auto& table = cta_.tables.coords(n.acc.get());
  auto& acc = w.tile(n.acc.get());
  const int local = n.acc->layout.local_size();
  for (int lane = 0; lane < 32; ++lane)
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(w.thread_in_group(lane)) * local + s) * 2];
      typename Sums::Value sum = n.accumulate ? Sums::value(acc[size_t(lane) * local + s]) : 0;
      for (int kk = 0; kk < k; ++kk) {
        sum += a[size_t(c[0]) * k + kk] * b[size_t(kk) * cols + c[1]];
        if constexpr (std::is_same_v<Sums, IntegerSums>)
          if (n.saturate && (kk + 1) % IntegerSums::saturation_step == 0) sum = IntegerSums::saturated(sum);
      }
      acc[size_t(lane) * local + s] = Sums::result(sum);
    }
}

void WgmmaUnit::complete_first(WarpState& warp, size_t count) {
  for (size_t i = 0; i < count; ++i) complete(*warp.issued[warp.completed++]);
}

bool WgmmaUnit::busy() const {
  for (const WarpState& state : warps_)
    if (state.completed < state.issued.size()) return true;
  return false;
}

void WgmmaUnit::complete_all() {
  for (WarpState& state : warps_) complete_first(state, state.issued.size() - state.completed);
}

void WgmmaUnit::complete_at_random(std::mt19937_64& rng) {
  for (WarpState& state : warps_) {
    size_t count = 0;
    while (state.completed + count < state.issued.size() && rng() % 2 == 0) ++count;
    complete_first(state, count);
  }
}

bool WgmmaUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const MbarrierPhaseWait&) { return false; },  // wgmma does not signal mbarriers
                        [](const BulkGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },
                        [](const ClusterBarrierWait&) { return false; },
                        [&](const WgmmaGroupWait& wait) {
                          if (&warp.cta != &cta_) return false;
                          WarpState& state = warps_[size_t(warp.id)];
                          size_t count = 0;
                          while (state.completed + count < state.issued.size() &&
                                 state.issued[state.completed + count]->group < state.committed - wait.max_pending)
                            ++count;
                          complete_first(state, count);
                          return count > 0;
                        },
                    },
                    condition);
}

}  // namespace tessel::sim
