// Gives each reduction whose dimension spans warps the shared scratch its warps combine their
// partial results through: [warps along the dimension, result elements] of the result's type,
// allocated at the kernel's start, and the barrier of its thread group (the block's, or a named
// one that allocate_barriers numbers). A printed tile is gathered the same way, in a scratch of
// all its elements, and so is a layout conversion that shuffles cannot do.
#include "tessel/ir/evaluate.hpp"
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
    const std::string what = ir::reduction_name(n);
    check_runs_in_warps(n, split.lanes, what);
    if (split.warps.empty()) return self;
    auto planned = across_warps(n, split.warps, what, "parts");
    if (!n.position) return planned;
    // The positions go beside the values, in a scratch of the same rows.
    auto positions = ir::make<ir::SharedTensorNode>(DType::I32, planned->scratch->shape, planned->scratch->strides,
                                                    nullptr, nullptr, fmt::format("{}_positions", what), n.loc, 0);
    positions->owner = fmt::format("the scratch of {}'s positions, one row for each warp", what);
    allocations.push_back(ir::make<ir::AllocSharedNode>(n.loc, positions));
    planned->position_scratch = positions;
    return planned;
  }

  ir::Stmt visit(const ir::ScanNode& n, const ir::Stmt& self) override {
    if (n.scratch) return self;
    const std::string what = fmt::format("cum{}", ir::op_name(n.op));
    Layout::ScanOrder order;
    Layout::WarpSplit split;
    if (!n.a->layout.split_at_warps(n.dim, &split))
      throw Error(n.loc, fmt::format("{} over dim {}: the threads spanning that dimension in {} cross a warp boundary "
                                     "unevenly; choose a layout whose threads along dim {} fill whole warps, such as "
                                     "Layout::spatial(...) * Layout::local(...) with a power of two of threads along "
                                     "it",
                                     what, n.dim, n.a->layout.str(), n.dim));
    check_runs_in_warps(n, split.lanes, what);
    if (!n.a->layout.scan_order(n.dim, &order))
      throw Error(n.loc, fmt::format("{} over dim {}: the layout {} does not give each thread a run of consecutive "
                                     "positions along the dimension, the runs following the lanes and then the "
                                     "warps in order; pin one such as Layout::spatial(...) * Layout::local(...) with "
                                     "the threads outer and each thread's run inner along dim {} (for a tile whose "
                                     "layout another instruction fixes, scan convert_layout(x, layout))",
                                     what, n.dim, n.a->layout.str(), n.dim));
    if (order.warps.empty()) return self;
    return across_warps(n, order.warps, what, "totals");
  }

  ir::Stmt visit(const ir::RelayoutNode& n, const ir::Stmt& self) override {
    if (n.scratch || ir::shuffle_sources(n)) return self;
    auto scratch = ir::make<ir::SharedTensorNode>(
        n.a->dtype,
        std::vector<int>{ir::relayout_scratch_slots(n.a->layout.num_elements(), n.a->shape().back(), n.a->dtype)},
        std::vector<int>{1}, nullptr, nullptr, fmt::format("{}_relayout", n.a->name), n.loc, 0);
    scratch->owner = "the scratch through which convert_layout moves a tile across warps";
    allocations.push_back(ir::make<ir::AllocSharedNode>(n.loc, scratch));
    auto planned = ir::copy_of(n);
    planned->scratch = scratch;
    planned->barrier =
        position().group().count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
  }

  ir::Stmt visit(const ir::PrintTensorNode& n, const ir::Stmt& self) override {
    if (n.scratch) return self;
    const ir::ThreadRange g = position().group();
    if (g.count != block_threads_ && (g.begin % 32 != 0 || g.count % 32 != 0))
      throw Error(n.loc, fmt::format("print of the tile created at {}: its threads gather the tile at a barrier of "
                                     "the thread group ({}), which must be whole warps",
                                     n.tensor->loc.str(), g.str()));
    auto scratch = ir::make<ir::SharedTensorNode>(
        ir::printed_type(n.tensor->dtype), std::vector<int>{n.tensor->layout.num_elements()}, std::vector<int>{1},
        nullptr, nullptr, fmt::format("{}_printed", n.tensor->name), n.loc, 0);
    scratch->owner = "the scratch in which print gathers its tile";
    allocations.push_back(ir::make<ir::AllocSharedNode>(n.loc, scratch));
    auto planned = ir::copy_of(n);
    planned->scratch = scratch;
    planned->barrier = g.count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
  }

 private:
  // The lanes that combine along the dimension (`lanes`, each a run of stride × size threads of the
  // layout, which divides 32) are lanes of one warp only where every run starts at a multiple of its
  // size in the block: a thread group that starts inside a warp shifts the runs across warps.
  template <class N>
  void check_runs_in_warps(const N& n, const std::vector<Layout::ThreadSpan>& lanes, std::string_view what) {
    const ir::ThreadRange g = position().group();
    for (const Layout::ThreadSpan& s : lanes)
      if (g.begin % (s.stride * s.size) != 0)
        throw Error(
            n.loc, fmt::format("{} over dim {}: the thread group ({}) starts at thread {} of the block, so the "
                               "runs of {} threads that hold each line along that dimension in {} straddle "
                               "two warps; start the group at a multiple of {} threads",
                               what, n.dim, g.str(), g.begin, s.stride * s.size, n.a->layout.str(), s.stride * s.size));
  }

  // `n` (a reduction or scan, `what` in messages) with its scratch, a new allocation of [warps
  // along the dimension, result rows] at the kernel's start, and its group's barrier. The warps
  // exchange their `parts` at the barrier, so the group must be whole warps.
  template <class N> std::shared_ptr<N> across_warps(const N& n, const std::vector<Layout::ThreadSpan>& warp_spans,
                                                     std::string_view what, std::string_view parts) {
    const ir::ThreadRange g = position().group();
    if (g.begin % 32 != 0 || g.count % 32 != 0)
      throw Error(n.loc, fmt::format("{} over dim {}: its warps combine their {} at a barrier of the thread group "
                                     "({}), which must be whole warps",
                                     what, n.dim, parts, g.str()));
    int warps = 1;
    for (const Layout::ThreadSpan& s : warp_spans) warps *= s.size;
    const int rows = n.out->layout.num_elements() / n.out->shape()[size_t(n.dim)];
    auto scratch = ir::make<ir::SharedTensorNode>(ir::combining_type(n.out->dtype), std::vector<int>{warps, rows},
                                                  std::vector<int>{rows, 1}, nullptr, nullptr,
                                                  fmt::format("{}_partials", what), n.loc, 0);
    scratch->owner = fmt::format("the scratch of {}'s partials, one row for each of {} warps", what, warps);
    allocations.push_back(ir::make<ir::AllocSharedNode>(n.loc, scratch));
    auto planned = ir::copy_of(n);
    planned->scratch = scratch;
    planned->barrier = g.count == block_threads_ ? ir::SyncNode::kBlockBarrier : ir::ReduceNode::kUnallocated;
    return planned;
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
