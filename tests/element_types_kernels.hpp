// Kernels over the narrow element types (fp8, u8, i16, u16) and bitcasts, with host expectations.
// Run on the simulator by tests/element_types_test.cpp and on the GPU by
// tests/gpu/element_types_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// f32 to both fp8 formats and back, and the fp8 bits read through u8.
struct Fp8Conversions : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<f8e4m3> e4m3, Ptr<f8e5m2> e5m2, Ptr<float> back4, Ptr<float> back5,
                  Ptr<uint8_t> bits4) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto t = load_global(global_view(x, {n}), {at}, {256});
    auto a = t.to<f8e4m3>();
    auto b = t.to<f8e5m2>();
    store_global(global_view(e4m3, {n}), a, {at});
    store_global(global_view(e5m2, {n}), b, {at});
    store_global(global_view(back4, {n}), a.to<float>(), {at});
    store_global(global_view(back5, {n}), b.to<float>(), {at});
    store_global(global_view(bits4, {n}), a.bitcast<uint8_t>(), {at});
  }
};

// The values fp8 conversions must get right: both signs of zero, the largest finite values and
// what lies beyond them, ties between neighbours, subnormals, infinities and NaN, then random
// values over the whole range of both formats.
inline std::vector<float> fp8_inputs(int n) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f,
                          -0.0f,
                          1.0f,
                          1.0625f,
                          1.1875f,
                          -1.0625f,
                          448.0f,
                          449.0f,
                          464.0f,
                          480.0f,
                          -500.0f,
                          1e6f,
                          57344.0f,
                          61440.0f,
                          65536.0f,
                          -1e9f,
                          inf,
                          -inf,
                          std::ldexp(1.0f, -9),
                          std::ldexp(1.0f, -10),
                          std::ldexp(3.0f, -11),
                          std::ldexp(1.0f, -16),
                          std::ldexp(1.0f, -17),
                          std::ldexp(3.0f, -18),
                          1e-30f,
                          -1e-30f,
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> exponent(-20, 17), sign(-1, 1);
  while (int(x.size()) < n) x.push_back(std::copysign(std::exp2(exponent(rng)), sign(rng)));
  return x;
}

inline void check_fp8_conversions(const Device& dev, const KernelOptions& options = {}) {
  const int n = 1000;
  const std::vector<float> x = fp8_inputs(n);
  Buffer<float> dx(dev, x), back4(dev, std::vector<float>(n, 7.0f)), back5(dev, std::vector<float>(n, 7.0f));
  Buffer<f8e4m3> d4(dev, std::vector<f8e4m3>(n, f8e4m3::from_bits(0x55)));
  Buffer<f8e5m2> d5(dev, std::vector<f8e5m2>(n, f8e5m2::from_bits(0x55)));
  Buffer<uint8_t> bits(dev, std::vector<uint8_t>(n, 0x55));
  Kernel<Fp8Conversions> k(dev, options);
  k(n, dx, d4, d5, back4, back5, bits);
  const auto got4 = d4.download();
  const auto got5 = d5.download();
  const auto b4 = back4.download();
  const auto b5 = back5.download();
  const auto raw = bits.download();
  for (int i = 0; i < n; ++i) {
    const f8e4m3 want4(x[i]);
    const f8e5m2 want5(x[i]);
    EXPECT_EQ(int(got4[i].bits), int(want4.bits)) << "e4m3 of " << x[i];
    EXPECT_EQ(int(got5[i].bits), int(want5.bits)) << "e5m2 of " << x[i];
    EXPECT_EQ(int(raw[i]), int(want4.bits)) << "bits of e4m3 of " << x[i];
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(b4[i]) && std::isnan(b5[i])) << i;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(b4[i]), std::bit_cast<uint32_t>(float(want4))) << "e4m3 back of " << x[i];
      EXPECT_EQ(std::bit_cast<uint32_t>(b5[i]), std::bit_cast<uint32_t>(float(want5))) << "e5m2 back of " << x[i];
    }
  }
}

// f32 to tf32 and back, f16 to tf32, and f32 data as tf32 elements: its value (the low 13
// mantissa bits cleared), and its words as they are when moved (stored, bitcast, shuffled between
// lanes: thread t holds elements 4t to 4t + 3, and takes those of thread t ^ 1).
struct Tf32Conversions : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<tf32> rounded, Ptr<float> back, Ptr<tf32> via_half, Ptr<tf32> as_tf32,
                  Ptr<float> read, Ptr<tf32> moved, Ptr<uint32_t> words, Ptr<tf32> shuffled) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 at = blockIdx.x * 256;
    auto t = load_global(global_view(x, {n}), {at}, {256}).to<tf32>();
    store_global(global_view(rounded, {n}), t, {at});
    store_global(global_view(back, {n}), t.to<float>(), {at});
    store_global(global_view(via_half, {n}), load_global(global_view(x, {n}), {at}, {256}).to<f16>().to<tf32>(), {at});
    auto raw = load_global(global_view(as_tf32, {n}), {at}, {256}, Layout::spatial({64}) * Layout::local({4}));
    store_global(global_view(read, {n}), raw.to<float>(), {at});
    store_global(global_view(moved, {n}), raw, {at});
    store_global(global_view(words, {n}), raw.bitcast<uint32_t>(), {at});
    store_global(global_view(shuffled, {n}), warp.shuffle_xor(raw, 1), {at});
  }
};

// tf32's inputs: fp8's, with ties of tf32's last place (both ways from even and odd), the largest
// finite f32 (which rounds to infinity) and f32's subnormals.
inline std::vector<float> tf32_inputs(int n) {
  std::vector<float> x = fp8_inputs(n);
  const auto at = [](uint32_t bits) { return std::bit_cast<float>(bits); };
  const std::vector<float> special = {at(0x3f801000u), at(0x3f803000u), at(0xbf801000u), at(0x3f800fffu),
                                      at(0x7f7fffffu), at(0x7f7fefffu), at(0x00000001u), at(0x00001000u),
                                      at(0x807ff000u), at(0x7f800001u), at(0x7fffffffu), at(0xffc00fffu),
                                      at(0xff801000u), at(0x7f802000u), at(0x7f802fffu)};
  std::copy(special.begin(), special.end(), x.begin() + 30);
  std::mt19937 rng(29);
  std::uniform_int_distribution<uint32_t> bits;
  for (size_t i = 100; i < x.size(); i += 2) {
    x[i] = at(bits(rng));
    if (std::isnan(x[i])) x[i] = 1.5f;
  }
  return x;
}

inline void check_tf32_conversions(const Device& dev) {
  const int n = 1024;
  const std::vector<float> x = tf32_inputs(n);
  const std::vector<tf32> poison(n, tf32::from_bits(0x55555555u));
  Buffer<float> dx(dev, x), back(dev, std::vector<float>(n, 7.0f)), read(dev, std::vector<float>(n, 7.0f));
  Buffer<tf32> rounded(dev, poison), via_half(dev, poison), moved(dev, poison), shuffled(dev, poison);
  Buffer<uint32_t> words(dev, std::vector<uint32_t>(n, 0x55555555u));
  Kernel<Tf32Conversions> k(dev);
  k(n, dx, rounded, back, via_half, dx, read, moved, words, shuffled);
  const auto got = rounded.download(), got_half = via_half.download(), got_moved = moved.download(),
             got_shuffled = shuffled.download();
  const auto got_back = back.download(), got_read = read.download();
  const auto got_words = words.download();
  const auto bits = [&](int i) { return std::bit_cast<uint32_t>(x[size_t(i)]); };
  for (int i = 0; i < n; ++i) {
    const tf32 want(x[i]);
    EXPECT_EQ(got[i].bits, want.bits) << fmt::format("tf32 of {} (0x{:08x})", x[i], bits(i));
    EXPECT_EQ(std::bit_cast<uint32_t>(got_back[i]), want.bits) << fmt::format("back from tf32 of 0x{:08x}", bits(i));
    EXPECT_EQ(got_half[i].bits, tf32(float(f16(x[i]))).bits) << fmt::format("tf32 of the f16 of 0x{:08x}", bits(i));
    EXPECT_EQ(std::bit_cast<uint32_t>(got_read[i]), bits(i) & 0xffffe000u)
        << fmt::format("0x{:08x} read as tf32", bits(i));
    EXPECT_EQ(got_moved[i].bits, bits(i)) << fmt::format("0x{:08x} stored as tf32", bits(i));
    EXPECT_EQ(got_words[i], bits(i)) << fmt::format("0x{:08x} bitcast from tf32", bits(i));
    const int source = i / 256 * 256 + ((i % 256 / 4) ^ 1) * 4 + i % 4;
    EXPECT_EQ(got_shuffled[i].bits, bits(source)) << fmt::format("element {} shuffled from {}", i, source);
  }
}

// Narrow integers wrap as their width does; bitcasts keep bits between types of one width.
struct NarrowIntegersAndBitcasts : Script {
  void operator()(Int32 n, Ptr<uint8_t> a, Ptr<int16_t> b, Ptr<float> f, Ptr<uint8_t> a_out, Ptr<int16_t> b_out,
                  Ptr<uint32_t> f_bits, Ptr<f16> halves, Ptr<float> f_again) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto ta = load_global(global_view(a, {n}), {0}, {128});
    auto tb = load_global(global_view(b, {n}), {0}, {128});
    auto tf = load_global(global_view(f, {n}), {0}, {128});
    store_global(global_view(a_out, {n}), ta * 3 + 200, {0});
    store_global(global_view(b_out, {n}), tb * tb - 7, {0});
    auto u = tf.bitcast<uint32_t>();
    store_global(global_view(f_bits, {n}), u, {0});
    // The low half of each float's bits, read as an f16.
    store_global(global_view(halves, {n}), (u & 0xffffu).to<uint16_t>().bitcast<f16>(), {0});
    store_global(global_view(f_again, {n}), u.bitcast<float>(), {0});
  }
};

// Conversions between the 16- and 32-bit floats of NaNs of both signs and several payloads, of
// infinities, zeros and ordinary values, kept as bits: what the simulator gives must be what the
// GPU gives, NaNs included.
struct FloatConversionBits : Script {
  void operator()(Ptr<uint16_t> halves, Ptr<uint32_t> singles, Ptr<uint16_t> brains, Ptr<uint32_t> half_to_single,
                  Ptr<uint16_t> single_to_half, Ptr<uint16_t> single_to_brain, Ptr<uint32_t> brain_to_single,
                  Ptr<uint16_t> half_to_brain) {
    attrs.blocks = 1;
    attrs.warps = 1;
    constexpr int n = 32;
    auto h = load_global(global_view(halves, {n}), {0}, {n}).bitcast<f16>();
    auto f = load_global(global_view(singles, {n}), {0}, {n}).bitcast<float>();
    auto b = load_global(global_view(brains, {n}), {0}, {n}).bitcast<bf16>();
    store_global(global_view(half_to_single, {n}), h.to<float>().bitcast<uint32_t>(), {0});
    store_global(global_view(single_to_half, {n}), f.to<f16>().bitcast<uint16_t>(), {0});
    store_global(global_view(single_to_brain, {n}), f.to<bf16>().bitcast<uint16_t>(), {0});
    store_global(global_view(brain_to_single, {n}), b.to<float>().bitcast<uint32_t>(), {0});
    store_global(global_view(half_to_brain, {n}), h.to<bf16>().bitcast<uint16_t>(), {0});
  }
};

struct FloatConversionResults {
  std::vector<uint16_t> halves, brains;  // the inputs, NaNs first
  std::vector<uint32_t> singles;
  std::vector<uint32_t> half_to_single, brain_to_single;
  std::vector<uint16_t> single_to_half, single_to_brain, half_to_brain;
};

// The 32 inputs of each width: NaNs (quiet and signalling, both signs, several payloads), the
// infinities and zeros of both signs, and ordinary values.
inline FloatConversionResults float_conversion_bits(const Device& dev) {
  const std::vector<uint16_t> nan16 = {0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7fff, 0xffff, 0x7d55, 0xfeaa},
                              nanb = {0x7fc0, 0xffc0, 0x7f81, 0xff81, 0x7fff, 0xffff, 0x7fd5, 0xffaa};
  const std::vector<uint32_t> nan32 = {0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
                                       0x7fffffff, 0xffffffff, 0x7fd55555, 0xffaaaaaa};
  std::vector<uint16_t> halves = nan16, brains = nanb;
  std::vector<uint32_t> singles = nan32;
  for (uint16_t v : {0x7c00, 0xfc00, 0x0000, 0x8000, 0x3c00, 0xc000, 0x0001, 0x83ff}) halves.push_back(v);
  for (uint16_t v : {0x7f80, 0xff80, 0x0000, 0x8000, 0x3f80, 0xc000, 0x0001, 0x807f}) brains.push_back(v);
  for (uint32_t v : {0x7f800000u, 0xff800000u, 0u, 0x80000000u, 0x3f800000u, 0xc0000000u, 0x477ff000u, 0x33000001u})
    singles.push_back(v);
  std::mt19937 rng(41);
  while (halves.size() < 32) {
    halves.push_back(uint16_t(rng() % 0x7c00 | (rng() % 2) << 15));
    brains.push_back(uint16_t(rng() % 0x7f80 | (rng() % 2) << 15));
    singles.push_back(uint32_t(rng() % 0x7f800000u | (rng() % 2) << 31));
  }
  Buffer<uint16_t> dh(dev, halves), db(dev, brains), s2h(dev, std::vector<uint16_t>(32, 0x1234)),
      s2b(dev, std::vector<uint16_t>(32, 0x1234)), h2b(dev, std::vector<uint16_t>(32, 0x1234));
  Buffer<uint32_t> ds(dev, singles), h2s(dev, std::vector<uint32_t>(32, 0x12345678)),
      b2s(dev, std::vector<uint32_t>(32, 0x12345678));
  Kernel<FloatConversionBits> convert(dev);
  convert(dh, ds, db, h2s, s2h, s2b, b2s, h2b);
  return {halves, brains, singles, h2s.download(), b2s.download(), s2h.download(), s2b.download(), h2b.download()};
}

// Every code of an fp8 format (FP8 = f8e4m3 or f8e5m2) widened to f32, f16 and bf16, as bits.
template <class FP8> struct Fp8Widening : Script {
  void operator()(Ptr<uint8_t> codes, Ptr<uint32_t> singles, Ptr<uint16_t> halves, Ptr<uint16_t> brains) {
    attrs.blocks = 1;
    attrs.warps = 2;
    constexpr int n = 256;
    auto x = load_global(global_view(codes, {n}), {0}, {n}).bitcast<FP8>();
    store_global(global_view(singles, {n}), x.template to<float>().template bitcast<uint32_t>(), {0});
    store_global(global_view(halves, {n}), x.template to<f16>().template bitcast<uint16_t>(), {0});
    store_global(global_view(brains, {n}), x.template to<bf16>().template bitcast<uint16_t>(), {0});
  }
};

struct Fp8WideningBits {
  std::vector<uint32_t> singles;
  std::vector<uint16_t> halves, brains;
};

// The 256 codes of FP8 widened on `dev`, built for `arch`.
template <class FP8> Fp8WideningBits fp8_widening_bits(const Device& dev, const std::string& arch) {
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i) codes[size_t(i)] = uint8_t(i);
  Buffer<uint8_t> c(dev, codes);
  Buffer<uint32_t> singles(dev, std::vector<uint32_t>(256, 0x12345678));
  Buffer<uint16_t> halves(dev, std::vector<uint16_t>(256, 0x1234)), brains(dev, std::vector<uint16_t>(256, 0x1234));
  Kernel<Fp8Widening<FP8>> widen(dev, KernelOptions{.arch = arch});
  widen(c, singles, halves, brains);
  return {singles.download(), halves.download(), brains.download()};
}

// Floats to integers as PTX cvt.rzi converts them: toward zero, saturated to the 32-bit (64-bit)
// range of the target's signedness, NaN to 0; the 8- and 16-bit types then keep the low bits.
struct FloatsToIntegers : Script {
  void operator()(Ptr<float> f, Ptr<int8_t> i8s, Ptr<uint8_t> u8s, Ptr<int32_t> i32s, Ptr<uint32_t> u32s,
                  Ptr<int64_t> i64s, Ptr<uint64_t> u64s) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(f, {32}), {0}, {32});
    store_global(global_view(i8s, {32}), t.to<int8_t>(), {0});
    store_global(global_view(u8s, {32}), t.to<uint8_t>(), {0});
    store_global(global_view(i32s, {32}), t.to<int32_t>(), {0});
    store_global(global_view(u32s, {32}), t.to<uint32_t>(), {0});
    store_global(global_view(i64s, {32}), t.to<int64_t>(), {0});
    store_global(global_view(u64s, {32}), t.to<uint64_t>(), {0});
  }
};

inline void check_floats_to_integers(const Device& dev) {
  const std::vector<float> f = {
      0.0f,     -0.0f,      1.9f,   -1.9f,         127.5f,        128.0f, 300.7f, -300.7f, 255.9f,   256.0f,    -1.0f,
      3e9f,     -3e9f,      5e9f,   1e19f,         -1e19f,        2e19f,  NAN,    -NAN,    INFINITY, -INFINITY, 65537.f,
      -65537.f, 2147483520, 4.2e9f, 1.8446743e19f, 9.2233715e18f, -129.f, -2.5f,  1e-3f,   7.0f,     -7.0f};
  Buffer<float> df(dev, f);
  Buffer<int8_t> i8s(dev, std::vector<int8_t>(32, 9));
  Buffer<uint8_t> u8s(dev, std::vector<uint8_t>(32, 9));
  Buffer<int32_t> i32s(dev, std::vector<int32_t>(32, 9));
  Buffer<uint32_t> u32s(dev, std::vector<uint32_t>(32, 9));
  Buffer<int64_t> i64s(dev, std::vector<int64_t>(32, 9));
  Buffer<uint64_t> u64s(dev, std::vector<uint64_t>(32, 9));
  Kernel<FloatsToIntegers> kernel(dev);
  kernel(df, i8s, u8s, i32s, u32s, i64s, u64s);
  const auto a = i8s.download();
  const auto b = u8s.download();
  const auto c = i32s.download();
  const auto d = u32s.download();
  const auto e = i64s.download();
  const auto g = u64s.download();
  const auto saturate = [](float x, double low, double high) {
    if (std::isnan(x)) return 0.0;
    return std::clamp(std::trunc(double(x)), low, high);
  };
  for (size_t i = 0; i < f.size(); ++i) {
    const double s32 = saturate(f[i], -2147483648.0, 2147483647.0), u32 = saturate(f[i], 0, 4294967295.0);
    EXPECT_EQ(a[i], int8_t(uint8_t(int64_t(s32)))) << f[i];
    EXPECT_EQ(b[i], uint8_t(int64_t(u32))) << f[i];
    EXPECT_EQ(c[i], int32_t(s32)) << f[i];
    EXPECT_EQ(d[i], uint32_t(u32)) << f[i];
    // The 64-bit conversions give the bits 0x8000000000000000 for NaN.
    const double s64 = saturate(f[i], -9223372036854775808.0, 9223372036854775807.0);
    EXPECT_EQ(e[i], std::isnan(f[i]) ? INT64_MIN : s64 >= 9223372036854775807.0 ? INT64_MAX : int64_t(s64)) << f[i];
    const double u64 = saturate(f[i], 0, 18446744073709551615.0);
    EXPECT_EQ(g[i], std::isnan(f[i])                ? uint64_t(1) << 63
                    : u64 >= 18446744073709551615.0 ? UINT64_MAX
                                                    : uint64_t(u64))
        << f[i];
  }
}

// Saturating conversions (to<T>(saturate)): floats to the nearest, ties to even, NaN to 0, then
// clamped to the target's range; integers clamped. Each thread holds 8 consecutive elements, so
// the packed i4 result fills whole registers.
struct SaturatingConversions : Script {
  void operator()(Ptr<float> f, Ptr<int32_t> ints, Ptr<int8_t> i8s, Ptr<uint8_t> u8s, Ptr<int16_t> i16s,
                  Ptr<uint32_t> u32s, Ptr<i4> i4s, Ptr<int8_t> ints_to_i8, Ptr<uint16_t> ints_to_u16) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout runs = Layout::spatial({32}) * Layout::local({8});
    auto t = load_global(global_view(f, {256}), {0}, {256}, runs);
    store_global(global_view(i8s, {256}), t.to<int8_t>(saturate), {0});
    store_global(global_view(u8s, {256}), t.to<uint8_t>(saturate), {0});
    store_global(global_view(i16s, {256}), t.to<int16_t>(saturate), {0});
    store_global(global_view(u32s, {256}), t.to<uint32_t>(saturate), {0});
    store_global(global_view(i4s, {256}), t.to<i4>(saturate), {0});
    auto n = load_global(global_view(ints, {256}), {0}, {256}, runs);
    store_global(global_view(ints_to_i8, {256}), n.to<int8_t>(saturate), {0});
    store_global(global_view(ints_to_u16, {256}), n.to<uint16_t>(saturate), {0});
  }
};

inline void check_saturating_conversions(const Device& dev) {
  std::vector<float> f = {0.0f,     -0.0f,     0.5f,     1.5f,      2.5f,    -0.5f,        -1.5f,
                          -2.5f,    126.5f,    127.5f,   -128.5f,   -129.f,  254.5f,       255.5f,
                          7.5f,     -8.5f,     3e9f,     -3e9f,     5e9f,    NAN,          -NAN,
                          INFINITY, -INFINITY, 32767.5f, -32768.5f, 65535.f, 2147483520.f, 1e-3f};
  std::vector<int32_t> ints = {0, 1, -1, 127, 128, -128, -129, 255, 256, 65535, 65536, INT32_MAX, INT32_MIN};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-400.0f, 400.0f);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), near(-70000, 70000);
  while (f.size() < 256) f.push_back(f.size() % 3 ? wide(rng) : std::round(wide(rng)) + 0.5f);
  while (ints.size() < 256) ints.push_back(ints.size() % 2 ? any(rng) : near(rng));
  Buffer<float> df(dev, f);
  Buffer<int32_t> dints(dev, ints);
  Buffer<int8_t> i8s(dev, std::vector<int8_t>(256, 9)), ints_to_i8(dev, std::vector<int8_t>(256, 9));
  Buffer<uint8_t> u8s(dev, std::vector<uint8_t>(256, 9)), i4s(dev, std::vector<uint8_t>(128, 0x99));
  Buffer<int16_t> i16s(dev, std::vector<int16_t>(256, 9));
  Buffer<uint32_t> u32s(dev, std::vector<uint32_t>(256, 9));
  Buffer<uint16_t> ints_to_u16(dev, std::vector<uint16_t>(256, 9));
  Kernel<SaturatingConversions> kernel(dev);
  kernel(df, dints, i8s, u8s, i16s, u32s, i4s, ints_to_i8, ints_to_u16);
  // The host reference: round half to even, then clamp.
  const auto rounded = [](float x, double low, double high) {
    if (std::isnan(x)) return 0.0;
    const double r = std::floor(double(x)), frac = double(x) - r;
    const double even = frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0) ? r + 1 : r;
    return std::clamp(even, low, high);
  };
  const auto a = i8s.download(), b = ints_to_i8.download();
  const auto c = u8s.download(), nibbles = i4s.download();
  const auto d = i16s.download();
  const auto e = u32s.download();
  const auto g = ints_to_u16.download();
  for (size_t i = 0; i < 256; ++i) {
    EXPECT_EQ(a[i], int8_t(rounded(f[i], -128, 127))) << f[i];
    EXPECT_EQ(c[i], uint8_t(rounded(f[i], 0, 255))) << f[i];
    EXPECT_EQ(d[i], int16_t(rounded(f[i], -32768, 32767))) << f[i];
    EXPECT_EQ(e[i], uint32_t(rounded(f[i], 0, 4294967295.0))) << f[i];
    const int nibble = nibbles[i / 2] >> (4 * (i % 2)) & 15;
    EXPECT_EQ(nibble >= 8 ? nibble - 16 : nibble, int(rounded(f[i], -8, 7))) << f[i];
    EXPECT_EQ(b[i], int8_t(std::clamp<int32_t>(ints[i], -128, 127))) << ints[i];
    EXPECT_EQ(g[i], uint16_t(std::clamp<int32_t>(ints[i], 0, 65535))) << ints[i];
  }
}

inline void check_narrow_integers_and_bitcasts(const Device& dev) {
  const int n = 128;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255), word(-30000, 30000);
  std::uniform_real_distribution<float> real(-100, 100);
  std::vector<uint8_t> a(n);
  std::vector<int16_t> b(n);
  std::vector<float> f(n);
  for (int i = 0; i < n; ++i) {
    a[i] = uint8_t(byte(rng));
    b[i] = int16_t(word(rng));
    f[i] = real(rng);
  }
  Buffer<uint8_t> da(dev, a), da_out(dev, std::vector<uint8_t>(n, 1));
  Buffer<int16_t> db(dev, b), db_out(dev, std::vector<int16_t>(n, 1));
  Buffer<float> df(dev, f), df_again(dev, std::vector<float>(n, 1.5f));
  Buffer<uint32_t> dbits(dev, std::vector<uint32_t>(n, 1));
  Buffer<f16> dhalves(dev, std::vector<f16>(n, f16(1.5f)));
  Kernel<NarrowIntegersAndBitcasts> k(dev);
  k(n, da, db, df, da_out, db_out, dbits, dhalves, df_again);
  const auto ga = da_out.download();
  const auto gb = db_out.download();
  const auto gbits = dbits.download();
  const auto ghalves = dhalves.download();
  const auto gf = df_again.download();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(int(ga[i]), (a[i] * 3 + 200) % 256) << i;
    EXPECT_EQ(gb[i], int16_t(uint16_t(b[i] * b[i] - 7))) << i;
    EXPECT_EQ(gbits[i], std::bit_cast<uint32_t>(f[i])) << i;
    EXPECT_EQ(ghalves[i].bits, uint16_t(std::bit_cast<uint32_t>(f[i]) & 0xffffu)) << i;
    EXPECT_EQ(std::bit_cast<uint32_t>(gf[i]), std::bit_cast<uint32_t>(f[i])) << i;
  }
}

}  // namespace tessel::testing
