// Packed 4-bit tiles (i4, u4), with host expectations: loads and stores of packed global and
// shared memory (whole words and single elements at the view's edges), conversions to f16, bf16
// and i32 and from i32, and bitcasts to and from 32-bit words. Run on the simulator by
// tests/packed_types_test.cpp and on the GPU by tests/gpu/packed_types_gpu_test.cpp.
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

constexpr int kPackedRows = 16, kPackedColumns = 64;

// Element i of packed memory: the low nibble of byte i / 2 for even i, the high one for odd i.
inline int nibble(const std::vector<uint8_t>& bytes, int64_t i, bool is_signed) {
  const int v = bytes[size_t(i / 2)] >> (4 * (i % 2)) & 0xf;
  return is_signed && v >= 8 ? v - 16 : v;
}

// `in` holds [16, 64] packed elements; `words` the same bytes as [16, 8] u32 words; `ints` [16, 64]
// i32 values. Outputs, each [16, 64] unless stated:
//   copied: the tile stored back; shifted: [16, 80] packed, the tile stored at column 3 of a view
//   61 columns wide (its last 6 columns fall outside); halves: f16; brain: bf16; widened: i32;
//   narrowed: ints converted to T, packed; from_words: words bitcast to T, as i32; to_words: the
//   tile bitcast to u32 words, [16, 8]; through_shared: the tile through shared memory, as i32.
template <class T> struct PackedTiles : Script {
  void operator()(Ptr<T> in, Ptr<uint32_t> words, Ptr<int32_t> ints, Ptr<T> copied, Ptr<T> shifted, Ptr<f16> halves,
                  Ptr<bf16> brain, Ptr<int32_t> widened, Ptr<T> narrowed, Ptr<int32_t> from_words,
                  Ptr<uint32_t> to_words, Ptr<int32_t> through_shared) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const int R = kPackedRows, C = kPackedColumns;
    auto t = load_global(global_view(in, {R, C}), {0, 0}, {R, C});
    store_global(global_view(copied, {R, C}), t, {0, 0});
    store_global(global_view(shifted, {R, 61}, {80, 1}), t, {0, 3});
    store_global(global_view(halves, {R, C}), t.template to<f16>(), {0, 0});
    store_global(global_view(brain, {R, C}), t.template to<bf16>(), {0, 0});
    store_global(global_view(widened, {R, C}), t.template to<int32_t>(), {0, 0});
    auto i = load_global(global_view(ints, {R, C}), {0, 0}, {R, C});
    store_global(global_view(narrowed, {R, C}), i.template to<T>(), {0, 0});
    auto w = load_global(global_view(words, {R, C / 8}), {0, 0}, {R, C / 8});
    store_global(global_view(from_words, {R, C}), w.template bitcast<T>().template to<int32_t>(), {0, 0});
    store_global(global_view(to_words, {R, C / 8}), t.template bitcast<uint32_t>(), {0, 0});
    auto s = shared_tensor<T>({R, C});
    store_shared(s, t);
    sync();
    const Layout columns = Layout::local({2, 1}) * Layout::spatial({8, 8}) * Layout::local({1, 8});
    store_global(global_view(through_shared, {R, C}), load_shared(s, {0, 0}, {R, C}, columns).template to<int32_t>(),
                 {0, 0});
  }
};

template <class T> void check_packed_tiles(const Device& dev, const sim::Options& options = {}) {
  constexpr bool is_signed = std::is_same_v<T, i4>;
  const int R = kPackedRows, C = kPackedColumns, n = R * C;
  std::mt19937 rng(is_signed ? 41 : 42);
  std::vector<uint8_t> in(size_t(n / 2));
  for (uint8_t& b : in) b = uint8_t(rng());
  std::vector<uint32_t> words(size_t(n / 8));
  std::memcpy(words.data(), in.data(), in.size());
  std::vector<int32_t> ints(static_cast<size_t>(n));
  for (int32_t& v : ints) v = int32_t(rng() % 100) - 50;
  const uint8_t poison = 0xa5;
  Buffer<uint8_t> d_in(dev, in), copied(dev, std::vector<uint8_t>(size_t(n / 2), poison)),
      shifted(dev, std::vector<uint8_t>(size_t(R * 40), poison)), narrowed(dev, std::vector<uint8_t>(size_t(n / 2)));
  Buffer<uint32_t> d_words(dev, words), to_words(dev, std::vector<uint32_t>(size_t(n / 8), 7u));
  Buffer<int32_t> d_ints(dev, ints), widened(dev, std::vector<int32_t>(size_t(n), -99)),
      from_words(dev, std::vector<int32_t>(size_t(n), -99)), through_shared(dev, std::vector<int32_t>(size_t(n), -99));
  Buffer<f16> halves(dev, std::vector<f16>(size_t(n), f16(-99.0f)));
  Buffer<bf16> brain(dev, std::vector<bf16>(size_t(n), bf16(-99.0f)));
  Kernel<PackedTiles<T>>(dev, KernelOptions{.sim = options})(d_in, d_words, d_ints, copied, shifted, halves, brain,
                                                             widened, narrowed, from_words, to_words, through_shared);
  EXPECT_EQ(copied.download(), in);
  EXPECT_EQ(to_words.download(), words);
  const auto sh = shifted.download();
  const auto h = halves.download();
  const auto b = brain.download();
  const auto wi = widened.download(), fw = from_words.download(), ts = through_shared.download();
  const auto na = narrowed.download();
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int i = r * C + c, want = nibble(in, i, is_signed);
      ASSERT_EQ(float(h[size_t(i)]), float(want)) << "f16 at " << r << "," << c;
      ASSERT_EQ(float(b[size_t(i)]), float(want)) << "bf16 at " << r << "," << c;
      ASSERT_EQ(wi[size_t(i)], want) << "i32 at " << r << "," << c;
      ASSERT_EQ(fw[size_t(i)], want) << "from words at " << r << "," << c;
      ASSERT_EQ(ts[size_t(i)], want) << "through shared at " << r << "," << c;
      const int wrapped = ints[size_t(i)] & 0xf;
      ASSERT_EQ(nibble(na, i, is_signed), is_signed && wrapped >= 8 ? wrapped - 16 : wrapped)
          << "narrowed at " << r << "," << c;
    }
  // Row r of `shifted` holds elements 3..60 of the view's row: the tile's first 58 columns.
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 80; ++c) {
      const int64_t i = int64_t(r) * 80 + c;
      const int poisoned = (poison >> (4 * (c % 2))) & 0xf;
      const int want = c >= 3 && c < 61 ? nibble(in, int64_t(r) * C + c - 3, false) : poisoned;
      ASSERT_EQ(nibble(sh, i, false), want) << "shifted at " << r << "," << c;
    }
}

}  // namespace tessel::testing
