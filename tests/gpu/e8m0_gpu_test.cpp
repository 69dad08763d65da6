// e8m0 on the GPU, beside the simulator: the conversions of every case and the MXFP8 quantizer
// against the host, and the simulator's bits.
#include "../e8m0_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using E8m0OnGpu = GpuTest;

TEST_F(E8m0OnGpu, ConversionsMatchTheHostAndTheSimulator) {
  const std::vector<float> x = e8m0_inputs(1024);
  const std::vector<double> d = e8m0_double_inputs(1024);
  const E8m0Results gpu = run_e8m0_conversions(Device::gpu(), x, d);
  check_e8m0_conversions(x, d, gpu);
  const E8m0Results sim = run_e8m0_conversions(Device::simulator(), x, d);
  for (size_t i = 0; i < gpu.rounded.size(); ++i) EXPECT_EQ(gpu.rounded[i].bits, sim.rounded[i].bits) << i;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(gpu.wide[i]), std::bit_cast<uint32_t>(sim.wide[i])) << i;
    EXPECT_EQ(gpu.half[i].bits, sim.half[i].bits) << i;
    EXPECT_EQ(gpu.brain[i].bits, sim.brain[i].bits) << i;
  }
}

TEST_F(E8m0OnGpu, MxQuantizationMatchesTheHost) { check_mx_quantize(Device::gpu(), 64); }

}  // namespace
}  // namespace tessel::testing
