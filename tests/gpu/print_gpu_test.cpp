// Printing on the GPU: the same text as on the simulator; skipped, visibly, without a GPU.
#include "../print_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using PrintOnGpu = GpuTest;

TEST_F(PrintOnGpu, TheTextIsTheSimulators) { EXPECT_EQ(run_prints(Device::gpu()), run_prints(Device::simulator())); }

}  // namespace
}  // namespace tessel::testing
