// Verifier rules and effects (tessel/ir/effects.hpp) of fences: the target and executor come from
// nodes.def; a fence has no operands of its own to check, and only cluster scope asks more of the
// target.
#include "verification.hpp"

namespace tessel::ir {

void verify_FenceProxyAsync(Verification&, const FenceProxyAsyncNode&) {}

void verify_MemoryFence(Verification& v, const MemoryFenceNode& n) {
  if (n.scope == MemoryScope::Cluster && v.arch < Arch::Sm90a)
    throw Error(n.loc, fmt::format("fence.{} of cluster scope needs sm_90a or newer; the kernel is compiled for {}",
                                   fence_semantics_name(n.sem), arch_name(v.arch)));
}

// ---- effects ----

Effects effects_of(const FenceProxyAsyncNode&) { return {}; }
Effects effects_of(const MemoryFenceNode&) { return {}; }

}  // namespace tessel::ir
