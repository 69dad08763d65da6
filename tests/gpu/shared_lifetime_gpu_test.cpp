// free_shared on the GPU: a tile of another type in a freed tile's bytes gives the exact result.
#include "../shared_lifetime_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using SharedLifetimeOnGpu = GpuTest;

TEST_F(SharedLifetimeOnGpu, AFreedTilesBytesGoToTheNextTile) { check_transpose_then_increment(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
