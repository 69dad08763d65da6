#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// BlackwellMatmulV1 (named by the seeds; written here in their style): V0 with TMA. One stage:
// each k-step one thread announces the tile bytes on the TMA barrier and a warp issues the two
// TMA loads onto it; the same warp waits for them, issues the mma and waits for its commit. The
// epilogue goes tensor memory → registers → shared memory → global memory with TMA stores, one
// slice of e_block_n columns at a time, as V2 does.
struct BlackwellMatmulV1 : Script {
  int block_m = 128, block_n = 64, block_k = 16, e_block_n = 16;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_m, block_n, e_block_n",
                {&BlackwellMatmulV1::block_m, &BlackwellMatmulV1::block_n, &BlackwellMatmulV1::e_block_n},
                {{128, 64, 16}, {128, 128, 16}, {128, 256, 16}}) *
           tune("block_k", &BlackwellMatmulV1::block_k, {16, 32, 64});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto s_a = shared_tensor<f16>({block_m, block_k});
    auto s_b = shared_tensor<f16>({block_n, block_k});

    auto t_acc = tcgen05.alloc<float>({block_m, block_n});

    // one barrier for the TMA loads, one for the mma
    auto tma_barrier = mbarrier.alloc({1});
    auto mma_barrier = mbarrier.alloc({1});
    UInt32 tma_phase = 0u;
    UInt32 mma_phase = 0u;

    sync();

    for (Int32 offset_k : range(0, k_size, block_k)) {
      single_warp([&] {
        single_thread([&] { mbarrier.arrive_and_expect_tx(tma_barrier[0], s_a.nbytes() + s_b.nbytes()); });
        tma.global_to_shared(g_a, s_a, {offset_m, offset_k}, tma_barrier[0]);
        tma.global_to_shared(g_b, s_b, {offset_n, offset_k}, tma_barrier[0]);
        // wait for the tiles, then compute on them
        mbarrier.wait(tma_barrier[0], tma_phase, WaitSemantics::acquire, WaitScope::cta);
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);
        tcgen05.commit(mma_barrier[0]);
        // the tiles are free for the next loads once the mma is done
        mbarrier.wait(mma_barrier[0], mma_phase, WaitSemantics::acquire, WaitScope::cta);
      });
      tma_phase ^= 1u;
      mma_phase ^= 1u;
      sync();
    }

    // TMA epilogue: tmem -> register -> shared -> global (via TMA)
    auto g_c = global_view(c_ptr, {m_size, n_size});
    auto s_c = shared_tensor<f16>({block_m, e_block_n});
    for (Int32 e_offset_n : range(0, block_n, e_block_n)) {
      auto t_acc_slice = tcgen05.slice(t_acc, {0, e_offset_n}, {block_m, e_block_n}, {0, 1});
      auto r_acc = tcgen05.load(t_acc_slice);
      tcgen05.wait_load();
      store_shared(s_c, r_acc.to<f16>());
      fence.proxy_async(ProxySpace::shared_cta);
      sync();
      single_warp([&] {
        tma.shared_to_global(s_c, g_c, {offset_m, offset_n + e_offset_n}, {0, 1});
        tma.commit_group();
        tma.wait_group(0, true);
      });
      sync();
    }

    sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
