// Verifier rules and effects (tessel/ir/effects.hpp) of the reductions and scans.
#include "tessel/ir/evaluate.hpp"
#include "verification.hpp"

namespace tessel::ir {

namespace {

// Across warps, a reduction or scan exchanges through an allocation of the type it combines in
// (combining_type of its result's), at the barrier of the group it runs in (the block's for the
// whole block, a named one otherwise).
template <class N> void check_across_warps(Verification& v, const N& n) {
  if (!n.scratch) return;
  TESSEL_CHECK(!n.scratch->root && n.scratch->dtype == combining_type(n.out->dtype),
               "the scratch of the {} at {} is not an allocation of its type", kind_name(n.kind), n.loc.str());
  check_group_barrier(v, n.barrier, n);
}

}  // namespace

std::string reduction_name(const ReduceNode& n) {
  return n.position ? fmt::format("arg{}", op_name(n.op)) : std::string(op_name(n.op));
}

void check_group_barrier(const Verification& v, int barrier, const StmtNode& n) {
  const bool whole_block = v.group() == ThreadRange{0, v.kernel.threads()};
  TESSEL_CHECK(barrier >= ReduceNode::kUnallocated && barrier < SyncNode::kBarriers &&
                   (barrier == SyncNode::kBlockBarrier) == whole_block,
               "{} barrier {} in a group of {} at {}", kind_name(n.kind), barrier, v.group().str(), n.loc.str());
}

void verify_Reduce(Verification& v, const ReduceNode& n) {
  TESSEL_CHECK(n.dim >= 0 && n.dim < n.a->rank() && n.out->shape()[size_t(n.dim)] == 1,
               "reduction over dim {} at {} does not keep it with extent 1", n.dim, n.loc.str());
  check_across_warps(v, n);
  if (n.position) {
    TESSEL_CHECK(n.op != ReduceOp::Sum && n.position->dtype == DType::I32 && n.position->shape() == n.out->shape() &&
                     n.position->layout == n.out->layout,
                 "the positions of the {} at {} are not an i32 tile of its result's shape and layout",
                 reduction_name(n), n.loc.str());
    TESSEL_CHECK(!n.scratch == !n.position_scratch &&
                     (!n.position_scratch || (!n.position_scratch->root && n.position_scratch->dtype == DType::I32 &&
                                              n.position_scratch->shape == n.scratch->shape)),
                 "the position scratch of the {} at {} does not match its scratch", reduction_name(n), n.loc.str());
  } else {
    TESSEL_CHECK(!n.position_scratch, "the reduce_{} at {} has a position scratch without positions", op_name(n.op),
                 n.loc.str());
  }
  v.use(n.a, n);
  v.define(n.out, n);
  if (n.position) v.define(n.position, n);
}

void verify_Scan(Verification& v, const ScanNode& n) {
  TESSEL_CHECK(n.dim >= 0 && n.dim < n.a->rank() && n.out->shape() == n.a->shape(),
               "scan over dim {} at {} changes the tile's shape", n.dim, n.loc.str());
  check_across_warps(v, n);
  v.use(n.a, n);
  v.define(n.out, n);
}

// ---- effects ----

Effects effects_of(const ReduceNode&) { return {}; }
Effects effects_of(const ScanNode&) { return {}; }

}  // namespace tessel::ir
