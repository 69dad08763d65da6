// What each code-generation target allows a kernel: the one table of hardware limits that the
// verifier, the kernel front door (which drops tuning candidates that cannot run) and the GPU
// spec table of the analysis tools all read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

struct TargetLimits {
  std::array<int64_t, 3> max_grid_blocks = {};  // per dimension, x y z
  int max_threads_per_block = 0;
  int64_t max_shared_bytes_per_block = 0;       // the opt-in maximum of one block's shared memory
  int64_t shared_bytes_per_sm = 0;              // with the largest shared-memory carveout
  int64_t shared_bytes_reserved_per_block = 0;  // kept by the system for each resident block
  int registers_per_sm = 0;                     // 32-bit registers
  int registers_per_block = 0;
  int max_registers_per_thread = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int tmem_lanes = 0, tmem_columns = 0;  // tensor memory of an SM, in 32-bit cells; 0 without
  int max_cluster_blocks = 1;            // the portable cluster size; 1 where there are no clusters
};

const TargetLimits& target_limits(Arch arch);

// Which GPUs run a target's code (CUDA C++ Programming Guide, "Application Compatibility"): an "a"
// target's machine code runs on its own compute capability only; sm_80's on 8.x, and on every later
// GPU from its PTX, which the driver compiles.
int compute_capability_major(Arch arch);  // of the GPUs the target's machine code is for: 8, 9, 10
// The target whose machine code a GPU of compute capability major.minor runs, if tessel has one.
std::optional<Arch> native_target(int major, int minor);
// In words, for messages: "GPUs of compute capability 8.0 and later", "... 9.0 only".
std::string gpus_running(Arch arch);

}  // namespace tessel::ir
