#include "tessel/runtime/launch.hpp"

#include <cstring>

#include <fmt/format.h>

namespace tessel::runtime {

void LaunchShape::check(std::string_view label) const {
  for (size_t d = 0; d < 3; ++d)
    if (cluster[d] == 0 || grid[d] % cluster[d] != 0)
      throw Error(fmt::format("{}: a grid of {} x {} x {} blocks is not a whole number of {} x {} x {} clusters",
                              label, grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2]));
}

CUlaunchConfig cluster_launch_config(const LaunchShape& shape, CUstream stream, CUlaunchAttribute& cluster) {
  std::memset(&cluster, 0, sizeof cluster);
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = shape.cluster[0];
  cluster.value.clusterDim.y = shape.cluster[1];
  cluster.value.clusterDim.z = shape.cluster[2];
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof config);
  config.gridDimX = shape.grid[0];
  config.gridDimY = shape.grid[1];
  config.gridDimZ = shape.grid[2];
  config.blockDimX = shape.threads;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = shape.shared_bytes;
  config.hStream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

void launch(const LoadedKernel& kernel, const LaunchShape& shape, std::span<const ir::Scalar> values, void* stream) {
  if (shape.grid[0] == 0 || shape.grid[1] == 0 || shape.grid[2] == 0) return;
  std::array<EncodedTensorMap, TensorMapEncoder::kMaxMaps> tensor_maps;
  const std::span<EncodedTensorMap> maps = std::span(tensor_maps).first(kernel.tensor_maps().size());
  kernel.tensor_maps().encode(values, maps);
  ArgumentBlock arguments(kernel.params(), values, maps);
  auto& d = CudaDriver::get();
  const auto cu_stream = static_cast<CUstream>(stream);
  if (!shape.clustered()) {
    d.check(d.launchKernel(kernel.function(), shape.grid[0], shape.grid[1], shape.grid[2], shape.threads, 1, 1,
                           shape.shared_bytes, cu_stream, arguments.pointers(), nullptr),
            "cuLaunchKernel", kernel.label());
    return;
  }
  shape.check(kernel.label());
  CUlaunchAttribute cluster;
  const CUlaunchConfig config = cluster_launch_config(shape, cu_stream, cluster);
  d.check(d.launchKernelEx(&config, kernel.function(), arguments.pointers(), nullptr), "cuLaunchKernelEx",
          kernel.label());
}

}  // namespace tessel::runtime
