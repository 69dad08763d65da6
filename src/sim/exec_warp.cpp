// Simulator semantics of the warp instructions: shuffles and votes read the lanes of the warp at
// once, so every lane of it must execute them together; a layout conversion across warps goes
// through shared memory between two barriers of its group.
#include <fmt/ranges.h>

#include "machine.hpp"
#include "memory_access.hpp"

namespace tessel::sim {

namespace {

// Lanes that stay behind in control flow that splits the warp would wait at the instruction
// forever (or read undefined values) on the GPU.
void require_whole_warp(const Warp& w, Mask mask, std::string_view what, const SourceLoc& loc) {
  if (mask == 0xffffffffu) return;
  std::vector<int> missing;
  for (int lane = 0; lane < 32; ++lane)
    if (!(mask >> lane & 1)) missing.push_back(w.thread(lane));
  throw Error(loc, fmt::format("warp.{} in warp {} of block {}: threads {} did not reach it, since it runs inside "
                               "control flow that splits the warp; every thread of the warp must execute it together{}",
                               what, w.id, w.cta.block_name(), fmt::join(missing, ", "), w.returned_note(~mask)));
}

}  // namespace

void exec_Shuffle(Warp& w, const ir::ShuffleNode& n, Mask mask) {
  require_whole_warp(w, mask, ir::shuffle_name(n.mode), n.loc);
  const Lanes arg = w.eval(n.lane, mask);
  std::array<int, 32> source;
  for (int lane = 0; lane < 32; ++lane) source[size_t(lane)] = ir::shuffle_source(n.mode, lane, arg[size_t(lane)].i);
  if (n.result) {
    const Lanes value = w.eval(n.value.scalar, mask);
    Lanes out;
    for (int lane = 0; lane < 32; ++lane) out[size_t(lane)] = value[size_t(source[size_t(lane)])];
    return w.assign(n.result.get(), out, mask);
  }
  const std::vector<ir::Scalar> in = w.tile(n.value.tensor.get());
  auto& out = w.tile(n.out.get());
  const size_t local = size_t(n.out->layout.local_size());
  for (size_t lane = 0; lane < 32; ++lane)
    for (size_t l = 0; l < local; ++l) out[lane * local + l] = in[size_t(source[lane]) * local + l];
}

namespace {

// As the generated code across warps: the group's threads store their elements (the first replica
// of each) to the scratch in row-major order (ir::relayout_scratch_slot), meet at the barrier, load the new layout's
// elements, and meet again.
void relayout_through_scratch(Warp& w, const ir::RelayoutNode& n, Mask mask) {
  TESSEL_CHECK(n.barrier != ir::ReduceNode::kUnallocated,
               "convert_layout at {} reached the simulator without its barrier", n.loc.str());
  Cta& cta = w.cta;
  const DType t = n.a->dtype;
  const int bytes = dtype_bytes(t);
  const int64_t base = cta.shared_offsets.at(n.scratch.get());
  const std::vector<int>& shape = n.a->shape();
  const auto byte_of = [&](const ir::RegisterTensor& tile, int thread, int l) {
    const int64_t position =
        row_major_position(cta.tables.coords(tile.get()), shape, tile->layout.local_size(), thread, l);
    return base + ir::relayout_scratch_slot(position, shape.back(), t) * bytes;
  };
  const std::vector<ir::Scalar>& in = w.tile(n.a.get());
  const int in_local = n.a->layout.local_size(), out_local = n.out->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (!(mask >> lane & 1) || !first_replica(n.a->layout, th)) continue;
    for (int l = 0; l < in_local; ++l) {
      uint8_t incoming[8];
      store_value(t, incoming, in[size_t(lane) * size_t(in_local) + size_t(l)]);
      cta.store_shared(w, w.thread(lane), byte_of(n.a, th, l), incoming, bytes, n.loc, "convert_layout");
    }
  }
  cta.arrive_at_barrier(w, n.barrier, mask, n.loc, "convert_layout");
  auto& out = w.tile(n.out.get());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int l = 0; l < out_local; ++l) {
      const int64_t byte = byte_of(n.out, th, l);
      cta.access_shared(w, byte, bytes, false, n.loc, "convert_layout");
      out[size_t(lane) * size_t(out_local) + size_t(l)] = load_value(t, &cta.smem[size_t(byte)]);
    }
  }
  cta.arrive_at_barrier(w, n.barrier, mask, n.loc, "convert_layout");
}

}  // namespace

// Each lane takes its elements from the lanes that hold them in the operand's layout, by shuffles
// within the warp or through the scratch across warps.
void exec_Relayout(Warp& w, const ir::RelayoutNode& n, Mask mask) {
  require_whole_warp(w, mask, "convert_layout", n.loc);
  if (n.scratch) return relayout_through_scratch(w, n, mask);
  const std::vector<ir::RelayoutSource>& sources = w.cta.tables.relayout(&n);
  const std::vector<ir::Scalar> in = w.tile(n.a.get());
  auto& out = w.tile(n.out.get());
  const size_t local = size_t(n.out->layout.local_size()), in_local = size_t(n.a->layout.local_size());
  for (int lane = 0; lane < 32; ++lane) {
    const int t = w.thread_in_group(lane);
    for (size_t l = 0; l < local; ++l) {
      const ir::RelayoutSource& s = sources[size_t(t) * local + l];
      const int source_lane = lane + (s.thread - t);
      out[size_t(lane) * local + l] = in[size_t(source_lane) * in_local + size_t(s.slot)];
    }
  }
}

void exec_Vote(Warp& w, const ir::VoteNode& n, Mask mask) {
  require_whole_warp(w, mask, ir::vote_name(n.mode), n.loc);
  const Lanes predicate = w.eval(n.predicate, mask);
  uint32_t ballot = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (predicate[size_t(lane)].i) ballot |= 1u << lane;
  const int64_t result = n.mode == ir::VoteMode::Ballot ? int64_t(ballot)
                         : n.mode == ir::VoteMode::Any  ? int64_t(ballot != 0)
                                                        : int64_t(ballot == 0xffffffffu);
  Lanes out;
  out.fill(ir::Scalar{.i = result});
  w.assign(n.result.get(), out, mask);
}

}  // namespace tessel::sim
