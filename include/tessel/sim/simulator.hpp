// The CPU simulator: runs the lowered IR of a kernel with GPU semantics (see docs/simulator.md).
// Blocks run one after another; within a block each warp is a fiber and the unit of scheduling.
// Problems a GPU would hide or hang on are reported as tessel::Error naming the user's line:
// deadlocks, out-of-bounds global accesses, reads of shared memory nothing wrote.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::sim {

struct Options {
  // 0: warps take turns in order; otherwise the interleaving is drawn from this seed (each seed
  // gives one deterministic run).
  uint64_t seed = 0;
};

struct Launch {
  std::array<int, 3> grid = {1, 1, 1};
  std::vector<ir::Scalar> args;  // one per kernel parameter; pointers as integers
};

void run(const ir::KernelNode& k, const Launch& launch, const Options& options = {});

// The global memory kernels may touch: allocations made through Device::simulator().
void register_allocation(const void* p, size_t bytes);
void unregister_allocation(const void* p);

}  // namespace tessel::sim
