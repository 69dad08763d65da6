// What the kernels a host thread launched may still be doing when its next launch starts.
#include "prior_grids.hpp"

#include "tessel/sim/simulator.hpp"

namespace tessel::sim {

void PriorGridAccesses::append(std::vector<Run>& runs, int64_t begin, int64_t end, uint32_t site, bool write) {
  if (!runs.empty() && runs.back().end == begin && runs.back().site == site && runs.back().write == write) {
    runs.back().end = end;
    return;
  }
  runs.push_back(Run{begin, end, site, write});
}

PriorGridAccesses& prior_grid_accesses() {
  thread_local PriorGridAccesses accesses;
  return accesses;
}

void host_synchronized() { prior_grid_accesses() = PriorGridAccesses{}; }

}  // namespace tessel::sim
