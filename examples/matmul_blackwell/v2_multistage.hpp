#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// Seed 004, BlackwellMatmulV2: a ring of `stages` shared stages. The kernel prefills stages - 1
// of them; each iteration then loads a future k-tile into the next free stage while the mma works
// on the current one. The statements follow the seed's, one for one.
struct BlackwellMatmulV2 : Script {
  int block_m = 128, block_n = 64, block_k = 16, stages = 2, e_block_n = 16;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_m, block_n, e_block_n",
                {&BlackwellMatmulV2::block_m, &BlackwellMatmulV2::block_n, &BlackwellMatmulV2::e_block_n},
                {{128, 64, 16}, {128, 128, 16}, {128, 256, 16}}) *
           tune("block_k", &BlackwellMatmulV2::block_k, {16, 32, 64}) *
           tune("stages", &BlackwellMatmulV2::stages, {2, 3, 4});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    // multi-stage shared memory: leading dimension indexes the pipeline stage
    auto s_a = shared_tensor<f16>({stages, block_m, block_k});
    auto s_b = shared_tensor<f16>({stages, block_n, block_k});

    auto t_acc = tcgen05.alloc<float>({block_m, block_n});

    // one TMA barrier per stage
    auto tma_barriers = mbarrier.alloc(std::vector<int>(stages, 1));
    auto mma_barrier = mbarrier.alloc(1);
    // per-role phase: tracks the expected phase for the next wait
    UInt32 tma_phase = 0u;
    UInt32 mma_phase = 0u;

    // prefill: issue TMA loads for the first (stages - 1) tiles without waiting
    for (Int32 i : range(stages - 1)) {
      Int32 offset_k = i * block_k;
      single_warp([&] {
        single_thread([&] { mbarrier.arrive_and_expect_tx(tma_barriers[i], s_a[i].nbytes() + s_b[i].nbytes()); });
        tma.global_to_shared(g_a, s_a[i], {offset_m, offset_k}, tma_barriers[i]);
        tma.global_to_shared(g_b, s_b[i], {offset_n, offset_k}, tma_barriers[i]);
      });
    }

    sync();

    Int32 current_stage = 0;
    Int32 preload_stage = stages - 1;

    // unroll by stages so the compiler can resolve stage indices to constants
    for (Int32 offset_k : range(0, k_size, block_k, stages)) {
      single_warp([&] {
        // preload: issue TMA for a future tile into the next free stage
        Int32 preload_offset_k = offset_k + (stages - 1) * block_k;
        single_thread([&] {
          mbarrier.arrive_and_expect_tx(tma_barriers[preload_stage],
                                        s_a[preload_stage].nbytes() + s_b[preload_stage].nbytes());
        });
        tma.global_to_shared(g_a, s_a[preload_stage], {offset_m, preload_offset_k}, tma_barriers[preload_stage]);
        tma.global_to_shared(g_b, s_b[preload_stage], {offset_n, preload_offset_k}, tma_barriers[preload_stage]);
        // wait for the current stage's TMA data to arrive
        mbarrier.wait(tma_barriers[current_stage], tma_phase, WaitSemantics::acquire, WaitScope::cta);
        // compute on the current stage
        tcgen05.mma(s_a[current_stage], s_b[current_stage].transpose(), t_acc, offset_k != 0);
        tcgen05.commit(mma_barrier);
        mbarrier.wait(mma_barrier, mma_phase, WaitSemantics::acquire, WaitScope::cta);
      });

      // advance stage indices (ring buffer); flip phase when wrapping to stage 0
      preload_stage = (preload_stage + 1) % stages;
      current_stage = (current_stage + 1) % stages;
      tma_phase ^= current_stage == 0;
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
