// f32 multiply-adds on the GPU: contracted exactly where the simulator contracts them, and
// nowhere else (the code is compiled with --fmad=false).
#include "../multiply_add_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using MultiplyAddsOnGpu = GpuTest;

TEST_F(MultiplyAddsOnGpu, RoundBitForBitAsOnTheSimulator) { EXPECT_GT(check_multiply_adds(Device::gpu()), 500); }

}  // namespace
}  // namespace tessel::testing
