// Bit operations on integer tiles and index tiles (arange), with host expectations: int4 weights
// unpacked and scaled, and a causal mask. Run on the simulator by tests/integer_tiles_test.cpp and
// on the GPU by tests/gpu/integer_tiles_gpu_test.cpp.
#pragma once

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Every bit operator on u32 and i32 tiles and on a u8 tile.
struct BitOperators : Script {
  void operator()(Ptr<uint32_t> a, Ptr<int32_t> b, Ptr<uint8_t> c, Ptr<uint32_t> ua, Ptr<int32_t> ib, Ptr<uint8_t> uc) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto ta = load_global(global_view(a, {64}), {0}, {64});
    auto tb = load_global(global_view(b, {64}), {0}, {64});
    auto tc = load_global(global_view(c, {64}), {0}, {64});
    auto shift = ta & 31u;
    store_global(global_view(ua, {64}), ((ta >> 4) & 15u) | (ta << shift) ^ ~ta, {0});
    // >> of a signed value shifts in copies of the sign bit; a shift's amount may be unsigned.
    store_global(global_view(ib, {64}), (tb >> (ta & 7u)) ^ (tb & 0x0ff0) | (tb << 2), {0});
    auto rotated = (tc << 3) | (tc >> 5);
    rotated ^= 0x5a;
    store_global(global_view(uc, {64}), ~rotated, {0});
  }
};

inline void check_bit_operators(const Device& dev) {
  std::mt19937 rng(3);
  std::vector<uint32_t> a(64);
  std::vector<int32_t> b(64);
  std::vector<uint8_t> c(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = uint32_t(rng());
    b[i] = int32_t(rng());
    c[i] = uint8_t(rng());
  }
  Buffer<uint32_t> da(dev, a), dua(dev, std::vector<uint32_t>(64, 1));
  Buffer<int32_t> db(dev, b), dib(dev, std::vector<int32_t>(64, 1));
  Buffer<uint8_t> dc(dev, c), duc(dev, std::vector<uint8_t>(64, 1));
  Kernel<BitOperators> k(dev);
  k(da, db, dc, dua, dib, duc);
  const auto ua = dua.download();
  const auto ib = dib.download();
  const auto uc = duc.download();
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(ua[i], ((a[i] >> 4) & 15u) | ((a[i] << (a[i] & 31u)) ^ ~a[i])) << i;
    EXPECT_EQ(ib[i], ((b[i] >> (a[i] & 7u)) ^ (b[i] & 0x0ff0)) | int32_t(uint32_t(b[i]) << 2)) << i;
    const uint8_t rotated = uint8_t(uint8_t(c[i] << 3) | uint8_t(c[i] >> 5)) ^ 0x5a;
    EXPECT_EQ(uc[i], uint8_t(~rotated)) << i;
  }
}

// (t & c) | d and (t & c) ^ d on 32-bit tiles, with c and d constants or a parameter and the
// operands either way round: each compiles to one lop3.
struct AndOr : Script {
  void operator()(Ptr<uint32_t> a, Ptr<int32_t> b, UInt32 bits, Ptr<uint32_t> ua, Ptr<int32_t> ib, Ptr<uint32_t> ux) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto ta = load_global(global_view(a, {64}), {0}, {64});
    auto tb = load_global(global_view(b, {64}), {0}, {64});
    auto exponent = (ta & 0x000f000fu) | 0x6400'6400u;
    store_global(global_view(ua, {64}), exponent ^ (bits | (0xff00'0000u & ta)), {0});
    store_global(global_view(ib, {64}), (tb & -256) | 0x55, {0});
    store_global(global_view(ux, {64}), ((ta & 0x00f0'00f0u) ^ 0x5480'5480u) + (0x8888'8888u ^ (bits & ta)), {0});
  }
};

inline void check_and_or(const Device& dev) {
  std::mt19937 rng(5);
  std::vector<uint32_t> a(64);
  std::vector<int32_t> b(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = uint32_t(rng());
    b[i] = int32_t(rng());
  }
  const uint32_t bits = 0x0000'5a5au;
  Buffer<uint32_t> da(dev, a), dua(dev, std::vector<uint32_t>(64, 1));
  Buffer<int32_t> db(dev, b), dib(dev, std::vector<int32_t>(64, 1));
  Buffer<uint32_t> dux(dev, std::vector<uint32_t>(64, 1));
  Kernel<AndOr> k(dev);
  k(da, db, bits, dua, dib, dux);
  const auto ua = dua.download(), ux = dux.download();
  const auto ib = dib.download();
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(ua[i], ((a[i] & 0x000f000fu) | 0x64006400u) ^ (bits | (0xff000000u & a[i]))) << i;
    EXPECT_EQ(ib[i], (b[i] & -256) | 0x55) << i;
    EXPECT_EQ(ux[i], ((a[i] & 0x00f000f0u) ^ 0x54805480u) + (0x88888888u ^ (bits & a[i]))) << i;
  }
}

// W4A16-style dequantization: each u32 word holds 8 signed 4-bit weights (two's complement, the
// first in the lowest nibble), and each row shares one f16 scale. Output column 8 w + j of a row is
// nibble j of its word w: the words broadcast along a third dimension whose index tile picks the
// nibble.
struct Int4Dequantize : Script {
  void operator()(Int32 rows, Ptr<uint32_t> packed, Ptr<f16> scales, Ptr<f16> out) {
    attrs.blocks = cdiv(rows, 16);
    attrs.warps = 4;
    const Int32 row0 = blockIdx.x * 16;
    auto words = load_global(global_view(packed, {rows, 8, 1}), {row0, 0, 0}, {16, 8, 1});
    auto scale = load_global(global_view(scales, {rows, 1, 1}), {row0, 0, 0}, {16, 1, 1});
    auto shift = (arange({16, 8, 8}, 2) * 4).to<uint32_t>();
    auto nibble = ((words >> shift) & 15u).to<int32_t>();
    auto value = (nibble ^ 8) - 8;  // sign-extends the 4-bit value
    store_global(global_view(out, {rows, 8, 8}), value.to<f16>() * scale, {row0, 0, 0});
  }
};

inline void check_int4_dequantize(const Device& dev) {
  const int rows = 40;
  std::mt19937 rng(9);
  std::vector<uint32_t> packed(rows * 8);
  std::vector<f16> scales(rows);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  for (auto& w : packed) w = uint32_t(rng());
  for (auto& s : scales) s = f16(scale(rng));
  Buffer<uint32_t> dp(dev, packed);
  Buffer<f16> ds(dev, scales), dout(dev, std::vector<f16>(rows * 64, f16(99.0f)));
  Kernel<Int4Dequantize> k(dev);
  k(rows, dp, ds, dout);
  const auto out = dout.download();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < 64; ++c) {
      const int nibble = int(packed[size_t(r) * 8 + size_t(c / 8)] >> (4 * (c % 8)) & 15u);
      const float want = float(f16(float(nibble >= 8 ? nibble - 16 : nibble) * float(scales[size_t(r)])));
      EXPECT_EQ(float(out[size_t(r) * 64 + c]), want) << r << ", " << c;
    }
}

// 8-bit integers to H (f16 or bf16) and scaled: [16, 64] bytes, 16 a thread, every row scaled by
// its own H.
template <class T, class H = f16> struct ByteDequantize : Script {
  void operator()(Ptr<T> bytes, Ptr<H> scales, Ptr<H> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const Layout rows_of_eight = Layout::local({2, 1}) * Layout::spatial({8, 8}) * Layout::local({1, 8});
    auto q = load_global(global_view(bytes, {16, 64}), {0, 0}, {16, 64}, rows_of_eight);
    auto scale = load_global(global_view(scales, {16, 1}), {0, 0}, {16, 1});
    store_global(global_view(out, {16, 64}), q.template to<H>() * scale, {0, 0});
  }
};

// The same bytes loaded as 32-bit words [16, 16] and bitcast (byte j of word w is element 4 w + j).
template <class T, class H = f16> struct ByteWordsDequantize : Script {
  void operator()(Ptr<uint32_t> words, Ptr<H> scales, Ptr<H> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const Layout rows_of_two = Layout::local({2, 1}) * Layout::spatial({8, 8}) * Layout::local({1, 2});
    auto w = load_global(global_view(words, {16, 16}), {0, 0}, {16, 16}, rows_of_two);
    auto scale = load_global(global_view(scales, {16, 1}), {0, 0}, {16, 1});
    store_global(global_view(out, {16, 64}), w.template bitcast<T>().template to<H>() * scale, {0, 0});
  }
};

// Random bytes of T converted by ByteDequantize (or, `as_words`, ByteWordsDequantize) against the
// host's product in H.
template <class T, class H = f16> void check_byte_dequantize(const Device& dev, bool as_words = false) {
  std::mt19937 rng(std::is_signed_v<T> ? 11 : 12);
  std::vector<T> bytes(16 * 64);
  for (T& b : bytes) b = T(rng());
  std::vector<H> scales(16);
  std::uniform_real_distribution<float> scale(0.01f, 0.1f);
  for (auto& s : scales) s = H(scale(rng));
  Buffer<H> ds(dev, scales), dout(dev, std::vector<H>(16 * 64, H(99.0f)));
  if (as_words) {
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    Buffer<uint32_t> dw(dev, words);
    Kernel<ByteWordsDequantize<T, H>> kernel(dev);
    kernel(dw, ds, dout);
  } else {
    Buffer<T> db(dev, bytes);
    Kernel<ByteDequantize<T, H>> kernel(dev);
    kernel(db, ds, dout);
  }
  const auto out = dout.download();
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) {
      const size_t i = size_t(r) * 64 + size_t(c);
      EXPECT_EQ(float(out[i]), float(H(float(bytes[i]) * float(scales[size_t(r)])))) << r << ", " << c;
    }
}

// Every form of check_byte_dequantize: signed and unsigned bytes, from bytes and from words, to f16
// and bf16.
inline void check_byte_dequantize_forms(const Device& dev) {
  for (const bool as_words : {false, true}) {
    check_byte_dequantize<int8_t>(dev, as_words);
    check_byte_dequantize<uint8_t>(dev, as_words);
    check_byte_dequantize<int8_t, bf16>(dev, as_words);
    check_byte_dequantize<uint8_t, bf16>(dev, as_words);
  }
}

// A causal mask written with index tiles: scores above the diagonal of the block at (row0, col0)
// become -inf.
struct CausalMask : Script {
  void operator()(Int32 n, Ptr<float> scores, Ptr<float> masked) {
    attrs.blocks = {cdiv(n, 32), cdiv(n, 32)};
    attrs.warps = 4;
    const Int32 row0 = blockIdx.x * 32, col0 = blockIdx.y * 32;
    auto s = load_global(global_view(scores, {n, n}), {row0, col0}, {32, 32});
    auto rows = arange({32, 32}, 0) + row0;
    auto cols = arange({32, 32}, 1) + col0;
    store_global(global_view(masked, {n, n}), where(cols <= rows, s, -INFINITY), {row0, col0});
  }
};

inline void check_causal_mask(const Device& dev) {
  const int n = 70;
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-5, 5);
  std::vector<float> s(n * n);
  for (auto& v : s) v = dist(rng);
  Buffer<float> ds(dev, s), dm(dev, std::vector<float>(n * n, 7.0f));
  Kernel<CausalMask> k(dev);
  k(n, ds, dm);
  const auto m = dm.download();
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) EXPECT_EQ(m[r * n + c], c <= r ? s[r * n + c] : -INFINITY) << r << ", " << c;
}

// Conditions combined with &&, || and !: the band lo < x < hi of each row, or the zeros, with a
// mask that runs out at column n.
struct BandOrZeros : Script {
  void operator()(Int32 n, Ptr<int32_t> x, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto t = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});
    auto in_band = (t > -20) && (t < 20);
    auto keep = (in_band || !(t != 0)) && (arange({8, 64}, 1) < n);
    store_global(global_view(out, {8, 64}), where(keep, t, -1000), {0, 0});
  }
};

inline void check_band_or_zeros(const Device& dev) {
  std::mt19937 rng(12);
  std::vector<int32_t> x(8 * 64);
  for (auto& v : x) v = int32_t(rng() % 81) - 40;
  for (size_t i = 0; i < x.size(); i += 7) x[i] = 0;
  Buffer<int32_t> dx(dev, x), out(dev, std::vector<int32_t>(x.size(), 77));
  const int n = 45;
  Kernel<BandOrZeros> band(dev);
  band(n, dx, out);
  const auto got = out.download();
  for (size_t i = 0; i < x.size(); ++i) {
    const bool keep = ((x[i] > -20 && x[i] < 20) || x[i] == 0) && int(i % 64) < n;
    EXPECT_EQ(got[i], keep ? x[i] : -1000) << i;
  }
}

}  // namespace tessel::testing
