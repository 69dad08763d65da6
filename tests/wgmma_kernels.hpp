// wgmma kernels with host references: one warpgroup (or two) computing C = A Bᵀ with A [m, k]
// and B [n, k] K-major in f16/bf16 and C in f32, through shared memory (SS) or with A in
// registers (RS), and C = A B with B [k, n] MN-major. Run on the simulator by tests/wgmma_test.cpp
// and on the GPU by tests/gpu/wgmma_gpu_test.cpp.
#pragma once

#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// One block; `Warps` warps (whole warpgroups) compute the [M, N] tile over K. The operands reach
// shared memory by load_global + store_shared (A) and cp.async (B).
template <class T, int M, int N, int K, bool RegisterA, int Warps = 4> struct WgmmaTile : Script {
  void operator()(Ptr<T> a, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = Warps;
    auto s_a = shared_tensor<T>({M, K});
    auto s_b = shared_tensor<T>({N, K});
    store_shared(s_a, load_global(global_view(a, {M, K}), {0, 0}, {M, K}));
    copy_async(global_view(b, {N, K}), s_b, {0, 0});
    copy_async_wait_all();
    fence.proxy_async();  // the generic-proxy writes above, before wgmma reads them (async proxy)
    sync();
    auto acc = register_tensor<float>({M, N}, 0.0f);
    wgmma.fence();
    if constexpr (RegisterA) {
      auto r_a = load_shared(s_a);
      wgmma.fence();
      wgmma.mma(r_a, s_b.transpose(), acc);
    } else {
      wgmma.mma(s_a, s_b.transpose(), acc);
    }
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(c, {M, N}), acc, {0, 0});
  }
};

// C = A Bᵀ by an mma that does not accumulate (scale-d 0), into an accumulator holding 1000 before
// it: the old value must not reach C.
template <class T, int N, int K> struct WgmmaOverwrite : Script {
  void operator()(Ptr<T> a, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({64, K});
    auto s_b = shared_tensor<T>({N, K});
    copy_async(global_view(a, {64, K}), s_a, {0, 0});
    copy_async(global_view(b, {N, K}), s_b, {0, 0});
    copy_async_wait_all();
    fence.proxy_async();
    sync();
    auto acc = register_tensor<float>({64, N}, 1000.0f);
    wgmma.fence();
    wgmma.mma(s_a, s_b.transpose(), acc, false);
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(c, {64, N}), acc, {0, 0});
  }
};

// A two-stage pipeline over k, 16 columns a step: while the mma of one stage runs, the next stage
// is copied; wait_group(1) retires the mma of the stage about to be refilled, and the sync() after
// it does so for every warp (without it, another warp's mma may still read the stage).
template <class T, int N, int K, bool SyncAfterWait = true> struct WgmmaPipeline : Script {
  void operator()(Ptr<T> a, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto g_a = global_view(a, {64, K});
    auto g_b = global_view(b, {N, K});
    auto s_a = shared_tensor<T>({2, 64, 16});
    auto s_b = shared_tensor<T>({2, N, 16});
    auto acc = register_tensor<float>({64, N}, 0.0f);
    wgmma.fence();
    for (Int32 step : range(0, K / 16)) {
      Int32 stage = step % 2;
      copy_async(g_a, s_a[stage], {0, step * 16});
      copy_async(g_b, s_b[stage], {0, step * 16});
      copy_async_wait_all();
      fence.proxy_async();
      sync();
      wgmma.mma(s_a[stage], s_b[stage].transpose(), acc);
      wgmma.commit_group();
      wgmma.wait_group(1);
      if constexpr (SyncAfterWait) sync();
    }
    wgmma.wait_group(0);
    store_global(global_view(c, {64, N}), acc, {0, 0});
  }
};

// C = A B with B a row-major [K, N] tile read MN-major, straight from the layout it has in global
// memory (as attention's V is).
template <class T, int N, int K, bool RegisterA> struct WgmmaMnMajorB : Script {
  void operator()(Ptr<T> a, Ptr<T> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({64, K});
    auto s_b = shared_tensor<T>({K, N});
    copy_async(global_view(a, {64, K}), s_a, {0, 0});
    copy_async(global_view(b, {K, N}), s_b, {0, 0});
    copy_async_wait_all();
    fence.proxy_async();
    sync();
    auto acc = register_tensor<float>({64, N}, 0.0f);
    wgmma.fence();
    if constexpr (RegisterA) {
      auto r_a = load_shared(s_a);
      wgmma.fence();
      wgmma.mma(r_a, s_b, acc);
    } else {
      wgmma.mma(s_a, s_b, acc);
    }
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(c, {64, N}), acc, {0, 0});
  }
};

// Random operands in [-2, 2] rounded to T; the reference sums the exact products in double, so
// the only difference is the f32 accumulation. B is [N, K], or [K, N] when `b_mn_major`.
template <class Script, class T, int M, int N, int K>
void check_wgmma_kernel(const KernelOptions& options, uint64_t data_seed = 1, const Device& dev = Device::simulator(),
                        bool b_mn_major = false) {
  std::mt19937_64 rng(data_seed * 1000 + N);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<T> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(N * K));
  for (auto& x : a) x = T(dist(rng));
  for (auto& x : b) x = T(dist(rng));
  Buffer<T> da(dev, a), db(dev, b);
  Buffer<float> dc(dev, std::vector<float>(static_cast<size_t>(M * N), 1e9f));
  Kernel<Script> kernel(dev, options);
  kernel(da, db, dc);
  const std::vector<float> c = dc.download();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) {
        const T bkj = b_mn_major ? b[size_t(k) * N + j] : b[size_t(j) * K + k];
        want += double(float(a[size_t(i) * K + k])) * double(float(bkj));
      }
      ASSERT_NEAR(c[size_t(i) * N + j], want, 1e-4 * (1 + std::abs(want))) << "c[" << i << ", " << j << "]";
    }
}

template <class T, int M, int N, int K, bool RegisterA, int Warps = 4>
void check_wgmma_tile(const KernelOptions& options) {
  check_wgmma_kernel<WgmmaTile<T, M, N, K, RegisterA, Warps>, T, M, N, K>(options);
}

template <class T, int N, int K> void check_wgmma_overwrite(const KernelOptions& options, const Device& dev) {
  check_wgmma_kernel<WgmmaOverwrite<T, N, K>, T, 64, N, K>(options, 3, dev);
}

template <class T, int N, int K, bool RegisterA>
void check_wgmma_mn_major_b(const KernelOptions& options, const Device& dev = Device::simulator()) {
  check_wgmma_kernel<WgmmaMnMajorB<T, N, K, RegisterA>, T, 64, N, K>(options, 2, dev, true);
}

}  // namespace tessel::testing
