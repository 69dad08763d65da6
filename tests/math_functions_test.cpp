// The math functions on the simulator, within the bounds docs/language.md states, and misuse.
#include "expect_error.hpp"
#include "math_functions_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(MathFunctions, EveryFunctionIsWithinItsBoundOnTheSimulator) {
  for (const MathCase& c : math_cases()) {
    const std::vector<float> x = math_inputs(c, 2048);
    const double error = largest_error(c, x, run_math(Device::simulator(), c, x));
    EXPECT_LE(error, c.bound) << c.name;
  }
}

struct TanhOfIntegers : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), tanh(t), {0});
  }
};

TEST(MathFunctions, AMathFunctionOfAnIntegerTileIsRefused) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>(32, 1));
  EXPECT_EQ(error_of<TanhOfIntegers>(x), source_at("tests/math_functions_test.cpp", "tanh(t)") +
                                             ": tanh: needs a floating-point tile, got i32; convert with .to<float>()");
}

}  // namespace
}  // namespace tessel::testing
