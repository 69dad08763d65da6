// Packed tiles of every width from 1 to 7 bits, integer and floating-point, with host expectations
// from the host's decoding (tessel::unpack_bits, tessel::float_from_bits): loads and stores of packed
// global and shared memory (whole words, and single elements that may cross a byte at the view's
// edges), conversions to f32 and f16 and from f32, and bitcasts from and to 32-bit words. Run on the simulator by
// tests/packed_types_test.cpp and on the GPU by tests/gpu/packed_types_gpu_test.cpp.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Every packed type but the 4-bit integers, which tests/packed_types_kernels.hpp covers further.
using AnyWidthTypes = std::tuple<i1, i2, i3, i5, i6, i7, u1, u2, u3, u5, u6, u7, f3e1m1, f4e1m2, f4e2m1, f5e1m3, f5e2m2,
                                 f5e3m1, f6e2m3, f6e3m2, f6e4m1, f7e2m4, f7e3m3, f7e4m2, f7e5m1>;

template <class F> void for_each_any_width_type(F&& f) {
  std::apply([&](auto... types) { (f(types), ...); }, AnyWidthTypes{});
}

// 128 columns are whole 32-bit words for every width, 32 elements a thread.
constexpr int kAnyRows = 16, kAnyColumns = 128, kAnyShiftedColumns = 144;

// `in` holds [16, 128] packed elements and `x` [16, 128] floats. Outputs, [16, 128] unless stated:
//   copied: the tile stored back; shifted: [16, 144] packed, the tile stored at column 3 of a view
//   125 columns wide (its last 6 columns fall outside); widened: the tile as f32; halves: as f16;
//   brain: as bf16;
//   narrowed: x converted to T (through i32 for the integers), packed; through_shared: the tile
//   through shared memory, as f32; from_words: `in` loaded as [16, 4N] u32 words and bitcast to T,
//   as f32; to_words: the tile bitcast to u32 words, [16, 4N].
template <class T> struct AnyWidthTiles : Script {
  void operator()(Ptr<T> in, Ptr<float> x, Ptr<T> copied, Ptr<T> shifted, Ptr<float> widened, Ptr<f16> halves,
                  Ptr<bf16> brain, Ptr<T> narrowed, Ptr<float> through_shared, Ptr<uint32_t> words,
                  Ptr<float> from_words, Ptr<uint32_t> to_words) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const int R = kAnyRows, C = kAnyColumns;
    auto t = load_global(global_view(in, {R, C}), {0, 0}, {R, C});
    store_global(global_view(copied, {R, C}), t, {0, 0});
    store_global(global_view(shifted, {R, C - 3}, {kAnyShiftedColumns, 1}), t, {0, 3});
    store_global(global_view(widened, {R, C}), t.template to<float>(), {0, 0});
    store_global(global_view(halves, {R, C}), t.template to<f16>(), {0, 0});
    store_global(global_view(brain, {R, C}), t.template to<bf16>(), {0, 0});
    auto v = load_global(global_view(x, {R, C}), {0, 0}, {R, C});
    if constexpr (is_float(dtype_v<T>))
      store_global(global_view(narrowed, {R, C}), v.template to<T>(), {0, 0});
    else
      store_global(global_view(narrowed, {R, C}), v.template to<int32_t>().template to<T>(), {0, 0});
    auto s = shared_tensor<T>({R, C});
    store_shared(s, t);
    sync();
    const Layout rows = Layout::spatial({16, 4}) * Layout::local({1, 32});
    store_global(global_view(through_shared, {R, C}), load_shared(s, {0, 0}, {R, C}, rows).template to<float>(),
                 {0, 0});
    const int W = C * dtype_bits(dtype_v<T>) / 32;
    auto packed_words = load_global(global_view(words, {R, W}), {0, 0}, {R, W});
    store_global(global_view(from_words, {R, C}), packed_words.template bitcast<T>().template to<float>(), {0, 0});
    store_global(global_view(to_words, {R, W}), t.template bitcast<uint32_t>(), {0, 0});
  }
};

// Equal, or both NaN.
inline bool same_value(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

template <class T> void check_any_width_tiles(const Device& dev, const sim::Options& options = {}) {
  constexpr DType t = dtype_v<T>;
  const int R = kAnyRows, C = kAnyColumns, S = kAnyShiftedColumns, n = R * C;
  const int bits = dtype_bits(t);
  std::mt19937 rng(uint32_t(100 + int(t)));
  std::vector<uint32_t> fields(static_cast<size_t>(n));
  for (uint32_t& f : fields) f = rng() & ((1u << bits) - 1u);
  // Magnitudes from 2^-20 to 2^20 cross every format's range; some are special.
  std::vector<float> x(static_cast<size_t>(n));
  std::uniform_real_distribution<float> exponent(-20.0f, 20.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::exp2(exponent(rng)) * (rng() % 2 ? -1.0f : 1.0f);
    if (is_float(t) && i % 97 == 5) x[i] = i % 2 ? INFINITY : NAN;
    if (i % 89 == 7) x[i] = 0.0f;
  }
  const std::vector<uint8_t> in = pack_bits(t, fields);
  const uint8_t poison = 0xa5;
  const std::vector<uint8_t> poisoned_rows(size_t(R * S * bits / 8), poison);
  Buffer<uint8_t> d_in(dev, in), copied(dev, std::vector<uint8_t>(in.size(), poison)), shifted(dev, poisoned_rows),
      narrowed(dev, std::vector<uint8_t>(in.size(), poison));
  Buffer<float> d_x(dev, x), widened(dev, std::vector<float>(size_t(n), -99.0f)),
      through_shared(dev, std::vector<float>(size_t(n), -99.0f));
  Buffer<f16> halves(dev, std::vector<f16>(size_t(n), f16(-99.0f)));
  Buffer<bf16> brain(dev, std::vector<bf16>(size_t(n), bf16(-99.0f)));
  std::vector<uint32_t> words(in.size() / 4);
  std::memcpy(words.data(), in.data(), in.size());
  Buffer<uint32_t> d_words(dev, words), to_words(dev, std::vector<uint32_t>(words.size(), 7u));
  Buffer<float> from_words(dev, std::vector<float>(size_t(n), -99.0f));
  Kernel<AnyWidthTiles<T>>(dev, KernelOptions{.sim = options})(d_in, d_x, copied, shifted, widened, halves, brain,
                                                               narrowed, through_shared, d_words, from_words, to_words);
  const std::string type(dtype_name(t));
  EXPECT_EQ(copied.download(), in) << type;
  EXPECT_EQ(to_words.download(), words) << type;
  const auto wi = widened.download(), ts = through_shared.download(), fw = from_words.download();
  const auto h = halves.download();
  const auto b = brain.download();
  const auto na = narrowed.download();
  for (int i = 0; i < n; ++i) {
    const float want = value_from_bits(t, fields[size_t(i)]);
    ASSERT_PRED2(same_value, wi[size_t(i)], want) << type << " as f32 at " << i;
    ASSERT_PRED2(same_value, ts[size_t(i)], want) << type << " through shared at " << i;
    ASSERT_PRED2(same_value, fw[size_t(i)], want) << type << " from words at " << i;
    ASSERT_PRED2(same_value, float(h[size_t(i)]), want) << type << " as f16 at " << i;
    ASSERT_PRED2(same_value, float(b[size_t(i)]), want) << type << " as bf16 at " << i;
    const uint32_t narrow =
        is_float(t) ? float_to_bits(t, x[size_t(i)]) : uint32_t(int32_t(x[size_t(i)])) & ((1u << bits) - 1u);
    ASSERT_EQ(unpack_bits(t, na.data(), i), narrow) << type << " from " << x[size_t(i)] << " at " << i;
  }
  // Row r of `shifted` holds elements 3..124 of the view's row (the tile's first 122 columns); the
  // rest keeps its poison, bit for bit.
  const auto sh = shifted.download();
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < S; ++c) {
      const int64_t i = int64_t(r) * S + c;
      const uint32_t want =
          c >= 3 && c < C - 3 ? fields[size_t(r * C + c - 3)] : unpack_bits(t, poisoned_rows.data(), i);
      ASSERT_EQ(unpack_bits(t, sh.data(), i), want) << type << " shifted at " << r << "," << c;
    }
}

// f16 values narrowed to the packed type T (an integer with saturation): [1024] from `in` to `out`
// (32 a thread: whole words of every width).
template <class T> struct NarrowsHalves : Script {
  void operator()(Ptr<f16> in, Ptr<T> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto h = load_global(global_view(in, {1024}), {0}, {1024});
    if constexpr (is_float(dtype_v<T>))
      store_global(global_view(out, {1024}), h.template to<T>(), {0});
    else
      store_global(global_view(out, {1024}), h.template to<T>(saturate), {0});
  }
};

// Narrows f16 values of both signs, NaNs and infinities among them, to each packed float type: a
// NaN becomes the pattern of all ones with its sign (the GPU widens an f16 NaN to f32 without one).
inline void check_narrowing_from_f16(const Device& dev) {
  for_each_any_width_type([&](auto type) {
    using T = decltype(type);
    constexpr DType t = dtype_v<T>;
    if constexpr (is_float(t)) {
      std::mt19937 rng(uint32_t(300 + int(t)));
      std::uniform_real_distribution<float> exponent(-12.0f, 12.0f);
      std::vector<f16> h(1024);
      for (size_t i = 0; i < h.size(); ++i) h[i] = f16(std::exp2(exponent(rng)) * (i % 2 ? -1.0f : 1.0f));
      const uint16_t specials[] = {0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x7c01, 0xfc01};
      for (size_t i = 0; i < std::size(specials); ++i) std::memcpy(&h[3 + 10 * i], &specials[i], 2);
      Buffer<f16> in(dev, h);
      Buffer<uint8_t> out(dev, std::vector<uint8_t>(size_t(1024 * dtype_bits(t) / 8), 0xa5));
      Kernel<NarrowsHalves<T>> kernel(dev);
      kernel(in, out);
      const auto got = out.download();
      for (int i = 0; i < 1024; ++i)
        ASSERT_EQ(unpack_bits(t, got.data(), i), float_to_bits(t, float(h[size_t(i)])))
            << dtype_name(t) << " of f16 bits " << std::hex << h[size_t(i)].bits;
    }
  });
}

}  // namespace tessel::testing
