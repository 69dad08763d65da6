#include "tessel/runtime/launch.hpp"

#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace tessel::runtime {

bool LaunchShape::whole_clusters() const {
  for (size_t d = 0; d < 3; ++d)
    if (cluster[d] == 0 || grid[d] % cluster[d] != 0) return false;
  return true;
}

void LaunchShape::check(std::string_view label) const {
  if (!whole_clusters())
    throw Error(fmt::format("{}: a grid of {} x {} x {} blocks is not a whole number of {} x {} x {} clusters", label,
                            grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2]));
}

CUlaunchConfig launch_config(const LaunchShape& shape, CUstream stream, std::array<CUlaunchAttribute, 2>& attributes) {
  std::memset(attributes.data(), 0, sizeof attributes);
  unsigned count = 0;
  if (shape.clustered()) {
    CUlaunchAttribute& cluster = attributes[count++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = shape.cluster[0];
    cluster.value.clusterDim.y = shape.cluster[1];
    cluster.value.clusterDim.z = shape.cluster[2];
  }
  if (shape.dependent) {
    CUlaunchAttribute& dependent = attributes[count++];
    dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    dependent.value.programmaticStreamSerializationAllowed = 1;
  }
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
  config.attrs = attributes.data();
  config.numAttrs = count;
  return config;
}

namespace {

// The allocation `address` lies in, as the driver knows it; one that contains every address when
// the driver knows none (host memory, for one), so that debug checks pass over what they cannot
// judge.
AllocationRange allocation_of(uint64_t address) {
  CUdeviceptr base = 0;
  size_t bytes = 0;
  auto& d = CudaDriver::get();
  if (d.memGetAddressRange(&base, &bytes, CUdeviceptr(address)) != CUDA_SUCCESS) return {0, ~uint64_t(0)};
  return {uint64_t(base), uint64_t(base) + bytes};
}

// Debug mode: the allocation of each pointer parameter, in order, into `out`.
void find_allocations(const ParamLayout& params, std::span<const ir::Scalar> values, std::span<AllocationRange> out) {
  size_t next = 0;
  for (const ParamSlot& slot : params.slots())
    if (slot.kind == ParamSlot::Kind::Pointer) out[next++] = allocation_of(uint64_t(values[slot.source].i));
  TESSEL_CHECK(next == out.size(), "{} pointer parameters for {} allocations", next, out.size());
}

}  // namespace

void launch(const LoadedKernel& kernel, const LaunchShape& shape, std::span<const ir::Scalar> values, void* stream) {
  if (shape.grid[0] == 0 || shape.grid[1] == 0 || shape.grid[2] == 0) return;
  // Empty, so not allocated, unless the kernel was generated in debug mode.
  std::vector<AllocationRange> allocations(kernel.params().allocations());
  if (!allocations.empty()) {
    find_allocations(kernel.params(), values, allocations);
    kernel.tensor_maps().check_allocations(values, allocation_of);
  }
  std::array<EncodedTensorMap, TensorMapEncoder::kMaxMaps> tensor_maps;
  const std::span<EncodedTensorMap> maps = std::span(tensor_maps).first(kernel.tensor_maps().size());
  kernel.tensor_maps().encode(values, maps);
  ArgumentBlock arguments(kernel.params(), values, maps, allocations);
  auto& d = CudaDriver::get();
  const auto cu_stream = static_cast<CUstream>(stream);
  if (!shape.clustered() && !shape.dependent) {
    d.check(d.launchKernel(kernel.function(), shape.grid[0], shape.grid[1], shape.grid[2], shape.threads, 1, 1,
                           shape.shared_bytes, cu_stream, arguments.pointers(), nullptr),
            "cuLaunchKernel", kernel.label());
    return;
  }
  shape.check(kernel.label());
  std::array<CUlaunchAttribute, 2> attributes;
  const CUlaunchConfig config = launch_config(shape, cu_stream, attributes);
  d.check(d.launchKernelEx(&config, kernel.function(), arguments.pointers(), nullptr), "cuLaunchKernelEx",
          kernel.label());
}

}  // namespace tessel::runtime
