// Verifier rules and effects (tessel/ir/effects.hpp) of programmatic dependent launch: the target
// comes from nodes.def, and neither instruction has operands or touches the block's resources.
#include "tessel/ir/mutator.hpp"
#include "verification.hpp"

namespace tessel::ir {

std::optional<SourceLoc> first_grid_dependency_wait(const KernelNode& k) {
  std::optional<SourceLoc> first;
  walk(k.body, [&](const StmtNode& s) {
    if (s.kind == NodeKind::GridDependencyWait && !first) first = s.loc;
  });
  return first;
}

bool waits_for_prior_grids(const KernelNode& k) { return first_grid_dependency_wait(k).has_value(); }

void verify_GridDependencyWait(Verification&, const GridDependencyWaitNode&) {}
void verify_LaunchDependents(Verification&, const LaunchDependentsNode&) {}

// ---- effects ----

Effects effects_of(const GridDependencyWaitNode&) { return {}; }
Effects effects_of(const LaunchDependentsNode&) { return {}; }

}  // namespace tessel::ir
