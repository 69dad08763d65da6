#pragma once

#include <algorithm>
#include <optional>

#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/split_k.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/lib/tma_store_epilogue.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// Step 5 of the Hopper ladder: step 4 made persistent, with a TMA-store epilogue.
//
// The grid has one block per multiprocessor (fewer when there are fewer tiles); each block walks
// the rasterized tiles blockIdx.x, blockIdx.x + gridDim.x, ... Both roles walk the same tiles and
// the ring runs on across them, so the producer loads the next tile's first stages while the
// consumers finish the current one. The two consumer warpgroups (64 rows of every 128 each) write
// their accumulator to a shared tile (stmatrix for 16-bit outputs), fence it for the async proxy, and one thread
// stores it with TMA; the next tile waits for that store to have read the tile only when it is
// about to overwrite it (TmaStoreEpilogue, tessel/lib/tma_store_epilogue.hpp).
//
// Split-K, for shapes with fewer tiles than multiprocessors (decode: a few rows, many columns):
// with split_k = s, each tile's k-tiles are cut into s ranges, and the blocks walk (tile, range)
// units instead of tiles, whose partials a SplitKReduction sums in range order (so the sum does not
// depend on which unit finishes last) before the tile is written.
//
// Swapped operands, for a few rows: with swap_ab = 1 the mma computes the tile's transpose,
// B's block_n rows as its M and A's block_m rows as its N (which may be 16), so the stages hold
// no rows that do not exist. The epilogue stores the accumulator's transpose straight from
// registers; the output tile is a few rows, so its stores are few.
//
// T is the operands' type and Out the output's: f16 or bf16 both, or tf32 operands (f32 data as the
// tensor cores read it) into an f32 output. A k-tile is 128 bytes of each row, the widest swizzle
// span: 64 columns of 16-bit elements, 32 of tf32.
template <class T = f16, class Out = T> struct MatmulV5Persistent : Script {
  int block_m = 128, block_n = 256, block_k = 128 / int(sizeof(T));
  int stages = 3;
  int swizzle_size = 4;
  int consumer_warpgroups = 2;
  int split_k = 1;
  int swap_ab = 0;
  // The k-tiles (128 bytes of each row) a stage holds, consecutive in each row: with 2, every row of B is read
  // 256 contiguous bytes at a time instead of 128, which DRAM serves faster when B's rows are far
  // apart and its read is the kernel's time (a few rows, docs/performance.md "Decode shapes").
  int k_chunks = 1;
  // The output tile leaves shared memory in this many passes (TmaStoreEpilogue): an f32 tile of 128
  // x 256 staged whole would leave no room for the stages, so f32 outputs take two.
  int epilogue_passes = sizeof(Out) == 4 ? 2 : 1;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // The first candidate is the configuration above; 3 stages of 128 x 256 and the output tile fill
  // shared memory, and 128 x 128 tiles leave room for 5. 112 columns make 128 tiles of 14336
  // columns for 132 multiprocessors, where 128 make 112. The last ones are for a few rows (decode):
  // one consumer warpgroup of 64 rows computes fewer rows that do not exist, and its smaller A stage
  // leaves room for more stages in flight; swapped operands give the stages to B alone, and with
  // stages of two chunks of k, B's rows are read 256 bytes at a time (16 rows: 0.93x to 1.00-1.02x
  // cuBLAS at 16 x 14336 x 4096 on an H200 with swapped operands; on an H100, 0.96-0.98x with 10
  // stages of one chunk and 1.00-1.01x with 5 of two, docs/performance.md).
  // Split-K is not tuned: on the H200 it is slower at every shape measured (docs/performance.md,
  // "Decode shapes"). A kernel built from a script object asks for it (split_k = 2, block_n = 128:
  // the unit that finishes a tile needs registers for a partial tile besides its own, which only
  // 128-column tiles leave).
  // tf32 (an f32 output, twice the bytes of a 16-bit one) stages 128 x 256 tiles in halves or
  // quarters beside 3 or 4 stages, and leaves out the candidates whose output tile does not fit.
  static Space space() {
    using S = MatmulV5Persistent;
    const Space swizzles = tune("swizzle_size", &S::swizzle_size, {4, 1, 8});
    if constexpr (sizeof(T) == 4)
      return swizzles *
             tune("block_m, consumer_warpgroups, block_n, stages, epilogue_passes, swap_ab",
                  {&S::block_m, &S::consumer_warpgroups, &S::block_n, &S::stages, &S::epilogue_passes, &S::swap_ab},
                  {{128, 2, 256, 3, 2, 0},
                   {128, 2, 256, 4, 4, 0},
                   {128, 2, 128, 5, 1, 0},
                   {128, 2, 128, 4, 1, 0},
                   {64, 1, 128, 8, 1, 0},
                   {16, 1, 128, 10, 1, 1},
                   {16, 2, 128, 11, 1, 1}});
    return swizzles * tune("block_m, consumer_warpgroups, block_n, stages, swap_ab, k_chunks",
                           {&S::block_m, &S::consumer_warpgroups, &S::block_n, &S::stages, &S::swap_ab, &S::k_chunks},
                           {{128, 2, 256, 3, 0, 1},
                            {128, 2, 128, 5, 0, 1},
                            {128, 2, 128, 4, 0, 1},
                            {128, 2, 112, 6, 0, 1},
                            {64, 1, 128, 8, 0, 1},
                            {64, 1, 112, 9, 0, 1},
                            {16, 1, 128, 10, 1, 1},
                            {16, 1, 128, 5, 1, 2},
                            {16, 2, 128, 11, 1, 1}});
  }

  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<T> a, Ptr<T> b, Ptr<Out> c) {
    if (swap_ab && split_k != 1) throw Error("MatmulV5Persistent: swap_ab = 1 takes split_k = 1");
    if (k_chunks < 1) throw Error(fmt::format("MatmulV5Persistent: k_chunks must be at least 1, not {}", k_chunks));
    Int32 num_m_blocks = cdiv(m, block_m);
    Int32 num_n_blocks = cdiv(n, block_n);
    Int32 num_tiles = num_m_blocks * num_n_blocks;
    Int32 num_units = num_tiles * split_k;
    attrs.blocks = min(num_units, multiprocessors);
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;

    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto g_c = global_view(c, {m, n});
    auto s_a = shared_tensor<T>({stages, k_chunks, block_m, block_k});
    auto s_b = shared_tensor<T>({stages, k_chunks, block_n, block_k});
    // The output tile's shared copy, for the TMA-store epilogue (swapped operands store from registers).
    std::optional<TmaStoreEpilogue<Out>> epilogue;
    if (!swap_ab) epilogue = TmaStoreEpilogue<Out>(block_m, block_n, epilogue_passes);
    Pipeline tma_pipe(stages, 1, consumer_threads);
    TileRasterization rasterization(swizzle_size);
    const int stage_k = block_k * k_chunks;  // the columns of k one stage holds
    Int32 k_tiles = cdiv(k, stage_k);
    // The k-tiles of one unit: split s of a tile takes [s * split_tiles, (s + 1) * split_tiles).
    Int32 split_tiles = cdiv(k_tiles, split_k);

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        for (Int32 unit : range(blockIdx.x, num_units, gridDim.x)) {
          auto [m_block, n_block] = rasterization.compute_block_coord(unit / split_k, num_m_blocks, num_n_blocks);
          Int32 k_begin = unit % split_k * split_tiles * stage_k;
          for (Int32 offset_k : range(k_begin, min(k, k_begin + split_tiles * stage_k), stage_k, stages)) {
            tma_pipe.producer_acquire();
            single_thread([&] {
              mbarrier.arrive_and_expect_tx(tma_pipe.producer_barrier(), s_a[tma_pipe.producer_stage].nbytes() +
                                                                             s_b[tma_pipe.producer_stage].nbytes());
            });
            for (int c = 0; c < k_chunks; ++c)
              tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage][c], {m_block * block_m, offset_k + c * block_k},
                                   tma_pipe.producer_barrier());
            for (int c = 0; c < k_chunks; ++c)
              tma.global_to_shared(g_b, s_b[tma_pipe.producer_stage][c], {n_block * block_n, offset_k + c * block_k},
                                   tma_pipe.producer_barrier());
            tma_pipe.producer_advance();
          }
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      for (Int32 unit : range(blockIdx.x, num_units, gridDim.x)) {
        Int32 tile = unit / split_k;
        auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
        Int32 split = unit % split_k;
        Int32 unit_k_tiles = max(0, min(k_tiles, (split + 1) * split_tiles) - split * split_tiles);
        auto acc = swap_ab ? register_tensor<float>({block_n, block_m}, 0.0f)
                           : register_tensor<float>({block_m, block_n}, 0.0f);
        for (Int32 i : range(0, unit_k_tiles, 1, stages)) {
          tma_pipe.consumer_acquire();
          wgmma.fence();
          for (int c = 0; c < k_chunks; ++c)
            if (swap_ab)
              wgmma.mma(s_b[tma_pipe.consumer_stage][c], s_a[tma_pipe.consumer_stage][c].transpose(), acc);
            else
              wgmma.mma(s_a[tma_pipe.consumer_stage][c], s_b[tma_pipe.consumer_stage][c].transpose(), acc);
          wgmma.commit_group();
          // The mma of k-tile i - 1 is retired, so its stage, the one before, is consumed.
          wgmma.wait_group(1);
          if_(i > 0,
              [&] { mbarrier.arrive(tma_pipe.empty_barriers[(tma_pipe.consumer_stage + stages - 1) % stages]); });
          tma_pipe.consumer_advance();
        }
        wgmma.wait_group(0);
        if_(unit_k_tiles > 0,
            [&] { mbarrier.arrive(tma_pipe.empty_barriers[(tma_pipe.consumer_stage + stages - 1) % stages]); });
        if (swap_ab) {
          store_global(g_c, permute(acc, {1, 0}).to<Out>(), {m_block * block_m, n_block * block_n});
        } else if (split_k == 1) {
          epilogue->store(acc, g_c, m_block * block_m, n_block * block_n);
        } else {
          SplitKReduction reduction(split_k, m, n, num_tiles);
          reduction.reduce(acc, tile, split, m_block * block_m, n_block * block_n,
                           [&] { epilogue->store(acc, g_c, m_block * block_m, n_block * block_n); });
        }
      }
      if (epilogue) epilogue->finish();
    });
  }
};

}  // namespace tessel::examples::hopper
