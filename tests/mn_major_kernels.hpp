// Tensor-core mmas with MN-major operands, as attention's V and a transposed A lie in memory:
// wgmma with A the transpose of a row-major [K, 64] tile and B row-major [K, N] in 64-wide blocks
// (one copy per block, as TMA writes them box by box), and tcgen05.mma with A and B in blocks or B
// one span wide. C = A B against a host reference; tests/mn_major_test.cpp runs them on the
// simulator, tests/gpu/wgmma_gpu_test.cpp the wgmma ones on the GPU.
#pragma once

#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// The elements of one 128-byte swizzle span of a 16-bit type: the width of an operand's blocks.
inline constexpr int kSpan16 = 64;

// a_t is Aᵀ [K, 64] (so A is MN-major), b is B [K, N], c is C [64, N]. With RegisterA, A comes
// from registers instead, loaded from a K-major copy of it (a_t then holds A [64, K]).
template <class T, int N, int K, bool RegisterA> struct WgmmaMnMajorOperands : Script {
  void operator()(Ptr<T> a_t, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_b = shared_tensor<T>({N / kSpan16, K, kSpan16});
    for (int j = 0; j < N / kSpan16; ++j) copy_async(global_view(b, {K, N}), s_b[j], {0, j * kSpan16});
    auto acc = register_tensor<float>({64, N}, 0.0f);
    if constexpr (RegisterA) {
      auto s_a = shared_tensor<T>({64, K});
      copy_async(global_view(a_t, {64, K}), s_a, {0, 0});
      copy_async_wait_all();
      fence.proxy_async();
      sync();
      auto r_a = load_shared(s_a);
      wgmma.fence();
      wgmma.mma(r_a, s_b, acc);
    } else {
      auto s_a_t = shared_tensor<T>({K, 64});
      copy_async(global_view(a_t, {K, 64}), s_a_t, {0, 0});
      copy_async_wait_all();
      fence.proxy_async();
      sync();
      wgmma.fence();
      wgmma.mma(s_a_t.transpose(), s_b, acc);
    }
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(c, {64, N}), acc, {0, 0});
  }
};

// a_t is Aᵀ [K, 128] (A MN-major in two blocks), b is B [K, N] (MN-major: in blocks when
// BBlocks, else one span wide, N = 64), c is C [128, N].
template <class T, int N, int K, bool BBlocks> struct Tcgen05MnMajorOperands : Script {
  void operator()(Ptr<T> a_t, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({128 / kSpan16, K, kSpan16});
    for (int j = 0; j < 128 / kSpan16; ++j) copy_async(global_view(a_t, {K, 128}), s_a[j], {0, j * kSpan16});
    auto t_acc = tcgen05.alloc<float>({128, N});
    auto bars = mbarrier.alloc({1});
    auto mma = [&](const SharedTensor& s_b) {
      copy_async_wait_all();
      fence.proxy_async();
      sync();
      single_warp([&] {
        tcgen05.mma(s_a, s_b, t_acc, false);
        tcgen05.commit(bars[0]);
        mbarrier.wait(bars[0], 0u);
      });
    };
    if constexpr (BBlocks) {
      auto s_b = shared_tensor<T>({N / kSpan16, K, kSpan16});
      for (int j = 0; j < N / kSpan16; ++j) copy_async(global_view(b, {K, N}), s_b[j], {0, j * kSpan16});
      mma(s_b);
    } else {
      auto s_b = shared_tensor<T>({K, N});
      copy_async(global_view(b, {K, N}), s_b, {0, 0});
      mma(s_b);
    }
    sync();
    store_global(global_view(c, {128, N}), tcgen05.load(t_acc), {0, 0});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

// Runs `Script` on random operands in [-2, 2] rounded to T; A [M, K] is passed transposed unless
// `a_k_major`. The reference sums the exact products in double, so the only difference is the f32
// accumulation.
template <class Script, class T, int M, int N, int K>
void check_mn_major_mma(const KernelOptions& options, const Device& dev, bool a_k_major = false) {
  std::mt19937_64 rng(uint64_t(M * 1000 + N * 10 + K));
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<T> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
  for (auto& x : a) x = T(dist(rng));
  for (auto& x : b) x = T(dist(rng));
  Buffer<T> da(dev, a), db(dev, b);
  Buffer<float> dc(dev, std::vector<float>(static_cast<size_t>(M * N), 1e9f));
  Kernel<Script>(dev, options)(da, db, dc);
  const std::vector<float> c = dc.download();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) {
        const T aik = a_k_major ? a[size_t(i) * K + k] : a[size_t(k) * M + i];
        want += double(float(aik)) * double(float(b[size_t(k) * N + j]));
      }
      ASSERT_NEAR(c[size_t(i) * N + j], want, 1e-4 * (1 + std::abs(want))) << "c[" << i << ", " << j << "]";
    }
}

template <class T, int N, int K, bool RegisterA>
void check_wgmma_mn_major_operands(const KernelOptions& options, const Device& dev = Device::simulator()) {
  check_mn_major_mma<WgmmaMnMajorOperands<T, N, K, RegisterA>, T, 64, N, K>(options, dev, RegisterA);
}

}  // namespace tessel::testing
