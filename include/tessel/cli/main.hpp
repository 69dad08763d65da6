// The tessel command line over a registry of kernels: `list`, `run`, `check`, `ir`, `cuda`,
// `compile` and `space` for each registered kernel, and `tiles`, `roofline`, `cache` and `doctor`.
// The `tessel` program is this over the built-in examples; a user's program gets the same commands
// for its own kernels:
//
//   int main(int argc, char** argv) {
//     tessel::cli::Registry kernels;
//     kernels.add<MyKernel>(...);  // tessel/cli/registry.hpp
//     return tessel::cli::run(argc, argv, kernels);
//   }
//
// Link tessel::cli (the CMake package's target). Returns the process's exit code: 0 on success,
// 1 when a check fails, 2 for a user error (printed on stderr as one line).
#pragma once

#include "tessel/cli/registry.hpp"

namespace tessel::cli {

int run(int argc, char** argv, const Registry& kernels);

}  // namespace tessel::cli
