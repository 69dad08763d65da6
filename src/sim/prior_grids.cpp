// What the kernels a host thread launched may still be doing when its next launch starts.
#include "prior_grids.hpp"

#include "tessel/sim/simulator.hpp"

namespace tessel::sim {

void PriorGridAccesses::append(std::vector<Run>& runs, const Run& run) {
  if (!runs.empty()) {
    Run& last = runs.back();
    if (last.end == run.begin && last.site == run.site && last.write == run.write && last.atomic == run.atomic) {
      last.end = run.end;
      return;
    }
  }
  runs.push_back(run);
}

PriorGridAccesses& prior_grid_accesses() {
  thread_local PriorGridAccesses accesses;
  return accesses;
}

void host_synchronized() { prior_grid_accesses() = PriorGridAccesses{}; }

}  // namespace tessel::sim
