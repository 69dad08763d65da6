#pragma once

#include <algorithm>

#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// Step 4 of the Hopper ladder: step 3 with the ring's bookkeeping in seed 000's Pipeline class,
// and the tiles rasterized as seed 000 does it: the grid is one-dimensional, and consecutive
// blocks walk down the M tiles of a group of `swizzle_size` N columns, so that a wave of blocks
// shares A rows and B columns in L2. The divisions by grid constants use fast_divmod.
template <class T = f16> struct MatmulV4PipelineClass : Script {
  int block_m = 128, block_n = 256, block_k = 64;
  int stages = 4;
  int swizzle_size = 4;
  int consumer_warpgroups = 2;  // each runs the mma of its 64 rows of every 128
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // The first candidate is the configuration above.
  static Space space() {
    return tune("swizzle_size", &MatmulV4PipelineClass::swizzle_size, {4, 1, 8}) *
           tune("block_n", &MatmulV4PipelineClass::block_n, {256, 128}) *
           tune("stages", &MatmulV4PipelineClass::stages, {4, 3});
  }

  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<T> a, Ptr<T> b, Ptr<T> c) {
    Int32 num_m_blocks = cdiv(m, block_m);
    Int32 num_n_blocks = cdiv(n, block_n);
    attrs.blocks = num_m_blocks * num_n_blocks;
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;

    TileRasterization rasterization(swizzle_size);
    auto [m_block, n_block] = rasterization.compute_block_coord(blockIdx.x, num_m_blocks, num_n_blocks);
    Int32 offset_m = m_block * block_m;
    Int32 offset_n = n_block * block_n;

    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({stages, block_m, block_k});
    auto s_b = shared_tensor<T>({stages, block_n, block_k});
    Pipeline tma_pipe(stages, 1, consumer_threads);
    Int32 k_tiles = cdiv(k, block_k);

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        for (Int32 offset_k : range(0, k, block_k, stages)) {
          tma_pipe.producer_acquire();
          single_thread([&] {
            mbarrier.arrive_and_expect_tx(tma_pipe.producer_barrier(), s_a[tma_pipe.producer_stage].nbytes() +
                                                                           s_b[tma_pipe.producer_stage].nbytes());
          });
          tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage], {offset_m, offset_k}, tma_pipe.producer_barrier());
          tma.global_to_shared(g_b, s_b[tma_pipe.producer_stage], {offset_n, offset_k}, tma_pipe.producer_barrier());
          tma_pipe.producer_advance();
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
      for (Int32 i : range(0, k_tiles, 1, stages)) {
        tma_pipe.consumer_acquire();
        wgmma.fence();
        wgmma.mma(s_a[tma_pipe.consumer_stage], s_b[tma_pipe.consumer_stage].transpose(), acc);
        wgmma.commit_group();
        // The mma of k-tile i - 1 is retired, so its stage, the one before, is consumed.
        wgmma.wait_group(1);
        if_(i > 0, [&] { mbarrier.arrive(tma_pipe.empty_barriers[(tma_pipe.consumer_stage + stages - 1) % stages]); });
        tma_pipe.consumer_advance();
      }
      wgmma.wait_group(0);
      store_global(global_view(c, {m, n}), acc.to<T>(), {offset_m, offset_n});
    });
  }
};

}  // namespace tessel::examples::hopper
