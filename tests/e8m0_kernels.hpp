// e8m0 scales with host expectations: conversions to e8m0 rounded down and up (from f32 and f64),
// widenings of every e8m0 pattern, and an MXFP8 quantizer (a scale per 32 elements, the elements as
// e4m3). Run on the simulator by tests/e8m0_test.cpp and on the GPU, beside the simulator, by
// tests/gpu/e8m0_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Per block of 256: x and d rounded to e8m0 down and up, and the e8m0 patterns of `scales` widened
// to f32, f16 and bf16.
struct E8m0Conversions : Script {
  static constexpr const char* param_names[] = {"n", "x", "d", "scales", "rounded", "wide", "half", "brain"};
  void operator()(Int32 n, Ptr<float> x, Ptr<double> d, Ptr<e8m0> scales, Ptr<e8m0> rounded, Ptr<float> wide,
                  Ptr<f16> half, Ptr<bf16> brain) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto f = load_global(global_view(x, {n}), {at}, {256});
    auto g = load_global(global_view(d, {n}), {at}, {256});
    auto out = global_view(rounded, {4, n});
    auto row = [&](int r, const RegisterTensor& t) { store_global(out, reshape(t, {1, 256}), {r, at}); };
    row(0, f.to<e8m0>(Rounding::down));
    row(1, f.to<e8m0>(Rounding::up));
    row(2, g.to<e8m0>(Rounding::down));
    row(3, g.to<e8m0>(Rounding::up));
    auto s = load_global(global_view(scales, {n}), {at}, {256});
    store_global(global_view(wide, {n}), s.to<float>(), {at});
    store_global(global_view(half, {n}), s.to<f16>(), {at});
    store_global(global_view(brain, {n}), s.to<bf16>(), {at});
  }
};

// Inputs that reach every case of the conversions: zeros, subnormals at and about 2^-127, powers of
// two and their neighbours, the largest finite values, infinities and NaNs, of both signs, then
// random magnitudes over the whole f32 range.
inline std::vector<float> e8m0_inputs(int n) {
  std::vector<float> v;
  for (uint32_t bits : {0x00000000u, 0x00000001u, 0x003fffffu, 0x00400000u, 0x00400001u, 0x007fffffu, 0x00800000u,
                        0x3f800000u, 0x3f800001u, 0x3fffffffu, 0x3fc00000u, 0x7effffffu, 0x7f000000u, 0x7f000001u,
                        0x7f7fffffu, 0x7f800000u, 0x7fc00000u, 0x7f800001u})
    for (uint32_t sign : {0u, 0x80000000u}) v.push_back(std::bit_cast<float>(bits | sign));
  std::mt19937 rng{7};
  std::uniform_int_distribution<uint32_t> any(0, 0xffffffffu);
  while (int(v.size()) < n) v.push_back(std::bit_cast<float>(any(rng)));
  return v;
}

// The doubles that e8m0 rounds differently from their f32 roundings to nearest: just below and
// above powers of two by less than f32's last place, and beyond f32's range.
inline std::vector<double> e8m0_double_inputs(int n) {
  std::vector<double> v;
  for (int e : {-140, -127, -126, -1, 0, 1, 40, 126, 127, 128, 200})
    for (double offset : {-0x1p-40, 0.0, 0x1p-40}) v.push_back(std::ldexp(1.0 + offset, e));
  v.push_back(-std::ldexp(1.0 - 0x1p-40, 3));
  std::mt19937_64 rng{8};
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-150, 150);
  while (int(v.size()) < n) v.push_back(std::ldexp(mantissa(rng), exponent(rng)) * (v.size() % 3 ? 1 : -1));
  return v;
}

// The conversions' bits from their definition, by the exponent of the value rather than by its
// bits (dtype.hpp's e8m0 and e8m0_bits compute them from the bits): the greatest power of two not
// above |v|, or the least not below it, within [2^-127, 2^127]; NaN is 0xff.
inline uint8_t e8m0_reference(double v, bool up) {
  if (std::isnan(v)) return 0xff;
  const double a = std::fabs(v);
  int e = a == 0 ? -127 : std::ilogb(a);
  if (up && a != 0 && std::ldexp(1.0, e) != a) ++e;
  return uint8_t(std::clamp(e, -127, 127) + 127);
}

struct E8m0Results {
  std::vector<e8m0> rounded;  // x down, x up, d down, d up
  std::vector<float> wide;
  std::vector<f16> half;
  std::vector<bf16> brain;
};

inline E8m0Results run_e8m0_conversions(const Device& dev, const std::vector<float>& x, const std::vector<double>& d) {
  const size_t n = x.size();
  std::vector<e8m0> patterns(n);
  for (size_t i = 0; i < n; ++i) patterns[i] = e8m0::from_bits(uint8_t(i * 37 + 11));
  // Poisoned with a pattern no conversion of these inputs gives everywhere.
  Buffer<float> dx(dev, x), wide(dev, std::vector<float>(n, -1.0f));
  Buffer<double> dd(dev, d);
  Buffer<e8m0> scales(dev, patterns), rounded(dev, std::vector<e8m0>(4 * n, e8m0::from_bits(0x5a)));
  Buffer<f16> half(dev, std::vector<f16>(n, f16(-1.0f)));
  Buffer<bf16> brain(dev, std::vector<bf16>(n, bf16(-1.0f)));
  Kernel<E8m0Conversions> k(dev);
  k(int(n), dx, dd, scales, rounded, wide, half, brain);
  return {rounded.download(), wide.download(), half.download(), brain.download()};
}

inline void check_e8m0_conversions(const std::vector<float>& x, const std::vector<double>& d, const E8m0Results& got) {
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t in = std::bit_cast<uint32_t>(x[i]);
    EXPECT_EQ(got.rounded[i].bits, e8m0_reference(x[i], false)) << std::hex << in;
    EXPECT_EQ(got.rounded[n + i].bits, e8m0_reference(x[i], true)) << std::hex << in;
    EXPECT_EQ(got.rounded[2 * n + i].bits, e8m0_reference(d[i], false)) << d[i];
    EXPECT_EQ(got.rounded[3 * n + i].bits, e8m0_reference(d[i], true)) << d[i];
    const e8m0 s = e8m0::from_bits(uint8_t(i * 37 + 11));
    const float value = float(s);
    EXPECT_EQ(std::bit_cast<uint32_t>(got.wide[i]), std::bit_cast<uint32_t>(value)) << int(s.bits);
    EXPECT_EQ(got.half[i].bits, f16(value).bits) << int(s.bits);
    EXPECT_EQ(got.brain[i].bits, bf16(value).bits) << int(s.bits);
  }
}

// MXFP8 quantization (OCP MX): each run of 32 elements of a row shares the scale 2^e, the least
// power of two with amax / 2^e <= 448 (e4m3's largest), and its elements are x / 2^e in e4m3.
struct MxQuantize : Script {
  static constexpr const char* param_names[] = {"rows", "x", "q", "scales"};
  void operator()(Int32 rows, Ptr<float> x, Ptr<f8e4m3> q, Ptr<e8m0> scales) {
    attrs.blocks = cdiv(rows, 8);
    attrs.warps = 1;
    const Int32 row = blockIdx.x * 8;
    auto t = load_global(global_view(x, {rows, 256}), {row, 0}, {8, 256});
    auto runs = reshape(t, {64, 32});
    auto scale = (max(abs(runs), 1) / 448.0f).to<e8m0>(Rounding::up);
    auto scaled = runs / reshape(scale.to<float>(), {64, 1});
    store_global(global_view(q, {rows, 256}), reshape(scaled.to<f8e4m3>(), {8, 256}), {row, 0});
    store_global(global_view(scales, {rows, 8}), reshape(scale, {8, 8}), {row, 0});
  }
};

inline void check_mx_quantize(const Device& dev, int rows) {
  std::mt19937 rng{9};
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> x(size_t(rows) * 256);
  // Each run of 32 has a magnitude of its own, so that the scales differ.
  for (size_t r = 0; r < x.size() / 32; ++r) {
    const int e = exponent(rng);
    for (size_t i = 0; i < 32; ++i) x[r * 32 + i] = std::ldexp(mantissa(rng), e);
  }
  Buffer<float> dx(dev, x);
  Buffer<f8e4m3> q(dev, std::vector<f8e4m3>(x.size(), f8e4m3::from_bits(0x7f)));
  Buffer<e8m0> scales(dev, std::vector<e8m0>(x.size() / 32, e8m0::from_bits(0xff)));
  Kernel<MxQuantize> k(dev);
  k(rows, dx, q, scales);
  const std::vector<f8e4m3> got_q = q.download();
  const std::vector<e8m0> got_scales = scales.download();
  for (size_t r = 0; r < x.size() / 32; ++r) {
    float amax = 0;
    for (size_t i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[r * 32 + i]));
    const e8m0 scale = e8m0::round_up(amax / 448.0f);
    ASSERT_EQ(got_scales[r].bits, scale.bits) << "run " << r;
    for (size_t i = 0; i < 32; ++i) {
      const f8e4m3 want(x[r * 32 + i] / float(scale));
      EXPECT_EQ(got_q[r * 32 + i].bits, want.bits) << "run " << r << ", element " << i;
      // Rounding the scale up keeps every scaled element in e4m3's range: none saturates.
      EXPECT_LE(std::fabs(x[r * 32 + i] / float(scale)), 448.0f) << "run " << r << ", element " << i;
    }
  }
}

}  // namespace tessel::testing
