// The math functions of register tiles, each in its exact and fast form, measured against an f64
// host reference over the domain docs/language.md ("Math functions") states, with the bound it
// states. Run on the simulator by tests/math_functions_test.cpp and on the GPU, beside the
// simulator, by tests/gpu/math_functions_gpu_test.cpp.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

enum class MathFunction { exp, exp2, log, log2, sqrt, rsqrt, tanh, erf, sigmoid, sin, cos };

template <MathFunction F, Precision P> struct ApplyMath : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto t = load_global(global_view(x, {n}), {at}, {256});
    store_global(global_view(y, {n}), apply(t), {at});
  }
  RegisterTensor apply(const RegisterTensor& t) {
    switch (F) {
      case MathFunction::exp: return exp(t, P);
      case MathFunction::exp2: return exp2(t, P);
      case MathFunction::log: return log(t, P);
      case MathFunction::log2: return log2(t, P);
      case MathFunction::sqrt: return sqrt(t, P);
      case MathFunction::rsqrt: return rsqrt(t);
      case MathFunction::tanh: return tanh(t, P);
      case MathFunction::erf: return erf(t);
      case MathFunction::sigmoid: return sigmoid(t, P);
      case MathFunction::sin: return sin(t, P);
      case MathFunction::cos: return cos(t, P);
    }
    return t;
  }
};

// One row of docs/language.md's table: a function, its form, where it is measured and the largest
// error allowed there, in units in the last place of the f32 result (or absolute, where the fast
// form's error is absolute).
struct MathCase {
  std::string name;
  MathFunction function;
  Precision precision;
  double lo, hi;
  bool log_uniform;  // inputs spread over magnitudes rather than values
  double bound;
  bool absolute;
};

inline double reference(MathFunction f, double x) {
  switch (f) {
    case MathFunction::exp: return std::exp(x);
    case MathFunction::exp2: return std::exp2(x);
    case MathFunction::log: return std::log(x);
    case MathFunction::log2: return std::log2(x);
    case MathFunction::sqrt: return std::sqrt(x);
    case MathFunction::rsqrt: return 1.0 / std::sqrt(x);
    case MathFunction::tanh: return std::tanh(x);
    case MathFunction::erf: return std::erf(x);
    case MathFunction::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case MathFunction::sin: return std::sin(x);
    case MathFunction::cos: return std::cos(x);
  }
  return 0;
}

inline std::vector<float> math_inputs(const MathCase& c, int n) {
  std::mt19937 rng(31);
  std::vector<float> x(static_cast<size_t>(n));
  if (c.log_uniform) {
    std::uniform_real_distribution<double> e(std::log2(c.lo), std::log2(c.hi));
    for (auto& v : x) v = float(std::exp2(e(rng)));
  } else {
    std::uniform_real_distribution<double> d(c.lo, c.hi);
    for (auto& v : x) v = float(d(rng));
  }
  return x;
}

// The error of `got` against the f64 value `want`, in ulps of want's f32 neighbourhood.
inline double ulps(float got, double want) {
  if (std::isinf(want) && got == want) return 0;
  const double magnitude = std::max(std::fabs(want), double(std::numeric_limits<float>::min()));
  const double ulp = std::ldexp(1.0, std::ilogb(magnitude) - 23);
  return std::fabs(double(got) - want) / ulp;
}

inline std::vector<float> run_math(const Device& dev, const MathCase& c, const std::vector<float>& x) {
  const int n = int(x.size());
  Buffer<float> dx(dev, x), dy(dev, std::vector<float>(x.size(), std::numeric_limits<float>::quiet_NaN()));
  auto run = [&](auto kernel) { kernel(n, dx, dy); };
  const bool fast = c.precision == Precision::fast;
#define TESSEL_MATH_CASE(F)                                           \
  case MathFunction::F:                                               \
    if (fast)                                                         \
      run(Kernel<ApplyMath<MathFunction::F, Precision::fast>>(dev));  \
    else                                                              \
      run(Kernel<ApplyMath<MathFunction::F, Precision::exact>>(dev)); \
    break;
  switch (c.function) {
    TESSEL_MATH_CASE(exp)
    TESSEL_MATH_CASE(exp2)
    TESSEL_MATH_CASE(log)
    TESSEL_MATH_CASE(log2)
    TESSEL_MATH_CASE(sqrt)
    TESSEL_MATH_CASE(rsqrt)
    TESSEL_MATH_CASE(tanh)
    TESSEL_MATH_CASE(erf)
    TESSEL_MATH_CASE(sigmoid)
    TESSEL_MATH_CASE(sin)
    TESSEL_MATH_CASE(cos)
  }
#undef TESSEL_MATH_CASE
  return dy.download();
}

// The largest error of `y` over `x` (ulps, or absolute).
inline double largest_error(const MathCase& c, const std::vector<float>& x, const std::vector<float>& y) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = reference(c.function, double(x[i]));
    const double e = c.absolute ? std::fabs(double(y[i]) - want) : ulps(y[i], want);
    worst = std::max(worst, std::isnan(e) ? std::numeric_limits<double>::infinity() : e);
  }
  return worst;
}

// docs/language.md, "Math functions": the bounds, measured on the H200 and on the simulator.
inline std::vector<MathCase> math_cases() {
  using F = MathFunction;
  const Precision exact = Precision::exact, fast = Precision::fast;
  return {
      {"exp", F::exp, exact, -87, 88, false, 2, false},
      {"exp fast", F::exp, fast, -87, 88, false, 128, false},
      {"exp2", F::exp2, exact, -126, 127, false, 2, false},
      {"exp2 fast", F::exp2, fast, -126, 127, false, 2, false},
      {"log", F::log, exact, 1e-37, 1e37, true, 1, false},
      {"log fast", F::log, fast, 1e-37, 1e37, true, 2e-5, true},
      {"log2", F::log2, exact, 1e-37, 1e37, true, 1, false},
      {"log2 fast", F::log2, fast, 1e-37, 1e37, true, 2e-5, true},
      {"sqrt", F::sqrt, exact, 1e-37, 1e37, true, 0.5, false},
      {"sqrt fast", F::sqrt, fast, 1e-37, 1e37, true, 2, false},
      {"rsqrt", F::rsqrt, exact, 1e-37, 1e37, true, 2, false},
      {"tanh", F::tanh, exact, -10, 10, false, 2, false},
      {"tanh fast", F::tanh, fast, -10, 10, false, 2e-5, true},
      {"erf", F::erf, exact, -4, 4, false, 2, false},
      {"sigmoid", F::sigmoid, exact, -20, 20, false, 4, false},
      {"sigmoid fast", F::sigmoid, fast, -20, 20, false, 2e-5, true},
      {"sin", F::sin, exact, -1000, 1000, false, 2, false},
      {"sin fast", F::sin, fast, -3.14159265, 3.14159265, false, 1e-6, true},
      {"cos", F::cos, exact, -1000, 1000, false, 2, false},
      {"cos fast", F::cos, fast, -3.14159265, 3.14159265, false, 1e-6, true},
  };
}

}  // namespace tessel::testing
