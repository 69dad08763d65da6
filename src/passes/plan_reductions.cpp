// Gives each reduction whose dimension spans warps the shared scratch its warps combine their
// partial results through: [warps along the dimension, result elements] of the result's type,
// allocated at the kernel's start, and the barrier of its thread group (the block's, or a named
// one that allocate_barriers numbers).
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class PlanReductions : public ir::Mutator {
 public:
  explicit PlanReductions(int block_threads) : block_threads_(block_threads) {}
  std::vector<ir::Stmt> allocations;

 protected:
  ir::Stmt visit(const ir::ReduceNode& n, const ir::Stmt& self) override {
    if (n.scratch) return self;
    Layout::WarpSplit split;
    const bool splits = n.a->layout.split_at_warps(n.dim, &split);
    TESSEL_CHECK(splits, "reduction at {} over a layout infer_layouts accepted", n.loc.str());
    if (split.warps.empty()) return self;
    const ir::ThreadRange g = position().group();
    if (g.begin % 32 != 0 || g.count % 32 != 0)
      throw Error(n.loc, fmt::format("{} over dim {}: its warps combine their parts at a barrier of the thread group "
                                     "({}), which must be whole warps",
                                     ir::op_name(n.op), n.dim, g.str()));
    auto planned = ir::copy_of(n);
    planned->scratch = scratch(split, n.out->layout.num_elements(), n.out->dtype, ir::op_name(n.op), n.loc);
    planned->barrier = g.count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
  }

  ir::Stmt visit(const ir::ScanNode& n, const ir::Stmt& self) override {
    if (n.scratch) return self;
    const std::string what = fmt::format("cum{}", ir::op_name(n.op));
    Layout::ScanOrder order;
    if (!n.a->layout.scan_order(n.dim, &order))
      throw Error(n.loc, fmt::format("{} over dim {}: the layout {} does not give each thread a run of consecutive "
                                     "positions along the dimension, the runs following the lanes and then the "
                                     "warps in order; pin one such as Layout::spatial(...) * Layout::local(...) with "
                                     "the threads outer and each thread's run inner along dim {}",
                                     what, n.dim, n.a->layout.str(), n.dim));
    if (order.warps.empty()) return self;
    const ir::ThreadRange g = position().group();
    if (g.begin % 32 != 0 || g.count % 32 != 0)
      throw Error(n.loc, fmt::format("{} over dim {}: its warps combine their totals at a barrier of the thread group "
                                     "({}), which must be whole warps",
                                     what, n.dim, g.str()));
    Layout::WarpSplit split;
    split.warps = order.warps;
    const int rows = n.out->layout.num_elements() / n.out->shape()[size_t(n.dim)];
    auto planned = ir::copy_of(n);
    planned->scratch = scratch(split, rows, n.out->dtype, what, n.loc);
    planned->barrier = g.count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
  }

 private:
  // A new allocation of [warps along the dimension, `elements`] of `t`, at the kernel's start.
  ir::SharedTensor scratch(const Layout::WarpSplit& split, int elements, DType t, std::string_view what,
                           const SourceLoc& loc) {
    int warps = 1;
    for (const Layout::ThreadSpan& s : split.warps) warps *= s.size;
    auto tensor = ir::make<ir::SharedTensorNode>(t, std::vector<int>{warps, elements}, std::vector<int>{elements, 1},
                                                 nullptr, nullptr, fmt::format("{}_partials", what), loc, 0);
    allocations.push_back(ir::make<ir::AllocSharedNode>(loc, tensor));
    return tensor;
  }

  int block_threads_;
};

}  // namespace

ir::Kernel plan_reductions(const ir::Kernel& k, const PassContext&) {
  PlanReductions p(k->threads());
  ir::Kernel planned = p.mutate_kernel(k);
  if (p.allocations.empty()) return planned;
  std::vector<ir::Stmt> body = std::move(p.allocations);
  body.push_back(planned->body);
  auto out = std::make_shared<ir::KernelNode>(*planned);
  out->body = ir::seq(std::move(body), planned->body->loc);
  return out;
}

}  // namespace tessel::passes
