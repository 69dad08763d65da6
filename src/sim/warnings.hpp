// The warnings of one simulator run, gathered from every block and reported once per line when
// the run ends without error (sim::Options::on_warning).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessel/sim/simulator.hpp"

namespace tessel::sim {

class RunWarnings {
 public:
  // A TMA load issued at `issued_at` by block `block` completed bytes on a phase no wait saw.
  void load_never_waited_for(const SourceLoc& issued_at, const std::string& block);
  // Kernel `kernel` waits at `wait` for kernels launched before it, of which `unrecorded` ran
  // without race checking: its accesses before the wait are not checked against theirs.
  void prior_grids_unchecked(const SourceLoc& wait, const std::string& kernel, std::vector<std::string> unrecorded);
  void report(const Options& options) const;

 private:
  struct Loads {
    SourceLoc at;
    int count = 0;
    std::string first_block;
  };
  std::map<std::string, Loads> loads_;  // by issuing line
  std::vector<Warning> unchecked_;
};

}  // namespace tessel::sim
