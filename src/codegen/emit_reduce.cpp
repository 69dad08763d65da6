// Reductions over one dimension of a register tile: first over each thread's own slots, then
// across the lanes that span the dimension with butterfly shuffles, then, when the dimension spans
// warps, across the warps through the shared partials that plan_reductions gave the reduction.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

void emit_barrier(Emitter& e, int barrier) {
  if (barrier == ir::SyncNode::kBlockBarrier) return e.line("__syncthreads();");
  e.line(ptx_asm(Ptx::BarSync, e.arch, {{std::to_string(barrier)}, {std::to_string(e.group().count)}}));
}

// Each warp's partials acc0, acc1, ... (one per result slot) go to row q of the partials, q being
// the warp's position along the dimension, from the lanes at position 0 within their warp; after a
// barrier every thread folds the rows in order; a second barrier frees the partials for the next
// time the reduction runs.
template <class Combine> void emit_across_warps(Emitter& e, const ir::ReduceNode& n,
                                                const std::vector<Layout::ThreadSpan>& warps, const Combine& combine) {
  const Layout& in = n.a->layout;
  const Layout& out = n.out->layout;
  const DType t = n.out->dtype;
  const int elements = out.num_elements();
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  std::vector<std::string> q_terms;
  int rows = 1;
  for (const Layout::ThreadSpan& s : warps) {
    q_terms.push_back(fmt::format("t / {} % {} * {}", s.stride, s.size, rows));
    rows *= s.size;
  }
  e.line(fmt::format("const int q = {};", fmt::join(q_terms, " + ")));
  std::vector<std::string> first_lane;
  Layout::WarpSplit split;
  in.split_at_warps(n.dim, &split);
  for (const Layout::ThreadSpan& s : split.lanes)
    first_lane.push_back(fmt::format("t / {} % {} == 0", s.stride, s.size));
  // The result element of each slot, row-major in the result's shape.
  const auto element = [&](int lo) {
    const auto c = out.coord_exprs("t", std::to_string(lo));
    std::string index = "0";
    for (int d = 0; d < out.rank(); ++d) index = fmt::format("({}) * {} + ({})", index, out.shape()[d], c[size_t(d)]);
    return index;
  };
  const auto partial = [&](const std::string& row, int lo) {
    return shared_element(e, n.scratch, fmt::format("({}) * {} + {}", row, elements, element(lo)));
  };
  e.open(first_lane.empty() ? "" : fmt::format("if ({})", fmt::join(first_lane, " && ")));
  for (int lo = 0; lo < out.local_size(); ++lo)
    e.line(fmt::format("{} = {};", partial("q", lo), to_storage(t, fmt::format("acc{}", lo))));
  e.close();
  emit_barrier(e, n.barrier);
  for (int lo = 0; lo < out.local_size(); ++lo) {
    std::string acc = to_arith(t, partial("0", lo));
    for (int r = 1; r < rows; ++r) acc = combine(acc, to_arith(t, partial(std::to_string(r), lo)));
    e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(t, acc)));
  }
  emit_barrier(e, n.barrier);
}

}  // namespace

void emit_Reduce(Emitter& e, const ir::ReduceNode& n) {
  e.header(n, fmt::format("reduce_{} over dim {}", ir::op_name(n.op), n.dim));
  e.declare_tile(n.out);
  const Layout& in = n.a->layout;
  const Layout& out = n.out->layout;
  const DType t = n.a->dtype;
  auto combine = [&](const std::string& x, const std::string& y) {
    switch (n.op) {
      case ir::ReduceOp::Sum: return binary_expr(ir::BinaryOp::Add, t, x, y);
      case ir::ReduceOp::Max: return binary_expr(ir::BinaryOp::Max, t, x, y);
      case ir::ReduceOp::Min: return binary_expr(ir::BinaryOp::Min, t, x, y);
    }
    return x;
  };
  Layout::WarpSplit split;
  TESSEL_CHECK(in.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
  const auto& spans = split.lanes;
  const auto g = e.group();
  const unsigned mask = g.count >= 32 ? 0xffffffffu : ((1u << g.count) - 1u) << (g.begin % 32);
  e.open("");
  for (int lo = 0; lo < out.local_size(); ++lo) {
    // The slots of this thread that fold into output slot `lo` (the same for every thread).
    std::vector<int> c = out.coords(0, lo);
    std::string acc;
    for (int k = 0; k < in.shape()[n.dim]; ++k) {
      c[n.dim] = k;
      int la = 0;
      if (!in.holds(0, c, &la)) continue;  // held by another lane: folded in by the shuffles
      const std::string v = to_arith(t, fmt::format("{}[{}]", e.tile(n.a), la));
      acc = acc.empty() ? v : combine(acc, v);
    }
    e.line(fmt::format("{} acc{} = {};", arith_type(t), lo, acc));
    for (const auto& s : spans)
      for (int k = 1; k < s.size; k <<= 1)
        e.line(fmt::format("acc{0} = {1};", lo,
                           combine(fmt::format("acc{}", lo),
                                   fmt::format("tessel_shfl_xor(0x{:08x}u, acc{}, {})", mask, lo, k * s.stride))));
    if (!n.scratch)
      e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(n.out->dtype, fmt::format("acc{}", lo))));
  }
  if (n.scratch) emit_across_warps(e, n, split.warps, combine);
  e.close();
}

}  // namespace tessel::codegen
