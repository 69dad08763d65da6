// Verifier rules and effects (tessel/ir/effects.hpp) of programmatic dependent launch: the target
// comes from nodes.def, and neither instruction has operands or touches the block's resources.
#include "tessel/ir/mutator.hpp"
#include "verification.hpp"

namespace tessel::ir {

bool waits_for_prior_grids(const KernelNode& k) {
  bool waits = false;
  walk(k.body, [&](const StmtNode& s) { waits |= s.kind == NodeKind::GridDependencyWait; });
  return waits;
}

void verify_GridDependencyWait(Verification&, const GridDependencyWaitNode&) {}
void verify_LaunchDependents(Verification&, const LaunchDependentsNode&) {}

// ---- effects ----

Effects effects_of(const GridDependencyWaitNode&) { return {}; }
Effects effects_of(const LaunchDependentsNode&) { return {}; }

}  // namespace tessel::ir
