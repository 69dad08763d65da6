// Programmatic dependent launch in the simulator. A kernel that waits for prior grids
// (grid_dependency.wait()) is launched so that, until its wait, it may run beside the kernels
// launched before it; the simulator runs launches one after another, so it keeps what those kernels
// did to global memory and checks the new launch's accesses against it, as accesses of one more
// actor that only a grid_dependency.wait() orders before the kernel (happens_before.hpp). The
// launches one host thread makes are one stream; the host's copies, frees and synchronizations wait
// for them, and end the overlap.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessel/error.hpp"
#include "tessel/ir/instructions/atomic.hpp"

namespace tessel::sim {

struct PriorGridAccesses {
  // Where an access was made: "store_global of kernel producer" at its line.
  struct Site {
    SourceLoc loc;
    std::string operation;
  };
  // Bytes [begin, end) of an allocation, all read or all written at one site, by atomics of
  // `atomic` scope or by plain accesses.
  struct Run {
    int64_t begin, end;
    uint32_t site;
    bool write;
    std::optional<ir::MemoryScope> atomic = std::nullopt;
  };
  std::vector<Site> sites;
  std::map<uint64_t, std::vector<Run>> allocations;  // by the allocation's first byte
  // The kernels among them that ran without race checking (sim::Options::check_races), whose
  // accesses the record lacks.
  std::vector<std::string> unrecorded;

  // Appends `run` to `runs`, merged with the last run when it continues it.
  static void append(std::vector<Run>& runs, const Run& run);
};

// The accesses the kernels launched by this host thread, since it last waited for them, may make
// while the next launch runs.
PriorGridAccesses& prior_grid_accesses();

}  // namespace tessel::sim
