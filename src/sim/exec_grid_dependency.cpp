// Simulator semantics of programmatic dependent launch. The simulator runs launches one after
// another, so when a kernel waits the kernels before it have ended; what the wait orders is
// memory: the warp acquires the prior grids' actor, whose accesses (prior_grids.hpp) race with the
// kernel's until then. Lanes of one warp share the warp's clock, so one lane's wait is the warp's.
// launch_dependents orders nothing; whether a block executed it before any wait decides whether the
// next launch may still overlap the kernels before this one.
#include "machine.hpp"

namespace tessel::sim {

void exec_GridDependencyWait(Warp& w, const ir::GridDependencyWaitNode&, Mask) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  hb.grid_dependency_wait(w.cta.linear_block());
  if (const uint32_t prior = hb.prior_grids()) w.clock.raise(prior, 1);
  w.tick();
}

void exec_LaunchDependents(Warp& w, const ir::LaunchDependentsNode&, Mask) {
  w.cta.scheduler.happens_before.launch_dependents(w.cta.linear_block(), w.clock);
  w.tick();
}

}  // namespace tessel::sim
