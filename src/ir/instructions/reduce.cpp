// Verifier rules and effects (tessel/ir/effects.hpp) of the reductions.
#include "verification.hpp"

namespace tessel::ir {

void verify_Reduce(Verification& v, const ReduceNode& n) {
  TESSEL_CHECK(n.dim >= 0 && n.dim < n.a->rank() && n.out->shape()[size_t(n.dim)] == 1,
               "reduction over dim {} at {} does not keep it with extent 1", n.dim, n.loc.str());
  if (n.scratch) {
    const bool whole_block = v.group() == ThreadRange{0, v.kernel.threads()};
    TESSEL_CHECK(!n.scratch->root && n.scratch->dtype == n.out->dtype,
                 "the partials of the reduction at {} are not an allocation of its type", n.loc.str());
    TESSEL_CHECK(n.barrier >= ReduceNode::kUnallocated && n.barrier < SyncNode::kBarriers &&
                     (n.barrier == SyncNode::kBlockBarrier) == whole_block,
                 "reduction barrier {} in a group of {} at {}", n.barrier, v.group().str(), n.loc.str());
  }
  v.use(n.a, n);
  v.define(n.out, n);
}

void verify_Scan(Verification& v, const ScanNode& n) {
  TESSEL_CHECK(n.dim >= 0 && n.dim < n.a->rank() && n.out->shape() == n.a->shape(),
               "scan over dim {} at {} changes the tile's shape", n.dim, n.loc.str());
  if (n.scratch) {
    const bool whole_block = v.group() == ThreadRange{0, v.kernel.threads()};
    TESSEL_CHECK(!n.scratch->root && n.scratch->dtype == n.out->dtype,
                 "the warp totals of the scan at {} are not an allocation of its type", n.loc.str());
    TESSEL_CHECK(n.barrier >= ReduceNode::kUnallocated && n.barrier < SyncNode::kBarriers &&
                     (n.barrier == SyncNode::kBlockBarrier) == whole_block,
                 "scan barrier {} in a group of {} at {}", n.barrier, v.group().str(), n.loc.str());
  }
  v.use(n.a, n);
  v.define(n.out, n);
}

// ---- effects ----

Effects effects_of(const ReduceNode&) { return {}; }
Effects effects_of(const ScanNode&) { return {}; }

}  // namespace tessel::ir
