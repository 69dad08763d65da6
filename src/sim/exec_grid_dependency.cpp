// Simulator semantics of programmatic dependent launch. The simulator runs launches one after
// another, so when a kernel waits the kernels before it have ended; what the wait orders is
// memory: the warp acquires the prior grids' actor, whose accesses (prior_grids.hpp) race with the
// kernel's until then. Lanes of one warp share the warp's clock, so one lane's wait is the warp's.
// launch_dependents only lets the next launch start early, which orders nothing.
#include "machine.hpp"

namespace tessel::sim {

void exec_GridDependencyWait(Warp& w, const ir::GridDependencyWaitNode&, Mask) {
  if (const uint32_t prior = w.cta.scheduler.happens_before.prior_grids()) w.clock.raise(prior, 1);
  w.tick();
}

void exec_LaunchDependents(Warp& w, const ir::LaunchDependentsNode&, Mask) { w.tick(); }

}  // namespace tessel::sim
