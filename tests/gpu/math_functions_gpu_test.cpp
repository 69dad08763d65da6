// The math functions on the GPU: each within the bound docs/language.md states, and within that
// bound of the simulator's result for the same input. Prints the measured errors.
#include "../math_functions_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using MathFunctionsOnGpu = GpuTest;

TEST_F(MathFunctionsOnGpu, EveryFunctionIsWithinItsBoundAndAgreesWithTheSimulator) {
  for (const MathCase& c : math_cases()) {
    const std::vector<float> x = math_inputs(c, 1 << 16);
    const std::vector<float> gpu = run_math(Device::gpu(), c, x);
    const double error = largest_error(c, x, gpu);
    const std::vector<float> head(x.begin(), x.begin() + 2048);
    const std::vector<float> sim = run_math(Device::simulator(), c, head);
    double apart = 0;
    for (size_t i = 0; i < head.size(); ++i)
      apart = std::max(apart, c.absolute ? std::fabs(double(gpu[i]) - double(sim[i])) : ulps(gpu[i], sim[i]));
    std::printf("%-14s largest error %.4g %s, %.4g from the simulator\n", c.name.c_str(), error,
                c.absolute ? "(absolute)" : "ulp", apart);
    EXPECT_LE(error, c.bound) << c.name;
    EXPECT_LE(apart, c.bound) << c.name;
  }
}

}  // namespace
}  // namespace tessel::testing
