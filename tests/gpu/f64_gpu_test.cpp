// f64 on the GPU, beside the simulator: the same host references, the simulator's results bit for
// bit where both round once, and the math functions within their bounds of the reference and of
// each other. Prints the measured errors.
#include "../atomics_kernels.hpp"
#include "../f64_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using F64OnGpu = GpuTest;

TEST_F(F64OnGpu, ShufflesCopiesExchangesAndScansKeepEveryBit) { check_f64_movement_on(Device::gpu()); }

TEST_F(F64OnGpu, ArithmeticMatchesTheHostAndTheSimulator) {
  const std::vector<double> x = random_doubles(1024, 1, -1e3, 1e3), y = random_doubles(1024, 2, 0.5, 2e3);
  const std::vector<double> gpu = run_f64_arithmetic(Device::gpu(), x, y, 0.3);
  check_f64_arithmetic(x, y, 0.3, gpu);
  const std::vector<double> sim = run_f64_arithmetic(Device::simulator(), x, y, 0.3);
  ASSERT_EQ(gpu.size(), sim.size());
  for (size_t i = 0; i < gpu.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint64_t>(gpu[i]), std::bit_cast<uint64_t>(sim[i])) << "output " << i;
}

TEST_F(F64OnGpu, ConversionsMatchTheHostAndTheSimulatorNaNsIncluded) {
  std::vector<double> x = conversion_inputs();
  check_f64_conversions(x, run_f64_conversions(Device::gpu(), x));
  for (uint64_t bits : {0x7ff8000000000000ull, 0xfff8000000000001ull, 0x7ff0000000000001ull})
    x.push_back(std::bit_cast<double>(bits));
  const F64ConversionResults gpu = run_f64_conversions(Device::gpu(), x),
                             sim = run_f64_conversions(Device::simulator(), x);
  for (size_t k = 0; k < x.size(); ++k) {
    const uint64_t in = std::bit_cast<uint64_t>(x[k]);
    EXPECT_EQ(std::bit_cast<uint32_t>(gpu.f32[k]), std::bit_cast<uint32_t>(sim.f32[k])) << std::hex << in;
    EXPECT_EQ(gpu.h[k].bits, sim.h[k].bits) << std::hex << in;
    EXPECT_EQ(gpu.b[k].bits, sim.b[k].bits) << std::hex << in;
    EXPECT_EQ(gpu.e4m3[k].bits, sim.e4m3[k].bits) << std::hex << in;
    EXPECT_EQ(gpu.e5m2[k].bits, sim.e5m2[k].bits) << std::hex << in;
    EXPECT_EQ(gpu.t32[k].bits, sim.t32[k].bits) << std::hex << in;
    EXPECT_EQ(gpu.i32[k], sim.i32[k]) << std::hex << in;
    EXPECT_EQ(gpu.u32[k], sim.u32[k]) << std::hex << in;
    EXPECT_EQ(gpu.i32_saturated[k], sim.i32_saturated[k]) << std::hex << in;
    EXPECT_EQ(gpu.u8_saturated[k], sim.u8_saturated[k]) << std::hex << in;
    for (size_t r = 0; r < 3; ++r)
      EXPECT_EQ(std::bit_cast<uint64_t>(gpu.widened[r * x.size() + k]),
                std::bit_cast<uint64_t>(sim.widened[r * x.size() + k]))
          << "row " << r << ", input " << std::hex << in;
  }
}

TEST_F(F64OnGpu, AtomicAddsOfColumns) { check_column_sums<double>(Device::gpu(), 4096); }

TEST_F(F64OnGpu, MathFunctionsAreWithinTheirBoundsAndAgreeWithTheSimulator) {
  for (const F64MathCase& c : f64_math_cases()) {
    const std::vector<double> x = f64_math_inputs(c, 1 << 16);
    const std::vector<double> gpu = run_f64_math(Device::gpu(), c.function, x);
    const double error = largest_f64_error(c, x, gpu);
    const std::vector<double> head(x.begin(), x.begin() + 4096);
    const std::vector<double> sim = run_f64_math(Device::simulator(), c.function, head);
    double apart = 0;
    for (size_t i = 0; i < head.size(); ++i) apart = std::max(apart, f64_ulps(gpu[i], (long double)sim[i]));
    std::printf("%-8s largest error %.4g ulp, %.4g from the simulator\n", c.name.c_str(), error, apart);
    EXPECT_LE(error, c.bound) << c.name;
    EXPECT_LE(apart, c.bound) << c.name;
  }
}

}  // namespace
}  // namespace tessel::testing
