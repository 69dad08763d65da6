// Verifier rules and effects (tessel/ir/effects.hpp) of fences: the target (sm_90a) and executor
// come from nodes.def; a fence has no operands of its own to check.
#include "verification.hpp"

namespace tessel::ir {

void verify_FenceProxyAsync(Verification&, const FenceProxyAsyncNode&) {}

// ---- effects ----

Effects effects_of(const FenceProxyAsyncNode&) { return {}; }

}  // namespace tessel::ir
