// tcgen05 kernels with host references: the seeds' V0 (cp.async into shared tiles, tcgen05.mma
// over k into tensor memory, commit, wait, load, store_global) computing C = A Bᵀ with A [m, k]
// and B [n, k] K-major in f16/bf16 and C in f32. Run on the simulator by tests/tcgen05_test.cpp.
#pragma once

#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "tessel/lib/pipeline.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// One block per [BlockM, BlockN] tile of C. With EpilogueN, the accumulator is read back in
// slices of EpilogueN columns, each loaded and waited for (the seeds' V2 epilogue).
template <class T, int BlockM, int BlockN, int BlockK, int EpilogueN = 0> struct Tcgen05Matmul : Script {
  void operator()(Int32 m_size, int n_size, int k_size, Ptr<T> a_ptr, Ptr<T> b_ptr, Ptr<float> c_ptr) {
    attrs.blocks = {cdiv(m_size, BlockM), cdiv(n_size, BlockN)};
    attrs.warps = 4;
    Int32 offset_m = BlockM * blockIdx.x;
    Int32 offset_n = BlockN * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto s_a = shared_tensor<T>({BlockM, BlockK});
    auto s_b = shared_tensor<T>({BlockN, BlockK});
    auto t_acc = tcgen05.alloc<float>({BlockM, BlockN});
    auto bars = mbarrier.alloc({1});
    Var<uint32_t> phase = 0u;
    sync();
    for (Int32 offset_k : range(0, k_size, BlockK)) {
      copy_async(g_a, s_a, {offset_m, offset_k});
      copy_async(g_b, s_b, {offset_n, offset_k});
      copy_async_wait_all();
      fence.proxy_async();  // the cp.async writes (generic proxy), before the tensor core reads them
      sync();
      single_warp([&] {
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);
        tcgen05.commit(bars[0]);
        mbarrier.wait(bars[0], phase);
      });
      sync();
      phase ^= 1u;
    }
    auto g_c = global_view(c_ptr, {m_size, n_size});
    if constexpr (EpilogueN == 0) {
      auto r_acc = tcgen05.load(t_acc);
      store_global(g_c, r_acc, {offset_m, offset_n});
    } else {
      for (int e_offset_n = 0; e_offset_n < BlockN; e_offset_n += EpilogueN) {
        auto t_slice = tcgen05.slice(t_acc, {0, e_offset_n}, {BlockM, EpilogueN}, {0, 1});
        auto r_acc = tcgen05.load(t_slice);
        tcgen05.wait_load();
        store_global(g_c, r_acc, {offset_m, offset_n + e_offset_n});
      }
    }
    sync();
    tcgen05.dealloc(t_acc);
  }
};

// The seeds' V4 without rasterization: warp 0 loads the stages by TMA, warp 1 issues the mma and
// commits each stage's release to its empty barrier, then commits a flush barrier that the
// epilogue waits for; all four warps read the accumulator back in slices.
template <class T, int BlockM, int BlockN, int BlockK, int Stages, int EpilogueN> struct Tcgen05WarpSpecialized
    : Script {
  void operator()(Int32 m_size, int n_size, int k_size, Ptr<T> a_ptr, Ptr<T> b_ptr, Ptr<float> c_ptr) {
    attrs.blocks = {cdiv(m_size, BlockM), cdiv(n_size, BlockN)};
    attrs.warps = 4;
    Int32 offset_m = BlockM * blockIdx.x;
    Int32 offset_n = BlockN * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_c = global_view(c_ptr, {m_size, n_size});
    auto s_a = shared_tensor<T>({Stages, BlockM, BlockK});
    auto s_b = shared_tensor<T>({Stages, BlockN, BlockK});
    auto t_acc = tcgen05.alloc<float>({BlockM, BlockN});
    Pipeline tma_pipe(Stages);
    auto flush_barrier = mbarrier.alloc({1});

    thread_group(0, 32, [&] {
      for (Int32 offset_k : range(0, k_size, BlockK, Stages)) {
        tma_pipe.producer_acquire();
        single_thread([&] {
          mbarrier.arrive_and_expect_tx(tma_pipe.producer_barrier(),
                                        s_a[tma_pipe.producer_stage].nbytes() + s_b[tma_pipe.producer_stage].nbytes());
        });
        tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage], {offset_m, offset_k}, tma_pipe.producer_barrier());
        tma.global_to_shared(g_b, s_b[tma_pipe.producer_stage], {offset_n, offset_k}, tma_pipe.producer_barrier());
        tma_pipe.producer_advance();
      }
    });

    thread_group(32, 32, [&] {
      for (Int32 offset_k : range(0, k_size, BlockK, Stages)) {
        tma_pipe.consumer_acquire();
        tcgen05.mma(s_a[tma_pipe.consumer_stage], s_b[tma_pipe.consumer_stage].transpose(), t_acc, offset_k != 0);
        tcgen05.commit(tma_pipe.consumer_barrier());
        tma_pipe.consumer_advance();
      }
      tcgen05.commit(flush_barrier[0]);
      mbarrier.wait(flush_barrier[0], 0u);
    });
    sync();

    for (int e_offset_n = 0; e_offset_n < BlockN; e_offset_n += EpilogueN) {
      auto t_slice = tcgen05.slice(t_acc, {0, e_offset_n}, {BlockM, EpilogueN}, {0, 1});
      auto r_acc = tcgen05.load(t_slice);
      tcgen05.wait_load();
      store_global(g_c, r_acc, {offset_m, offset_n + e_offset_n});
    }
    sync();
    tcgen05.dealloc(t_acc);
  }
};

// Random operands in [-2, 2] rounded to T; the reference sums the exact products in double, so
// the only difference is the f32 accumulation.
template <class Script, class T>
void check_tcgen05_matmul(const KernelOptions& options, int m, int n, int k, uint64_t data_seed = 1) {
  std::mt19937_64 rng(data_seed * 1000 + uint64_t(n));
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<T> a(size_t(m) * k), b(size_t(n) * k);
  for (auto& x : a) x = T(dist(rng));
  for (auto& x : b) x = T(dist(rng));
  const Device dev = Device::simulator();
  Buffer<T> da(dev, a), db(dev, b);
  Buffer<float> dc(dev, std::vector<float>(size_t(m) * n, 1e9f));
  Kernel<Script> kernel(dev, options);
  kernel(m, n, k, da, db, dc);
  const std::vector<float> c = dc.download();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int kk = 0; kk < k; ++kk)
        want += double(float(a[size_t(i) * k + kk])) * double(float(b[size_t(j) * k + kk]));
      ASSERT_NEAR(c[size_t(i) * n + j], want, 1e-4 * (1 + std::abs(want))) << "c[" << i << ", " << j << "]";
    }
}

}  // namespace tessel::testing
