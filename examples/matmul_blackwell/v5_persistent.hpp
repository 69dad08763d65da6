#pragma once

#include <functional>

#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// BlackwellMatmulV5 (named by the seeds; written here in their style): a persistent kernel on
// cluster launch control, with four roles.
//   warp 0, TMA:       loads the k-tiles of each tile into a ring of shared stages (tma_pipe);
//   warp 1, MMA:       accumulates each tile in one of `mma_stages` tensor-memory accumulators
//                      (mma_pipe), committing each k-step onto the stage it read;
//   warp 2, scheduler: asks the hardware to cancel the launch of a block that has not started
//                      (clc.try_cancel) and passes the response through a two-slot ring
//                      (sched_pipe): the block computes that block's tile itself;
//   warps 4–7, epilogue: read an accumulator in column slices, free it for the MMA warp's next
//                      tile, and store each slice with TMA through two alternating shared tiles.
// Every role walks the same tiles: the block's own, then each one a response hands over, until a
// response says no block was left to cancel. With two accumulators the epilogue of one tile runs
// while the next tile's mma fills the other.
struct BlackwellMatmulV5 : Script {
  int block_m = 128, block_n = 256, block_k = 64, tma_stages = 4, mma_stages = 2, e_block_n = 32;
  int swizzle_size = 8;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};
  static constexpr int sched_stages = 2;
  // Every thread of the four roles reads each response before its slot is reused.
  static constexpr int sched_readers = 32 + 32 + 32 + 128;

  static Space space() {
    return tune("block_n", &BlackwellMatmulV5::block_n, {256, 128}) *
           tune("tma_stages", &BlackwellMatmulV5::tma_stages, {4, 3, 5}) *
           tune("mma_stages", &BlackwellMatmulV5::mma_stages, {2, 1}) *
           tune("swizzle_size", &BlackwellMatmulV5::swizzle_size, {8, 4});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    Int32 num_m_blocks = cdiv(m_size, block_m);
    Int32 num_n_blocks = cdiv(n_size, block_n);
    // one block per tile; the blocks that start compute the tiles of those they cancel
    attrs.blocks = num_m_blocks * num_n_blocks;
    attrs.warps = 8;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_c = global_view(c_ptr, {m_size, n_size});
    auto s_a = shared_tensor<f16>({tma_stages, block_m, block_k});
    auto s_b = shared_tensor<f16>({tma_stages, block_n, block_k});
    auto s_c = shared_tensor<f16>({2, block_m, e_block_n});
    auto responses = shared_tensor<uint32_t>({sched_stages, 4});
    auto t_acc = tcgen05.alloc<float>({block_m, mma_stages * block_n});

    Pipeline tma_pipe(tma_stages);
    Pipeline mma_pipe(mma_stages, 1, 128);
    Pipeline sched_pipe(sched_stages, 1, sched_readers);
    TileRasterization rasterization(swizzle_size);

    // Runs `body` for every tile of this block, reading the scheduler's responses.
    auto for_each_tile = [&](const std::function<void(const Int32&, const Int32&)>& body) {
      Int32 tile = blockIdx.x;
      Var<bool> finished = false;
      while_([&] { return !finished; },
             [&] {
               auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
               body(m_block, n_block);
               sched_pipe.consumer_acquire();
               ClcResponse next = clc.query_response(responses[sched_pipe.consumer_stage]);
               finished = !next.is_canceled;
               tile = next.first_ctaid.x;
               mbarrier.arrive(sched_pipe.consumer_barrier());
               sched_pipe.consumer_advance();
             });
    };

    thread_group(0, 32, [&] {
      for_each_tile([&](const Int32& m_block, const Int32& n_block) {
        for (Int32 offset_k : range(0, k_size, block_k)) {
          tma_pipe.producer_acquire();
          single_thread([&] {
            mbarrier.arrive_and_expect_tx(tma_pipe.producer_barrier(), s_a[tma_pipe.producer_stage].nbytes() +
                                                                           s_b[tma_pipe.producer_stage].nbytes());
          });
          tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage], {m_block * block_m, offset_k},
                               tma_pipe.producer_barrier());
          tma.global_to_shared(g_b, s_b[tma_pipe.producer_stage], {n_block * block_n, offset_k},
                               tma_pipe.producer_barrier());
          tma_pipe.producer_advance();
        }
      });
    });

    thread_group(32, 32, [&] {
      for_each_tile([&](const Int32&, const Int32&) {
        mma_pipe.producer_acquire();  // the epilogue is done with this accumulator
        auto acc = tcgen05.slice(t_acc, {0, mma_pipe.producer_stage * block_n}, {block_m, block_n}, {0, 1});
        for (Int32 offset_k : range(0, k_size, block_k)) {
          tma_pipe.consumer_acquire();
          tcgen05.mma(s_a[tma_pipe.consumer_stage], s_b[tma_pipe.consumer_stage].transpose(), acc, offset_k != 0);
          tcgen05.commit(tma_pipe.consumer_barrier());
          tma_pipe.consumer_advance();
        }
        tcgen05.commit(mma_pipe.producer_barrier());  // the accumulator is ready once these mma are done
        mma_pipe.producer_advance();
      });
    });

    thread_group(64, 32, [&] {
      Var<bool> finished = false;
      while_([&] { return !finished; },
             [&] {
               sched_pipe.producer_acquire();
               // every reader of this slot's last response read it before the async proxy writes it again
               fence.proxy_async(ProxySpace::shared_cta);
               single_thread([&] {
                 mbarrier.arrive_and_expect_tx(sched_pipe.producer_barrier(), 16);
                 clc.try_cancel(responses[sched_pipe.producer_stage], sched_pipe.producer_barrier());
               });
               sched_pipe.producer_advance();
               // the scheduler reads each response too, to stop asking once one says no block was left
               sched_pipe.consumer_acquire();
               ClcResponse next = clc.query_response(responses[sched_pipe.consumer_stage]);
               finished = !next.is_canceled;
               mbarrier.arrive(sched_pipe.consumer_barrier());
               sched_pipe.consumer_advance();
             });
    });

    thread_group(128, 128, [&] {
      Int32 c_stage = 0;
      for_each_tile([&](const Int32& m_block, const Int32& n_block) {
        mma_pipe.consumer_acquire();
        for (Int32 e_offset_n : range(0, block_n, e_block_n)) {
          auto t_acc_slice =
              tcgen05.slice(t_acc, {0, mma_pipe.consumer_stage * block_n + e_offset_n}, {block_m, e_block_n}, {0, 1});
          auto r_acc = tcgen05.load(t_acc_slice);
          tcgen05.wait_load();
          // the store issued from this shared tile two slices ago has read it
          single_thread([&] { tma.wait_group(1, true); });
          sync();
          store_shared(s_c[c_stage], r_acc.to<f16>());
          fence.proxy_async(ProxySpace::shared_cta);
          sync();
          single_thread([&] {
            tma.shared_to_global(s_c[c_stage], g_c, {m_block * block_m, n_block * block_n + e_offset_n}, {0, 1});
            tma.commit_group();
          });
          c_stage = (c_stage + 1) % 2;
        }
        // every column of the accumulator is in registers: the MMA warp may overwrite it
        mbarrier.arrive(mma_pipe.consumer_barrier());
        mma_pipe.consumer_advance();
      });
      single_thread([&] { tma.wait_group(0); });
    });

    sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
