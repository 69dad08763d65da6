// f64 tiles and kernel values, with host expectations: arithmetic rounded once per operation,
// conversions that round once (to f32 and to the narrower floats), reductions, and the math
// functions measured against a long double reference. Run on the simulator by tests/f64_test.cpp
// and on the GPU, beside the simulator, by tests/gpu/f64_gpu_test.cpp.
#pragma once

#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Elementwise f64 arithmetic of two rows of 256, a scalar f64 parameter and a literal that only
// f64 holds (0.1), and the rows' sums over two warps.
struct F64Arithmetic : Script {
  static constexpr const char* param_names[] = {"n", "alpha", "x", "y", "out", "sums"};
  void operator()(Int32 n, Float64 alpha, Ptr<double> x, Ptr<double> y, Ptr<double> out, Ptr<double> sums) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto gx = global_view(x, {n}), gy = global_view(y, {n});
    auto go = global_view(out, {6, n});
    auto a = load_global(gx, {at}, {256}), b = load_global(gy, {at}, {256});
    auto row = [&](int r, const RegisterTensor& t) { store_global(go, reshape(t, {1, 256}), {r, at}); };
    row(0, a * b - a / b);
    row(1, sqrt(abs(a)));
    row(2, fma(a, b, a));
    row(3, where(a > b, maximum(a, b), minimum(a, b) * 0.1));
    row(4, a * alpha + 1e-300);
    row(5, (a * 3.0).to<float>().to<double>());
    store_global(global_view(sums, {cdiv(n, 256)}), reshape(sum(reshape(a * b, {1, 256}), 1), {1}), {blockIdx.x});
  }
};

inline std::vector<double> random_doubles(int n, uint32_t seed, double lo, double hi) {
  std::mt19937_64 rng{seed};
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& e : v) e = d(rng);
  return v;
}

// Runs F64Arithmetic on `dev`: the outputs, rows then sums.
inline std::vector<double> run_f64_arithmetic(const Device& dev, const std::vector<double>& x,
                                              const std::vector<double>& y, double alpha) {
  const int n = int(x.size());
  Buffer<double> dx(dev, x), dy(dev, y), out(dev, std::vector<double>(6 * x.size(), std::nan(""))),
      sums(dev, std::vector<double>(x.size() / 256, std::nan("")));
  Kernel<F64Arithmetic> k(dev);
  k(n, alpha, dx, dy, out, sums);
  std::vector<double> all = out.download();
  const std::vector<double> s = sums.download();
  all.insert(all.end(), s.begin(), s.end());
  return all;
}

inline void check_f64_arithmetic(const std::vector<double>& x, const std::vector<double>& y, double alpha,
                                 const std::vector<double>& got) {
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    const double p = x[i] * y[i], q = x[i] / y[i];
    const double low = std::fmin(x[i], y[i]) * 0.1;
    const double want[6] = {p - q,
                            std::sqrt(std::fabs(x[i])),
                            std::fma(x[i], y[i], x[i]),
                            x[i] > y[i] ? std::fmax(x[i], y[i]) : low,
                            x[i] * alpha + 1e-300,
                            double(float(x[i] * 3.0))};
    for (size_t r = 0; r < 6; ++r) EXPECT_EQ(got[r * n + i], want[r]) << "row " << r << ", element " << i;
  }
  for (size_t b = 0; b < n / 256; ++b) {
    double want = 0, magnitude = 0;
    for (size_t i = b * 256; i < (b + 1) * 256; ++i) {
      want += x[i] * y[i];
      magnitude += std::fabs(x[i] * y[i]);
    }
    // Orders of 256 additions differ by at most 256 roundings of the running sum.
    EXPECT_NEAR(got[6 * n + b], want, 256 * 0x1p-53 * magnitude) << "sum " << b;
  }
}

// x converted to f32, f16, bf16, f8e4m3, f8e5m2 and tf32 (each by itself, so each rounds once), to
// i32 and u32 (toward zero) and to i32 and u8 saturated (to nearest); and f32, f16 and i64 values
// widened to f64.
struct F64Conversions : Script {
  void operator()(Int32 n, Ptr<double> x, Ptr<float> to_f32, Ptr<f16> to_f16, Ptr<bf16> to_bf16, Ptr<f8e4m3> to_e4m3,
                  Ptr<f8e5m2> to_e5m2, Ptr<tf32> to_tf32, Ptr<int32_t> to_i32, Ptr<uint32_t> to_u32,
                  Ptr<int32_t> to_i32_saturated, Ptr<uint8_t> to_u8_saturated, Ptr<double> widened) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    const Int32 at = blockIdx.x * 128;
    auto t = load_global(global_view(x, {n}), {at}, {128});
    store_global(global_view(to_f32, {n}), t.to<float>(), {at});
    store_global(global_view(to_f16, {n}), t.to<f16>(), {at});
    store_global(global_view(to_bf16, {n}), t.to<bf16>(), {at});
    store_global(global_view(to_e4m3, {n}), t.to<f8e4m3>(), {at});
    store_global(global_view(to_e5m2, {n}), t.to<f8e5m2>(), {at});
    store_global(global_view(to_tf32, {n}), t.to<tf32>(), {at});
    store_global(global_view(to_i32, {n}), t.to<int32_t>(), {at});
    store_global(global_view(to_u32, {n}), t.to<uint32_t>(), {at});
    store_global(global_view(to_i32_saturated, {n}), t.to<int32_t>(saturate), {at});
    store_global(global_view(to_u8_saturated, {n}), t.to<uint8_t>(saturate), {at});
    auto wide = global_view(widened, {3, n});
    store_global(wide, reshape(t.to<float>().to<double>(), {1, 128}), {0, at});
    store_global(wide, reshape(t.to<f16>().to<double>(), {1, 128}), {1, at});
    store_global(wide, reshape((t * 1e6).to<int64_t>().to<double>(), {1, 128}), {2, at});
  }
};

// `v` rounded once to nearest (ties to even, or away from zero) with `mantissa` bits below the
// leading one and exponents down to `least` (the smallest normal's; subnormals below), then past
// `largest`: to infinity, or (`saturates`) to `largest` with v's sign.
inline double round_once(double v, int mantissa, int least, double largest, bool saturates, bool ties_away = false) {
  if (std::isnan(v)) return v;
  if (std::isinf(v)) return saturates ? std::copysign(largest, v) : v;
  if (v == 0) return v;
  const int quantum = std::max(std::ilogb(v), least) - mantissa;
  const double scaled = std::ldexp(std::fabs(v), -quantum);
  const double r = std::copysign(std::ldexp(ties_away ? std::round(scaled) : std::nearbyint(scaled), quantum), v);
  if (std::fabs(r) <= largest) return r;
  return saturates ? std::copysign(largest, v) : std::copysign(INFINITY, v);
}

// Inputs that a conversion rounding twice (to f32, then to the narrow type) would get wrong: just
// above the midpoint of two neighbours of the narrow type, by less than an f32 ulp; beside them
// random values over many magnitudes, past each type's range, and signed zeros.
inline std::vector<double> conversion_inputs() {
  std::vector<double> x;
  for (int mantissa : {10, 7, 3, 2})
    for (double sign : {1.0, -1.0}) {
      x.push_back(sign * (1 + std::ldexp(1.0, -mantissa - 1) + std::ldexp(1.0, -40)));
      x.push_back(sign * (1 + std::ldexp(1.0, -mantissa - 1)));
      x.push_back(sign * (3 + std::ldexp(1.0, -mantissa) + std::ldexp(1.0, -38)));
    }
  for (double v : {0.0, -0.0, 1e300, -1e300, 1e-300, -1e-300, 70000.0, 500.0, -500.0, 3.5e38, 2147483648.5,
                   -2147483649.5, 1e12, 2.5, -2.5, 3.5})
    x.push_back(v);
  std::mt19937_64 rng{7};
  std::uniform_real_distribution<double> e(-30, 30), m(-1, 1);
  while (x.size() < 512) x.push_back(std::ldexp(m(rng), int(e(rng))));
  return x;
}

struct F64ConversionResults {
  std::vector<float> f32;
  std::vector<f16> h;
  std::vector<bf16> b;
  std::vector<f8e4m3> e4m3;
  std::vector<f8e5m2> e5m2;
  std::vector<tf32> t32;
  std::vector<int32_t> i32;
  std::vector<uint32_t> u32;
  std::vector<int32_t> i32_saturated;
  std::vector<uint8_t> u8_saturated;
  std::vector<double> widened;
};

inline F64ConversionResults run_f64_conversions(const Device& dev, const std::vector<double>& x) {
  const size_t n = x.size();
  Buffer<double> dx(dev, x), wide(dev, std::vector<double>(3 * n, std::nan("")));
  Buffer<float> f32(dev, std::vector<float>(n, std::nanf("")));
  Buffer<f16> h(dev, std::vector<f16>(n, f16::from_bits(0x7c01)));
  Buffer<bf16> b(dev, std::vector<bf16>(n, bf16::from_bits(0x7f81)));
  Buffer<f8e4m3> e4(dev, std::vector<f8e4m3>(n, f8e4m3::from_bits(0x7f)));
  Buffer<f8e5m2> e5(dev, std::vector<f8e5m2>(n, f8e5m2::from_bits(0x7f)));
  Buffer<tf32> t(dev, std::vector<tf32>(n, tf32::from_bits(0x7f800001)));
  Buffer<int32_t> i(dev, std::vector<int32_t>(n, 7)), s(dev, std::vector<int32_t>(n, 7));
  Buffer<uint32_t> u(dev, std::vector<uint32_t>(n, 7));
  Buffer<uint8_t> us(dev, std::vector<uint8_t>(n, 7));
  Kernel<F64Conversions> k(dev);
  k(int(n), dx, f32, h, b, e4, e5, t, i, u, s, us, wide);
  return {f32.download(), h.download(), b.download(), e4.download(), e5.download(),  t.download(),
          i.download(),   u.download(), s.download(), us.download(), wide.download()};
}

inline void check_f64_conversions(const std::vector<double>& x, const F64ConversionResults& got) {
  const size_t n = x.size();
  const auto same = [](double a, double b) { return a == b && std::signbit(a) == std::signbit(b); };
  for (size_t k = 0; k < n; ++k) {
    const double v = x[k];
    EXPECT_TRUE(same(got.f32[k], round_once(v, 23, -126, 3.4028234663852886e38, false))) << k << ": " << v;
    EXPECT_TRUE(same(float(got.h[k]), round_once(v, 10, -14, 65504, false))) << k << ": " << v;
    EXPECT_TRUE(same(float(got.b[k]), round_once(v, 7, -126, 3.3895313892515355e38, false))) << k << ": " << v;
    EXPECT_TRUE(same(float(got.e4m3[k]), round_once(v, 3, -6, 448, true))) << k << ": " << v;
    EXPECT_TRUE(same(float(got.e5m2[k]), round_once(v, 2, -14, 57344, true))) << k << ": " << v;
    EXPECT_TRUE(same(float(got.t32[k]), round_once(v, 10, -126, 3.4011621342146535e38, false, true))) << k << ": " << v;
    const double t = std::trunc(v);
    EXPECT_EQ(got.i32[k], t >= 2147483647.0 ? INT32_MAX : t <= -2147483648.0 ? INT32_MIN : int32_t(t)) << v;
    EXPECT_EQ(got.u32[k], t >= 4294967295.0 ? UINT32_MAX : t <= 0 ? 0u : uint32_t(t)) << v;
    const double r = std::nearbyint(v);
    EXPECT_EQ(got.i32_saturated[k], r >= 2147483647.0 ? INT32_MAX : r <= -2147483648.0 ? INT32_MIN : int32_t(r)) << v;
    EXPECT_EQ(got.u8_saturated[k], r >= 255 ? 255 : r <= 0 ? 0 : uint8_t(r)) << v;
    EXPECT_TRUE(same(got.widened[k], double(got.f32[k]))) << v;
    EXPECT_TRUE(same(got.widened[n + k], double(float(got.h[k])))) << v;
    const double scaled = v * 1e6;
    if (std::fabs(scaled) < 9e18) EXPECT_EQ(got.widened[2 * n + k], double(int64_t(scaled))) << v;
  }
}

enum class F64Function { exp, exp2, log, log2, sqrt, rsqrt, tanh, erf, sigmoid, sin, cos };

template <F64Function F> struct ApplyF64Math : Script {
  void operator()(Int32 n, Ptr<double> x, Ptr<double> y) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto t = load_global(global_view(x, {n}), {at}, {256});
    store_global(global_view(y, {n}), apply(t), {at});
  }
  RegisterTensor apply(const RegisterTensor& t) {
    switch (F) {
      case F64Function::exp: return exp(t);
      case F64Function::exp2: return exp2(t);
      case F64Function::log: return log(t);
      case F64Function::log2: return log2(t);
      case F64Function::sqrt: return sqrt(t);
      case F64Function::rsqrt: return rsqrt(t);
      case F64Function::tanh: return tanh(t);
      case F64Function::erf: return erf(t);
      case F64Function::sigmoid: return sigmoid(t);
      case F64Function::sin: return sin(t);
      case F64Function::cos: return cos(t);
    }
    return t;
  }
};

// One row of docs/language.md's f64 table: a function, its domain and its bound in ulps of the f64
// result.
struct F64MathCase {
  std::string name;
  F64Function function;
  double lo, hi;
  bool log_uniform;
  double bound;
};

inline std::vector<F64MathCase> f64_math_cases() {
  using F = F64Function;
  return {
      {"exp", F::exp, -700, 700, false, 2},        {"exp2", F::exp2, -1000, 1000, false, 2},
      {"log", F::log, 1e-300, 1e300, true, 2},     {"log2", F::log2, 1e-300, 1e300, true, 2},
      {"sqrt", F::sqrt, 1e-300, 1e300, true, 0.5}, {"rsqrt", F::rsqrt, 1e-300, 1e300, true, 2},
      {"tanh", F::tanh, -20, 20, false, 2},        {"erf", F::erf, -5, 5, false, 2},
      {"sigmoid", F::sigmoid, -40, 40, false, 4},  {"sin", F::sin, -1000, 1000, false, 2},
      {"cos", F::cos, -1000, 1000, false, 2},
  };
}

inline long double f64_reference(F64Function f, long double x) {
  switch (f) {
    case F64Function::exp: return std::exp(x);
    case F64Function::exp2: return std::exp2(x);
    case F64Function::log: return std::log(x);
    case F64Function::log2: return std::log2(x);
    case F64Function::sqrt: return std::sqrt(x);
    case F64Function::rsqrt: return 1.0L / std::sqrt(x);
    case F64Function::tanh: return std::tanh(x);
    case F64Function::erf: return std::erf(x);
    case F64Function::sigmoid: return 1.0L / (1.0L + std::exp(-x));
    case F64Function::sin: return std::sin(x);
    case F64Function::cos: return std::cos(x);
  }
  return 0;
}

inline std::vector<double> f64_math_inputs(const F64MathCase& c, int n) {
  std::mt19937_64 rng{31};
  std::vector<double> x(static_cast<size_t>(n));
  if (c.log_uniform) {
    std::uniform_real_distribution<double> e(std::log2(c.lo), std::log2(c.hi));
    for (auto& v : x) v = std::exp2(e(rng));
  } else {
    std::uniform_real_distribution<double> d(c.lo, c.hi);
    for (auto& v : x) v = d(rng);
  }
  return x;
}

// The error of `got` against `want`, in ulps of want's f64 neighbourhood.
inline double f64_ulps(double got, long double want) {
  if (std::isinf(double(want)) && got == double(want)) return 0;
  const long double magnitude = std::max(std::fabs(want), (long double)std::numeric_limits<double>::min());
  return double(std::fabs((long double)got - want) / std::ldexp(1.0L, std::ilogb(magnitude) - 52));
}

inline std::vector<double> run_f64_math(const Device& dev, F64Function f, const std::vector<double>& x) {
  Buffer<double> dx(dev, x), dy(dev, std::vector<double>(x.size(), std::nan("")));
  const int n = int(x.size());
  auto run = [&](auto kernel) { kernel(n, dx, dy); };
#define TESSEL_F64_CASE(F) \
  case F64Function::F: run(Kernel<ApplyF64Math<F64Function::F>>(dev)); break;
  switch (f) {
    TESSEL_F64_CASE(exp)
    TESSEL_F64_CASE(exp2)
    TESSEL_F64_CASE(log)
    TESSEL_F64_CASE(log2)
    TESSEL_F64_CASE(sqrt)
    TESSEL_F64_CASE(rsqrt)
    TESSEL_F64_CASE(tanh)
    TESSEL_F64_CASE(erf)
    TESSEL_F64_CASE(sigmoid)
    TESSEL_F64_CASE(sin)
    TESSEL_F64_CASE(cos)
  }
#undef TESSEL_F64_CASE
  return dy.download();
}

inline double largest_f64_error(const F64MathCase& c, const std::vector<double>& x, const std::vector<double>& y) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = f64_ulps(y[i], f64_reference(c.function, (long double)x[i]));
    worst = std::max(worst, std::isnan(e) ? std::numeric_limits<double>::infinity() : e);
  }
  return worst;
}

// f64 moved without arithmetic, one element a thread of 4 warps: a warp shuffle, a TMA load, an
// exchange and a compare-exchange of the shuffled values (half of whose expectations hold); and a block-wide inclusive
// scan of values whose partial sums are exact, so that every order of the additions gives them.
struct F64Movement : Script {
  static constexpr const char* param_names[] = {"x", "expected", "steps", "moved", "slots", "old", "scanned"};
  void operator()(Ptr<double> x, Ptr<double> expected, Ptr<double> steps, Ptr<double> moved, Ptr<double> slots,
                  Ptr<double> old, Ptr<double> scanned) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto gx = global_view(x, {128});
    auto t = load_global(gx, {0}, {128});
    auto gm = global_view(moved, {2, 128});
    auto neighbour = warp.shuffle_xor(t, 5);
    store_global(gm, reshape(neighbour, {1, 128}), {0, 0});
    auto s = shared_tensor<double>({128});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 128 * 8);
      tma.global_to_shared(gx, s, {0}, bars[0]);
    });
    mbarrier.wait(bars[0], 0);
    store_global(gm, reshape(load_shared(s), {1, 128}), {1, 0});
    auto gs = global_view(slots, {128});
    auto go = global_view(old, {2, 128});
    store_global(go, reshape(atomic.exchange(gs, t, {0}), {1, 128}), {0, 0});
    auto e = load_global(global_view(expected, {128}), {0}, {128});
    store_global(go, reshape(atomic.compare_exchange(gs, e, neighbour, {0}), {1, 128}), {1, 0});
    store_global(global_view(scanned, {128}), cumsum(load_global(global_view(steps, {128}), {0}, {128}), 0), {0});
  }
};

// x: random doubles with NaNs of payloads of both signs, infinities, -0 and subnormals among them.
inline std::vector<double> f64_movement_inputs() {
  std::vector<double> x = random_doubles(128, 11, -1e300, 1e300);
  const uint64_t specials[] = {0x7ff0000000000001ull, 0xfff8000000abcdefull, 0x7ff0000000000000ull,
                               0x8000000000000000ull, 0x0000000000000001ull, 0x800fffffffffffffull};
  for (size_t i = 0; i < std::size(specials); ++i) x[i * 19] = std::bit_cast<double>(specials[i]);
  return x;
}

struct F64MovementResults {
  std::vector<double> moved, slots, old, scanned;
};

inline F64MovementResults run_f64_movement(const Device& dev, const std::vector<double>& x,
                                           const std::vector<double>& expected, const std::vector<double>& steps,
                                           const std::vector<double>& slots) {
  Buffer<double> dx(dev, x), de(dev, expected), ds(dev, steps), dslots(dev, slots),
      moved(dev, std::vector<double>(256, -7.0)), old(dev, std::vector<double>(256, -7.0)),
      scanned(dev, std::vector<double>(128, -7.0));
  Kernel<F64Movement> k(dev);
  k(dx, de, ds, moved, dslots, old, scanned);
  return {moved.download(), dslots.download(), old.download(), scanned.download()};
}

// Bit for bit: nothing of these rounds.
inline void check_f64_movement(const std::vector<double>& x, const std::vector<double>& expected,
                               const std::vector<double>& steps, const std::vector<double>& slots,
                               const F64MovementResults& got) {
  const auto bits = [](double v) { return std::bit_cast<uint64_t>(v); };
  double running = 0;
  for (size_t i = 0; i < 128; ++i) {
    EXPECT_EQ(bits(got.moved[i]), bits(x[i ^ 5])) << "shuffle " << i;
    EXPECT_EQ(bits(got.moved[128 + i]), bits(x[i])) << "tma " << i;
    EXPECT_EQ(bits(got.old[i]), bits(slots[i])) << "exchange " << i;
    EXPECT_EQ(bits(got.old[128 + i]), bits(x[i])) << "compare_exchange " << i;
    const bool swapped = bits(expected[i]) == bits(x[i]);
    EXPECT_EQ(bits(got.slots[i]), bits(swapped ? x[i ^ 5] : x[i])) << "slot " << i;
    running += steps[i];
    EXPECT_EQ(got.scanned[i], running) << "scan " << i;
  }
}

inline void check_f64_movement_on(const Device& dev) {
  const std::vector<double> x = f64_movement_inputs(), slots = random_doubles(128, 12, -1.0, 1.0);
  std::vector<double> expected(x), steps(128);
  std::mt19937 rng{13};
  std::uniform_int_distribution<int> units(-1 << 20, 1 << 20);
  for (size_t i = 0; i < 128; ++i) {
    if (i % 2) expected[i] = -x[i];  // differs in the sign bit, NaNs and zeros included
    steps[i] = std::ldexp(double(units(rng)), -10);
  }
  check_f64_movement(x, expected, steps, slots, run_f64_movement(dev, x, expected, steps, slots));
}

}  // namespace tessel::testing
