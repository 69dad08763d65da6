// Verifier rules and effects (tessel/ir/effects.hpp) of cp.async.
#include "verification.hpp"

namespace tessel::ir {

void verify_CopyAsync(Verification& v, const CopyAsyncNode& n) {
  TESSEL_CHECK(n.layout.num_threads() <= v.group().count, "copy_async split over {} threads in a group of {}",
               n.layout.num_threads(), v.group().count);
  TESSEL_CHECK(!n.in_turn || n.layout.rank() == 0, "copy_async at {} taken in turn has a layout too", n.loc.str());
  TESSEL_CHECK(n.src->dtype == n.dst->dtype, "copy_async from {} to {}", dtype_name(n.src->dtype),
               dtype_name(n.dst->dtype));
  // PTX has cp.async.L2::cache_hint, but ptxas (CUDA 13.0) can give the hinted LDGSTS its policy in
  // an odd uniform register, which the H200 stops as an illegal instruction (docs/language.md,
  // "Cache hints").
  if (n.src->cache_hint != CacheHint::Normal)
    throw Error(n.loc, fmt::format("copy_async from a view with cache hint {}: cp.async carries no cache hint, since "
                                   "ptxas of CUDA 13.0 miscompiles it; copy from the view without with_cache_hint, or "
                                   "through load_global and store_shared, or by TMA (sm_90a and later), which carry it",
                                   cache_hint_name(n.src->cache_hint)));
  check_no_l1_hint(n.src,
                   "copy_async: cp.async takes no L1 hint (it caches in L1 by its size: .ca for 4 and 8 bytes, .cg, "
                   "which bypasses L1, for 16)",
                   n);
}

void verify_CopyAsyncCommit(Verification&, const CopyAsyncCommitNode&) {}

void verify_CopyAsyncWait(Verification&, const CopyAsyncWaitNode& n) {
  TESSEL_CHECK(n.pending >= 0, "copy_async_wait_group {} at {}", n.pending, n.loc.str());
}

// ---- effects ----

Effects effects_of(const CopyAsyncNode&) { return {}; }
Effects effects_of(const CopyAsyncCommitNode&) { return {}; }
Effects effects_of(const CopyAsyncWaitNode&) { return {}; }

}  // namespace tessel::ir
