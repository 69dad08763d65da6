// f64 on the simulator: arithmetic, conversions, atomics and math functions against host
// references, and the misuse refused at the user's line.
#include "atomics_kernels.hpp"
#include "expect_error.hpp"
#include "f64_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(F64, ArithmeticRoundsOnceAndLiteralsKeepTheirDigits) {
  const std::vector<double> x = random_doubles(512, 1, -1e3, 1e3), y = random_doubles(512, 2, 0.5, 2e3);
  check_f64_arithmetic(x, y, 0.3, run_f64_arithmetic(Device::simulator(), x, y, 0.3));
}

TEST(F64, ConversionsRoundOnce) {
  const std::vector<double> x = conversion_inputs();
  check_f64_conversions(x, run_f64_conversions(Device::simulator(), x));
}

TEST(F64, AtomicAddsOfColumns) { check_column_sums<double>(Device::simulator(), 48); }

TEST(F64, ShufflesCopiesExchangesAndScansKeepEveryBit) { check_f64_movement_on(Device::simulator()); }

TEST(F64, MathFunctionsAreWithinTheirBounds) {
  for (const F64MathCase& c : f64_math_cases()) {
    const std::vector<double> x = f64_math_inputs(c, 4096);
    EXPECT_LE(largest_f64_error(c, x, run_f64_math(Device::simulator(), c.function, x)), c.bound) << c.name;
  }
}

// A Float64 meets an Int32 and a literal in f64, and a one-element f64 tile's value is an f64.
struct F64Scalars : Script {
  void operator()(Int32 k, Float64 alpha, Ptr<double> x, Ptr<double> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Expr<double> mixed = alpha * k + 0.1;
    Expr<double> element = load_global(global_view(x, {1}), {0}, {1}).item<double>();
    auto g = global_view(out, {2});
    single_thread([&] {
      store_global(g, register_tensor<double>({1}, mixed), {0});
      store_global(g, register_tensor<double>({1}, element / 3.0), {1});
    });
  }
};

TEST(F64, KernelValuesMeetOtherTypesInF64) {
  Buffer<double> x(Device::simulator(), std::vector<double>{0.7}), out(Device::simulator(), {std::nan(""), 0.0});
  Kernel<F64Scalars> k(Device::simulator());
  k(3, 1.0 / 3.0, x, out);
  EXPECT_EQ(out.download(), (std::vector<double>{(1.0 / 3.0) * 3 + 0.1, 0.7 / 3.0}));
}

int line = 0;

struct FastExpOfF64 : Script {
  void operator()(Ptr<double> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(x, {32});
    line = __LINE__ + 1;
    store_global(g, exp(load_global(g, {0}, {32}), Precision::fast), {0});
  }
};

TEST(F64, TheFastFormsAreRefused) {
  const std::string got = error_of<FastExpOfF64>((double*)nullptr);
  EXPECT_EQ(got,
            std::string(__FILE__) + ":" + std::to_string(line) +
                ": exp: Precision::fast is an f32 approximation and has no f64 form; use the exact form, or convert "
                "the tile with .to<float>()");
}

}  // namespace
}  // namespace tessel::testing
