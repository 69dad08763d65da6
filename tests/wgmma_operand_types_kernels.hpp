// wgmma with 8-bit operands and host references: 8-bit integers (s8, u8, either signedness each)
// into an s32 accumulator, fp8 with A in registers, and tf32. One block of `Warps` warps computes
// C = C0 + A Bᵀ (or A Bᵀ alone, without `Accumulate`) with A [M, K] and B [N, K] K-major, the
// accumulator starting from C0 as read from global memory; with `Saturating`, integer sums clamp at
// the s32 limits after each k32 instruction (.satfinite). Run on the simulator by
// tests/wgmma_operand_types_test.cpp and on the GPU by tests/gpu/wgmma_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

template <class A, class B, class Acc, int M, int N, int K, bool RegisterA, bool Accumulate = true, int Warps = 4,
          bool Saturating = false>
struct WgmmaTypedTile : Script {
  void operator()(Ptr<A> a, Ptr<B> b, Ptr<Acc> c) {
    attrs.blocks = 1;
    attrs.warps = Warps;
    auto s_a = shared_tensor<A>({M, K});
    auto s_b = shared_tensor<B>({N, K});
    copy_async(global_view(a, {M, K}), s_a, {0, 0});
    copy_async(global_view(b, {N, K}), s_b, {0, 0});
    copy_async_wait_all();
    fence.proxy_async();  // the generic-proxy writes above, before wgmma reads them (async proxy)
    sync();
    auto g_c = global_view(c, {M, N});
    auto acc = load_global(g_c, {0, 0}, {M, N});
    wgmma.fence();
    if constexpr (RegisterA) {
      auto r_a = load_shared(s_a);
      wgmma.fence();
      if constexpr (Saturating)
        wgmma.mma(r_a, s_b.transpose(), acc, Accumulate, saturate);
      else
        wgmma.mma(r_a, s_b.transpose(), acc, Accumulate);
    } else if constexpr (Saturating) {
      wgmma.mma(s_a, s_b.transpose(), acc, Accumulate, saturate);
    } else {
      wgmma.mma(s_a, s_b.transpose(), acc, Accumulate);
    }
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(g_c, acc, {0, 0});
  }
};

// Integers over their type's whole range, floats in [-4, 4] rounded to the type; tf32 as f32 words
// with every mantissa bit random, which the tensor cores read with the low 13 cleared.
template <class T> std::vector<T> random_operand(size_t count, std::mt19937_64& rng) {
  std::vector<T> v(count);
  if constexpr (std::is_same_v<T, tf32>) {
    std::uniform_real_distribution<float> dist(-4, 4);
    for (T& x : v) x = tf32::from_bits(std::bit_cast<uint32_t>(dist(rng)));
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    for (T& x : v) x = T(dist(rng));
  } else {
    std::uniform_real_distribution<float> dist(-4, 4);
    for (T& x : v) x = T(dist(rng));
  }
  return v;
}

// Integer accumulators start within 2^22 of the s32 limits, so that many sums wrap (a row of 128
// products of u8 values reaches 2^23); the reference wraps modulo 2^32 as the hardware does without
// .satfinite, or, `Saturating`, clamps at the limits after each k32 instruction, and some sums must
// then have been clamped. f32 accumulators start in [-100, 100]; the reference sums exact products in double,
// within a thousandth of the sum of their magnitudes.
template <class A, class B, class Acc, int M, int N, int K, bool RegisterA, bool Accumulate = true, int Warps = 4,
          bool Saturating = false>
void check_wgmma_types(const KernelOptions& options, uint64_t seed, const Device& dev = Device::simulator()) {
  std::mt19937_64 rng(seed);
  const std::vector<A> a = random_operand<A>(size_t(M) * K, rng);
  const std::vector<B> b = random_operand<B>(size_t(N) * K, rng);
  std::vector<Acc> c0(static_cast<size_t>(M) * N);
  if constexpr (std::is_integral_v<Acc>) {
    std::uniform_int_distribution<int32_t> near(0, 1 << 22);
    for (Acc& x : c0)
      x = rng() % 2 ? std::numeric_limits<int32_t>::max() - near(rng) : std::numeric_limits<int32_t>::min() + near(rng);
  } else {
    std::uniform_real_distribution<float> dist(-100, 100);
    for (Acc& x : c0) x = dist(rng);
  }
  Buffer<A> da(dev, a);
  Buffer<B> db(dev, b);
  Buffer<Acc> dc(dev, c0);
  Kernel<WgmmaTypedTile<A, B, Acc, M, N, K, RegisterA, Accumulate, Warps, Saturating>> kernel(dev, options);
  kernel(da, db, dc);
  const std::vector<Acc> c = dc.download();
  int clamped = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const size_t at = size_t(i) * N + j;
      if constexpr (std::is_integral_v<Acc>) {
        int64_t want = Accumulate ? c0[at] : 0;
        for (int k = 0; k < K; ++k) {
          want += int64_t(a[size_t(i) * K + k]) * b[size_t(j) * K + k];
          if (Saturating && (k + 1) % 32 == 0) {
            const int64_t limited = std::clamp<int64_t>(want, INT32_MIN, INT32_MAX);
            clamped += limited != want;
            want = limited;
          }
        }
        ASSERT_EQ(c[at], int32_t(uint32_t(uint64_t(want)))) << "c[" << i << ", " << j << "]";
      } else {
        double want = Accumulate ? c0[at] : 0, magnitude = std::abs(want);
        for (int k = 0; k < K; ++k) {
          const double product = double(float(a[size_t(i) * K + k])) * double(float(b[size_t(j) * K + k]));
          want += product;
          magnitude += std::abs(product);
        }
        // fp8 products are summed at less than f32's precision on the GPU (hw-semantics.md §4.1);
        // tf32 products, exact in f32, in f32: within K + 1 units of its last place of the magnitudes.
        const double tolerance = std::is_same_v<A, tf32> ? (K + 1) * 0x1p-23 * magnitude : 1e-3 * (1 + magnitude);
        ASSERT_NEAR(c[at], want, tolerance) << "c[" << i << ", " << j << "]";
      }
    }
  if (Saturating) EXPECT_GT(clamped, 0) << "the inputs should reach the s32 limits";
}

}  // namespace tessel::testing
