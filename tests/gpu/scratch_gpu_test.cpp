// Global scratch buffers on the GPU; skipped, visibly, without one.
#include "../scratch_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ScratchOnGpu = GpuTest;

TEST_F(ScratchOnGpu, LastBlockAddsThePartials) {
  check_last_block_column_sums(Device::gpu(), 4099);
  check_last_block_column_sums(Device::gpu(), 200);
}

}  // namespace
}  // namespace tessel::testing
