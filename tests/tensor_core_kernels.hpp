// Tensor-core kernels with host references. Run on the simulator by tests/tensor_core_test.cpp
// and on the GPU by tests/gpu/tensor_core_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// C = A @ B + C0 on tensor cores (mma.sync m16n8k32) for 8-bit operands: A [m, k] row-major in
// `A`, B given as B^T [n, k] row-major (the "col" operand) in `B`; C0 and C [m, n] in `Acc`.
// Operands go through shared memory as in the ladder; no layout is written. With `Saturating`, the
// i32 sums clamp at the i32 limits after each k32 step (.satfinite) instead of wrapping.
template <class A, class B, class Acc, bool Saturating = false> struct DotThroughShared : Script {
  using a_type = A;
  using b_type = B;
  static constexpr bool saturating = Saturating;
  int block_m = 64, block_n = 64, block_k = 64;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "bt", "c0", "c"};
  void operator()(Int32 m, Int32 n, int k, Ptr<A> a, Ptr<B> bt, Ptr<Acc> c0, Ptr<Acc> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = 4;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_bt = global_view(bt, {n, k});
    auto s_a = shared_tensor<A>({block_m, block_k});
    auto s_bt = shared_tensor<B>({block_n, block_k});
    auto acc = load_global(global_view(c0, {m, n}), {offset_m, offset_n}, {block_m, block_n});
    for (Int32 offset_k : range(0, k, block_k)) {
      store_shared(s_a, load_global(g_a, {offset_m, offset_k}, {block_m, block_k}));
      store_shared(s_bt, load_global(g_bt, {offset_n, offset_k}, {block_n, block_k}));
      sync();
      if constexpr (Saturating)
        acc = dot(load_shared(s_a), load_shared(s_bt.transpose()), acc, saturate);
      else
        acc = dot(load_shared(s_a), load_shared(s_bt.transpose()), acc);  // the plain dot
      sync();
    }
    store_global(global_view(c, {m, n}), acc, {offset_m, offset_n});
  }
};

// Each of A and B i8 or u8, into i32.
template <class A, class B, bool Saturating = false> using IntegerDotOf = DotThroughShared<A, B, int32_t, Saturating>;

struct IntegerDot : IntegerDotOf<i8, i8> {};
struct SaturatingDot : IntegerDotOf<i8, u8, true> {};
// u8 activations with i8 weights (asymmetric quantization), and the other mixes.
struct UnsignedSignedDot : IntegerDotOf<u8, i8> {};
struct SignedUnsignedDot : IntegerDotOf<i8, u8> {};
struct UnsignedDot : IntegerDotOf<u8, u8> {};

// Random operands over the whole range of their types and accumulators near the i32 limits, so that
// some sums wrap around (mma.sync without .satfinite wraps modulo 2^32), or, saturating, clamp.
template <class S = IntegerDot> void check_integer_dot(const Device& device, int m, int n, int k, uint64_t seed) {
  using A = typename S::a_type;
  using B = typename S::b_type;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> a_byte(std::numeric_limits<A>::min(), std::numeric_limits<A>::max());
  std::uniform_int_distribution<int> b_byte(std::numeric_limits<B>::min(), std::numeric_limits<B>::max());
  std::uniform_int_distribution<int32_t> near_limit(INT32_MAX - 200000, INT32_MAX);
  std::vector<A> a(size_t(m) * k);
  std::vector<B> bt(size_t(n) * k);
  for (auto& x : a) x = A(a_byte(rng));
  for (auto& x : bt) x = B(b_byte(rng));
  std::vector<int32_t> c0(size_t(m) * n);
  for (size_t i = 0; i < c0.size(); ++i) c0[i] = i % 3 == 0 ? near_limit(rng) : i % 3 == 1 ? -near_limit(rng) : 0;
  Buffer<A> da(device, a);
  Buffer<B> dbt(device, bt);
  Buffer<int32_t> dc0(device, c0), dc(device, std::vector<int32_t>(size_t(m) * n, 0x5eed));
  Kernel<S> kernel(device);
  kernel(m, n, k, da, dbt, dc0, dc);
  const std::vector<int32_t> got = dc.download();
  int beyond = 0;  // sums that wrapped, or were clamped
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int64_t exact = c0[size_t(i) * n + j];
      for (int kk = 0; kk < k; ++kk) {
        exact += int64_t(a[size_t(i) * k + kk]) * bt[size_t(j) * k + kk];
        if (S::saturating && (kk + 1) % 32 == 0) {
          const int64_t limited = std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX);
          beyond += limited != exact;
          exact = limited;
        }
      }
      if (!S::saturating) beyond += exact != int64_t(int32_t(uint32_t(uint64_t(exact))));
      ASSERT_EQ(got[size_t(i) * n + j], int32_t(uint32_t(uint64_t(exact)))) << "element " << i << ", " << j;
    }
  EXPECT_GT(beyond, 0) << "the inputs should reach the i32 limits";
}

// Each of A and B e4m3 or e5m2, into f32 (mma.sync takes fp8 from sm_89).
template <class A, class B> using Fp8DotOf = DotThroughShared<A, B, float>;

struct Fp8Dot : Fp8DotOf<f8e4m3, f8e4m3> {};
struct Fp8MixedDot : Fp8DotOf<f8e5m2, f8e4m3> {};
// tf32 operands into f32 (mma.sync m16n8k8).
struct Tf32Dot : DotThroughShared<tf32, tf32, float> {};

// Operands of halves in [-2, 2] (exact in both fp8 formats) and accumulators of quarters, so that
// every product and partial sum is a multiple of 1/4 below 2^11: exact however the tensor cores
// round their sums, and comparable bit for bit.
template <class S = Fp8Dot> void check_fp8_dot(const Device& device, int m, int n, int k, uint64_t seed) {
  using A = typename S::a_type;
  using B = typename S::b_type;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> half_steps(-4, 4), quarter_steps(-400, 400);
  std::vector<A> a(size_t(m) * k);
  std::vector<B> bt(size_t(n) * k);
  for (auto& x : a) x = A(half_steps(rng) * 0.5f);
  for (auto& x : bt) x = B(half_steps(rng) * 0.5f);
  std::vector<float> c0(size_t(m) * n);
  for (float& x : c0) x = quarter_steps(rng) * 0.25f;
  Buffer<A> da(device, a);
  Buffer<B> dbt(device, bt);
  Buffer<float> dc0(device, c0), dc(device, std::vector<float>(size_t(m) * n, NAN));
  Kernel<S> kernel(device);
  kernel(m, n, k, da, dbt, dc0, dc);
  const std::vector<float> got = dc.download();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = c0[size_t(i) * n + j];
      for (int kk = 0; kk < k; ++kk) exact += double(float(a[size_t(i) * k + kk])) * float(bt[size_t(j) * k + kk]);
      ASSERT_EQ(got[size_t(i) * n + j], float(exact)) << "element " << i << ", " << j;
    }
}

// tf32 operands given as f32 data with every mantissa bit random, which the tensor cores read with
// the low 13 bits cleared: the reference clears them too, and sums in double; the f32 sums of k
// exact products are within k units of f32's last place of the sum of their magnitudes.
inline void check_tf32_dot(const Device& device, int m, int n, int k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  const auto random_words = [&](size_t count) {
    std::vector<tf32> v(count);
    for (tf32& x : v) x = tf32::from_bits(std::bit_cast<uint32_t>(dist(rng)));
    return v;
  };
  const std::vector<tf32> a = random_words(size_t(m) * k), bt = random_words(size_t(n) * k);
  std::vector<float> c0(size_t(m) * n);
  for (float& x : c0) x = dist(rng);
  Buffer<tf32> da(device, a), dbt(device, bt);
  Buffer<float> dc0(device, c0), dc(device, std::vector<float>(size_t(m) * n, NAN));
  Kernel<Tf32Dot> kernel(device);
  kernel(m, n, k, da, dbt, dc0, dc);
  const std::vector<float> got = dc.download();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = c0[size_t(i) * n + j], magnitude = std::abs(want);
      for (int kk = 0; kk < k; ++kk) {
        const double product = double(float(a[size_t(i) * k + kk])) * float(bt[size_t(j) * k + kk]);
        want += product;
        magnitude += std::abs(product);
      }
      ASSERT_LE(std::abs(got[size_t(i) * n + j] - want), (k + 1) * 0x1p-23 * magnitude) << "element " << i << ", " << j;
    }
}

// C = (A @ B^T) as f16, written to global memory through a shared tile (an epilogue): the f16
// accumulator fragments go to shared memory with stmatrix on sm_90+. With block_n = 40 the warps
// split 4x1 and each holds an odd number of n8 atoms (stmatrix.x2); with 64, 2x2 (stmatrix.x4).
struct EpilogueThroughShared : Script {
  int block_n = 64;
  static constexpr int block_m = 64, block_k = 32;
  void operator()(Ptr<f16> a, Ptr<f16> bt, Ptr<f16> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {block_m, block_k}), {0, 0}, {block_m, block_k});
    auto rbt = load_global(global_view(bt, {block_n, block_k}), {0, 0}, {block_n, block_k});
    auto s_bt = shared_tensor<f16>({block_n, block_k});
    store_shared(s_bt, rbt);
    sync();
    auto acc = dot(ra, load_shared(s_bt.transpose()), register_tensor<float>({block_m, block_n}, 0.0f));
    auto s_c = shared_tensor<f16>({block_m, block_n});
    store_shared(s_c, acc.to<f16>());
    sync();
    store_global(global_view(c, {block_m, block_n}), load_shared(s_c), {0, 0});
  }
};

struct EpilogueWithOddAtoms : EpilogueThroughShared {
  EpilogueWithOddAtoms() { block_n = 40; }
};

template <class S> void check_epilogue_through_shared(const Device& device, int n, uint64_t seed) {
  constexpr int m = EpilogueThroughShared::block_m, k = EpilogueThroughShared::block_k;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-4, 4);  // products and sums exact in f16
  std::vector<f16> a(m * k), bt(size_t(n) * k);
  for (auto& x : a) x = f16(float(small(rng)));
  for (auto& x : bt) x = f16(float(small(rng)));
  Buffer<f16> da(device, a), dbt(device, bt), dc(device, std::vector<f16>(size_t(m) * n, f16(NAN)));
  Kernel<S> kernel(device);
  kernel(da, dbt, dc);
  const std::vector<f16> got = dc.download();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk) want += float(a[i * k + kk]) * float(bt[size_t(j) * k + kk]);
      ASSERT_EQ(float(got[size_t(i) * n + j]), want) << "element " << i << ", " << j;
    }
}

}  // namespace tessel::testing
