// Launching a loaded kernel: the launch's shape, and the driver call that runs it. A launch with
// clusters, or as a programmatic dependent, goes through cuLaunchKernelEx, any other through
// cuLaunchKernel.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "tessel/runtime/loaded_kernel.hpp"

namespace tessel::runtime {

struct LaunchShape {
  std::array<unsigned, 3> grid = {1, 1, 1};     // blocks
  std::array<unsigned, 3> cluster = {1, 1, 1};  // blocks per cluster; 1 x 1 x 1: no clusters
  unsigned threads = 1;                         // per block, along x
  unsigned shared_bytes = 0;                    // dynamic shared memory per block
  // Launched as a programmatic dependent of the kernel before it on the stream: it may start
  // before that kernel ends, and its griddepcontrol.wait waits for it (the kernel has one).
  bool dependent = false;

  bool clustered() const { return cluster != std::array<unsigned, 3>{1, 1, 1}; }
  bool whole_clusters() const;
  // Throws tessel::Error, naming `label`, unless the grid is a whole number of clusters.
  void check(std::string_view label) const;
};

// Runs `kernel` on `stream` (a CUstream; null: the default stream) with `values`, one per
// parameter; a kernel generated in debug mode also gets the allocation each of its pointers lies
// in. An empty grid runs nothing. Throws tessel::Error when the driver refuses the launch.
void launch(const LoadedKernel& kernel, const LaunchShape& shape, std::span<const ir::Scalar> values, void* stream);

// The cuLaunchKernelEx configuration of a launch with clusters or as a programmatic dependent. Its
// attributes are the first numAttrs of `attributes`, which must outlive the launch.
CUlaunchConfig launch_config(const LaunchShape& shape, CUstream stream, std::array<CUlaunchAttribute, 2>& attributes);

}  // namespace tessel::runtime
