#pragma once

#include <functional>

#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// BlackwellMatmulV6 (named by the seeds; written here in their style): V5 on block pairs. Each
// cluster of two blocks computes a 256 x block_n tile with one cta_group::2 mma per k-step, which
// the even block issues for both:
//   - each block loads its 128 rows of A and its block_n / 2 rows of B into its own stages, and
//     both blocks' loads complete on the even block's full barrier, which announces the bytes of
//     both;
//   - the mma reads both blocks' halves and writes each block's 128 rows of the tile into that
//     block's tensor memory; its commits multicast to both blocks, so each block's TMA warp refills
//     a stage once the mma that read it is done, and each block's epilogue stores its rows once
//     the tile is done;
//   - the even block's scheduler asks for the next cluster, and the response lands in both blocks.
// Every consumer of a pipeline whose producer is the even block (the epilogues, the readers of
// responses) arrives on the even block's barrier.
struct BlackwellMatmulV6 : Script {
  int block_m = 256, block_n = 256, block_k = 64, tma_stages = 5, mma_stages = 2, e_block_n = 32;
  int swizzle_size = 8;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};
  static constexpr int sched_stages = 2;
  // Every thread of the four roles, in both blocks, reads each response before its slot is reused.
  static constexpr int sched_readers = 2 * (32 + 32 + 32 + 128);
  // Both blocks' epilogues are done with an accumulator before the mma overwrites it.
  static constexpr int epilogue_threads = 2 * 128;

  static Space space() {
    return tune("block_n, e_block_n", {&BlackwellMatmulV6::block_n, &BlackwellMatmulV6::e_block_n},
                {{256, 32}, {256, 16}, {128, 32}}) *
           tune("tma_stages", &BlackwellMatmulV6::tma_stages, {5, 6, 4}) *
           tune("swizzle_size", &BlackwellMatmulV6::swizzle_size, {8, 4, 16});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    Int32 num_m_blocks = cdiv(m_size, block_m);
    Int32 num_n_blocks = cdiv(n_size, block_n);
    // a pair of blocks per tile; the pairs that start compute the tiles of those they cancel
    attrs.blocks = num_m_blocks * num_n_blocks * 2;
    attrs.cluster = {2};
    attrs.warps = 8;

    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_c = global_view(c_ptr, {m_size, n_size});
    // each block's half of the pair's operands: 128 rows of A, block_n / 2 rows of B
    auto s_a = shared_tensor<f16>({tma_stages, block_m / 2, block_k});
    auto s_b = shared_tensor<f16>({tma_stages, block_n / 2, block_k});
    auto s_c = shared_tensor<f16>({2, block_m / 2, e_block_n});
    auto responses = shared_tensor<uint32_t>({sched_stages, 4});
    // each block's 128 rows of the pair's accumulators
    auto t_acc = tcgen05.alloc<float>({block_m / 2, mma_stages * block_n}, CtaGroup::two);

    // the blocks of a pair arrive on and land bytes for each other's barriers: cluster-scope waits
    Pipeline tma_pipe(tma_stages, 1, 1, WaitScope::cluster);
    Pipeline mma_pipe(mma_stages, 1, epilogue_threads, WaitScope::cluster);
    Pipeline sched_pipe(sched_stages, 1, sched_readers, WaitScope::cluster);
    TileRasterization rasterization(swizzle_size);
    auto rank = cluster.blockRank;
    // both blocks hold the pair's tensor memory before the even block's mma writes it
    cluster.sync();

    // Runs `body` for every tile of this pair, reading the scheduler's responses.
    auto for_each_tile = [&](const std::function<void(const Int32&, const Int32&)>& body) {
      Int32 tile = cluster.clusterIdx.x;
      Var<bool> finished = false;
      while_([&] { return !finished; },
             [&] {
               auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
               body(m_block, n_block);
               sched_pipe.consumer_acquire();
               ClcResponse next = clc.query_response(responses[sched_pipe.consumer_stage]);
               finished = !next.is_canceled;
               tile = next.first_ctaid.x / 2;
               mbarrier.arrive(sched_pipe.consumer_barrier().remote(0));
               sched_pipe.consumer_advance();
             });
    };

    thread_group(0, 32, [&] {
      for_each_tile([&](const Int32& m_block, const Int32& n_block) {
        for (Int32 offset_k : range(0, k_size, block_k)) {
          tma_pipe.producer_acquire();  // the pair's mma is done with this block's stage
          if_(rank == 0, [&] {
            single_thread([&] {
              mbarrier.arrive_and_expect_tx(tma_pipe.producer_barrier(), 2 * (s_a[tma_pipe.producer_stage].nbytes() +
                                                                              s_b[tma_pipe.producer_stage].nbytes()));
            });
          });
          tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage], {m_block * block_m + rank * (block_m / 2), offset_k},
                               tma_pipe.producer_barrier().remote(0));
          tma.global_to_shared(g_b, s_b[tma_pipe.producer_stage], {n_block * block_n + rank * (block_n / 2), offset_k},
                               tma_pipe.producer_barrier().remote(0));
          tma_pipe.producer_advance();
        }
      });
    });

    thread_group(32, 32, [&] {
      for_each_tile([&](const Int32&, const Int32&) {
        if_(rank == 0, [&] {
          mma_pipe.producer_acquire();  // both epilogues are done with this accumulator
          auto acc = tcgen05.slice(t_acc, {0, mma_pipe.producer_stage * block_n}, {block_m / 2, block_n}, {0, 1});
          for (Int32 offset_k : range(0, k_size, block_k)) {
            tma_pipe.consumer_acquire();
            tcgen05.mma(s_a[tma_pipe.consumer_stage], s_b[tma_pipe.consumer_stage].transpose(), acc, offset_k != 0);
            tcgen05.commit(tma_pipe.consumer_barrier(), Multicast{0b11});  // frees the stage in both blocks
            tma_pipe.consumer_advance();
          }
          tcgen05.commit(mma_pipe.producer_barrier(), Multicast{0b11});  // fills the accumulator of both
          mma_pipe.producer_advance();
        });
      });
    });

    thread_group(64, 32, [&] {
      Var<bool> finished = false;
      while_([&] { return !finished; },
             [&] {
               if_(rank == 0, [&] {
                 sched_pipe.producer_acquire();
                 // every reader of this slot's last response read it before the async proxy writes it again
                 fence.proxy_async(ProxySpace::shared_cta);
                 single_thread([&] {
                   for (int peer = 0; peer < 2; ++peer)
                     mbarrier.arrive_and_expect_tx(sched_pipe.producer_barrier().remote(peer), 16);
                   clc.try_cancel(responses[sched_pipe.producer_stage], sched_pipe.producer_barrier(), Multicast{0b11});
                 });
                 sched_pipe.producer_advance();
               });
               // the schedulers read each response too, to stop once one says no cluster was left
               sched_pipe.consumer_acquire();
               ClcResponse next = clc.query_response(responses[sched_pipe.consumer_stage]);
               finished = !next.is_canceled;
               mbarrier.arrive(sched_pipe.consumer_barrier().remote(0));
               sched_pipe.consumer_advance();
             });
    });

    thread_group(128, 128, [&] {
      Int32 c_stage = 0;
      for_each_tile([&](const Int32& m_block, const Int32& n_block) {
        mma_pipe.consumer_acquire();
        for (Int32 e_offset_n : range(0, block_n, e_block_n)) {
          auto t_acc_slice = tcgen05.slice(t_acc, {0, mma_pipe.consumer_stage * block_n + e_offset_n},
                                           {block_m / 2, e_block_n}, {0, 1});
          auto r_acc = tcgen05.load(t_acc_slice);
          tcgen05.wait_load();
          // the store issued from this shared tile two slices ago has read it
          single_thread([&] { tma.wait_group(1, true); });
          sync();
          store_shared(s_c[c_stage], r_acc.to<f16>());
          fence.proxy_async(ProxySpace::shared_cta);
          sync();
          single_thread([&] {
            tma.shared_to_global(s_c[c_stage], g_c,
                                 {m_block * block_m + rank * (block_m / 2), n_block * block_n + e_offset_n}, {0, 1});
            tma.commit_group();
          });
          c_stage = (c_stage + 1) % 2;
        }
        // every column of this block's rows is in registers: the pair's mma may overwrite them
        mbarrier.arrive(mma_pipe.consumer_barrier().remote(0));
        mma_pipe.consumer_advance();
      });
      single_thread([&] { tma.wait_group(0); });
    });

    // neither block ends, nor frees the pair's tensor memory, while the other may still reach it
    cluster.sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
