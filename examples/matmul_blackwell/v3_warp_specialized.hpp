#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// BlackwellMatmulV3 (named by the seeds; written here in their style): warp specialization with
// hand-managed barriers. Warp 0 issues the TMA loads into a ring of stages, waiting on each
// stage's "empty" barrier; warp 1 waits on its "full" barrier, issues the mma and commits onto
// the "empty" barrier, so the hardware frees the stage when the mma that reads it is done. Each
// side flips its phase when its stage index wraps. V4 moves this bookkeeping into the Pipeline
// class and adds tile rasterization.
struct BlackwellMatmulV3 : Script {
  int block_m = 128, block_n = 64, block_k = 16, stages = 2, e_block_n = 16;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_m, block_n, e_block_n",
                {&BlackwellMatmulV3::block_m, &BlackwellMatmulV3::block_n, &BlackwellMatmulV3::e_block_n},
                {{128, 64, 16}, {128, 128, 16}, {128, 256, 16}}) *
           tune("block_k", &BlackwellMatmulV3::block_k, {16, 32, 64}) *
           tune("stages", &BlackwellMatmulV3::stages, {2, 3, 4});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_c = global_view(c_ptr, {m_size, n_size});
    auto s_a = shared_tensor<f16>({stages, block_m, block_k});
    auto s_b = shared_tensor<f16>({stages, block_n, block_k});
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});

    // per stage: "empty" (the mma is done with it) and "full" (its tiles landed)
    auto empty_barriers = mbarrier.alloc(std::vector<int>(stages, 1));
    auto full_barriers = mbarrier.alloc(std::vector<int>(stages, 1));
    auto flush_barrier = mbarrier.alloc({1});

    thread_group(0, 32, [&] {
      Int32 stage = 0;
      UInt32 phase = mbarrier.producer_initial_phase;
      for (Int32 offset_k : range(0, k_size, block_k, stages)) {
        mbarrier.wait(empty_barriers[stage], phase, WaitSemantics::acquire, WaitScope::cta);
        single_thread(
            [&] { mbarrier.arrive_and_expect_tx(full_barriers[stage], s_a[stage].nbytes() + s_b[stage].nbytes()); });
        tma.global_to_shared(g_a, s_a[stage], {offset_m, offset_k}, full_barriers[stage]);
        tma.global_to_shared(g_b, s_b[stage], {offset_n, offset_k}, full_barriers[stage]);
        stage = (stage + 1) % stages;
        phase ^= stage == 0;
      }
    });

    thread_group(32, 32, [&] {
      Int32 stage = 0;
      UInt32 phase = mbarrier.consumer_initial_phase;
      for (Int32 offset_k : range(0, k_size, block_k, stages)) {
        mbarrier.wait(full_barriers[stage], phase, WaitSemantics::acquire, WaitScope::cta);
        tcgen05.mma(s_a[stage], s_b[stage].transpose(), t_acc, offset_k != 0);
        tcgen05.commit(empty_barriers[stage]);
        stage = (stage + 1) % stages;
        phase ^= stage == 0;
      }

      tcgen05.commit(flush_barrier[0]);
      mbarrier.wait(flush_barrier[0], 0u);
    });

    sync();

    // TMA epilogue: tmem -> register -> shared -> global (via TMA)
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
