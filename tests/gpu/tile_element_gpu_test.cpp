// A tile's value as a kernel value (item<T>()) on the GPU; skipped, visibly, without one.
#include "../tile_element_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using TileElementOnGpu = GpuTest;

TEST_F(TileElementOnGpu, SteersLoopsAndBranches) { check_steering_by_tile_values(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
