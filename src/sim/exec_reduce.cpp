// Simulator semantics of reductions: each output element combines the input elements of its
// row (along the reduced dimension), which the layout places in lanes of the same warp.
#include "machine.hpp"

namespace tessel::sim {

void exec_Reduce(Warp& w, const ir::ReduceNode& n, Mask mask) {
  const Layout& in = n.a->layout;
  const Layout& out = n.out->layout;
  const int in_local = in.local_size(), out_local = out.local_size();
  const auto& src = w.tile(n.a.get());
  auto& dst = w.tile(n.out.get());
  const int group_begin = w.group().begin;
  const DType t = n.a->dtype;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int lo = 0; lo < out_local; ++lo) {
      std::vector<int> c = out.coords(th, lo);
      bool first = true;
      ir::Scalar acc{.i = 0};
      for (int k = 0; k < in.shape()[n.dim]; ++k) {
        c[n.dim] = k;
        // The holder in this warp: the same lane when it holds it, else the lane the shuffles reach.
        int slot = -1, holder = -1;
        for (int other = 0; other < 32 && holder < 0; ++other) {
          const int ot = w.thread(other) - group_begin;
          if (ot < 0 || ot >= in.num_threads()) continue;
          if (in.holds(ot, c, &slot)) holder = other;
        }
        TESSEL_CHECK(holder >= 0, "reduce: element of row {} not held in warp {}", k, w.id);
        if (!(mask >> holder & 1))
          throw Error(n.loc, fmt::format("{} over dim {} executed by only part of a warp: thread {} holds an element "
                                         "but does not take part (is the reduction inside a branch?)",
                                         ir::op_name(n.op), n.dim, w.thread(holder)));
        const ir::Scalar v = src[size_t(holder) * in_local + slot];
        if (first)
          acc = v;
        else if (n.op == ir::ReduceOp::Sum)
          acc = ir::apply_binary(ir::BinaryOp::Add, t, acc, v);
        else if (n.op == ir::ReduceOp::Max)
          acc = ir::apply_binary(ir::BinaryOp::Max, t, acc, v);
        else
          acc = ir::apply_binary(ir::BinaryOp::Min, t, acc, v);
        first = false;
      }
      dst[size_t(lane) * out_local + lo] = acc;
    }
  }
}

}  // namespace tessel::sim
