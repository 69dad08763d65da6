#pragma once

#include <utility>

#include "tessel/lib/pipeline.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// Seed 000, BlackwellMatmulV4: warp specialization (a TMA warp and an MMA warp) with the ring's
// bookkeeping in the Pipeline class, and tiles rasterized over a one-dimensional grid. The
// statements follow the seed's, one for one.
struct BlackwellMatmulV4 : Script {
  int block_m = 128, block_n = 64, block_k = 16, stages = 2, e_block_n = 16, swizzle_size = 1;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_m, block_n, e_block_n",
                {&BlackwellMatmulV4::block_m, &BlackwellMatmulV4::block_n, &BlackwellMatmulV4::e_block_n},
                {{128, 64, 16}, {128, 128, 16}, {128, 256, 16}}) *
           tune("block_k", &BlackwellMatmulV4::block_k, {16, 32, 64}) *
           tune("stages", &BlackwellMatmulV4::stages, {2, 3, 4}) *
           tune("swizzle_size", &BlackwellMatmulV4::swizzle_size, {1, 4, 8});
  }

  // Maps a linear block index to (m_block, n_block) with swizzle grouping: tiles of a group share
  // N columns, for L2 reuse of B. num_n_blocks is known at compile time, so the last group's width
  // is too.
  std::pair<Int32, Int32> compute_block_coord(const Int32& linear_idx, const Int32& num_m_blocks, int num_n_blocks) {
    Int32 tiles_per_group = num_m_blocks * swizzle_size;
    auto [group_idx, in_group_idx] = fast_divmod(linear_idx, tiles_per_group);
    Int32 first_n = group_idx * swizzle_size;
    Int32 m_block = 0;
    Int32 n_block = 0;
    // When num_n_blocks is divisible by swizzle_size, all groups are full and last_group_width is
    // never used; swizzle_size is a safe fallback that avoids a division by zero.
    int remainder = num_n_blocks - num_n_blocks / swizzle_size * swizzle_size;
    int last_group_width = remainder > 0 ? remainder : swizzle_size;
    if_(first_n + swizzle_size <= num_n_blocks, [&] {
      // full group: swizzle_size is a compile-time constant
      auto [q, r] = fast_divmod(in_group_idx, swizzle_size);
      m_block = q;
      n_block = first_n + r;
    }).else_([&] {
      // last group: its width, num_n_blocks % swizzle_size, is a compile-time constant too
      auto [q, r] = fast_divmod(in_group_idx, last_group_width);
      m_block = q;
      n_block = first_n + r;
    });
    return {std::move(m_block), std::move(n_block)};
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    Int32 num_m_blocks = cdiv(m_size, block_m);
    int num_n_blocks = cdiv(n_size, block_n);
    // 1D grid: tile rasterization maps linear index to 2D coordinates
    attrs.blocks = num_m_blocks * num_n_blocks;
    attrs.warps = 4;

    // tile rasterization: swizzle for better L2 cache reuse of B columns
    auto [m_block, n_block] = compute_block_coord(blockIdx.x, num_m_blocks, num_n_blocks);
    Int32 offset_m = m_block * block_m;
    Int32 offset_n = n_block * block_n;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_c = global_view(c_ptr, {m_size, n_size});
    auto s_a = shared_tensor<f16>({stages, block_m, block_k});
    auto s_b = shared_tensor<f16>({stages, block_n, block_k});
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});

    // Pipeline class encapsulates barrier/phase/stage management from V3
    Pipeline tma_pipe(stages);
    auto flush_barrier = mbarrier.alloc(1);

    thread_group(0, 32, [&] {
      for (Int32 offset_k : range(0, k_size, block_k, stages)) {
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
      for (Int32 offset_k : range(0, k_size, block_k, stages)) {
        tma_pipe.consumer_acquire();
        tcgen05.mma(s_a[tma_pipe.consumer_stage], s_b[tma_pipe.consumer_stage].transpose(), t_acc, offset_k != 0);
        tcgen05.commit(tma_pipe.consumer_barrier());
        tma_pipe.consumer_advance();
      }

      tcgen05.commit(flush_barrier);
      mbarrier.wait(flush_barrier, 0u);
    });

    sync();

    // TMA epilogue: tmem -> register -> shared -> global (via TMA)
    auto s_c = shared_tensor<f16>({block_m, e_block_n});
    for (Int32 e_offset_n : range(0, block_n, e_block_n)) {
      // slice a e_block_n-wide column from the accumulator
      auto t_acc_slice = tcgen05.slice(t_acc, {0, e_offset_n}, {block_m, e_block_n}, {0, 1});
      auto r_acc = tcgen05.load(t_acc_slice);
      tcgen05.wait_load();
      store_shared(s_c, r_acc.to<f16>());
      // fence: make generic-proxy writes visible to async-proxy (TMA)
      fence.proxy_async(ProxySpace::shared_cta);
      sync();
      single_warp([&] {
        // TMA bulk store from shared to global
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
