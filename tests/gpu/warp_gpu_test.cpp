// Warp shuffles and votes on the GPU; skipped, visibly, without one.
#include "../warp_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using WarpOnGpu = GpuTest;

TEST_F(WarpOnGpu, ShufflesAndVotes) { check_warp_shuffles_and_votes(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
