// Reductions over one dimension of a register tile: first over each thread's own slots, then
// across the lanes that span the dimension with butterfly shuffles.
#include "emitter.hpp"

namespace tessel::codegen {

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
  const auto spans = in.thread_spans(n.dim);
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
    e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(n.out->dtype, fmt::format("acc{}", lo))));
  }
  e.close();
}

}  // namespace tessel::codegen
