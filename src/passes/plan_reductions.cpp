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
    int warps = 1;
    for (const Layout::ThreadSpan& s : split.warps) warps *= s.size;
    const int elements = n.out->layout.num_elements();
    auto scratch =
        ir::make<ir::SharedTensorNode>(n.out->dtype, std::vector<int>{warps, elements}, std::vector<int>{elements, 1},
                                       nullptr, nullptr, fmt::format("{}_partials", ir::op_name(n.op)), n.loc, 0);
    allocations.push_back(ir::make<ir::AllocSharedNode>(n.loc, scratch));
    auto planned = ir::copy_of(n);
    planned->scratch = scratch;
    planned->barrier = g.count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
  }

 private:
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
