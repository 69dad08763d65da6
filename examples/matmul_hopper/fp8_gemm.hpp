#pragma once

#include <algorithm>
#include <optional>
#include <type_traits>

#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// How MatmulFp8 scales its products, and what its scale parameters are.
struct TensorScales {};  // two f32 scalars, one per operand
struct RowScales {};     // f32 vectors: scale_a [m] (per token), scale_b [n] (per output channel)
struct BlockScales {};   // DeepSeek-V3's fine-grained scales, below

// An fp8 GEMM in the structure of the Hopper ladder's step 5: D = scale_a · scale_b · A Bᵀ, with A
// [m, k] and B [n, k] in fp8 (A and B each e4m3 or e5m2), f32 accumulation and D [m, n] in `Out`
// (bf16 or f16), per-tensor scales; with RowScales, D[i][j] is scaled by scale_a[i] · scale_b[j]
// (activations quantized per token, weights per channel, as vLLM's and PyTorch's rowwise scaled GEMMs
// take them); with BlockScales, DeepSeek-V3's fine-grained scales. With 8-bit integer operands (i8 or
// u8 each) it is an int8 GEMM: the products are summed exactly in an s32 accumulator, whose f32 value
// the per-tensor or row scales then scale (SmoothQuant's W8A8).
//
// wgmma reads 8-bit operands K-major only (it transposes 16-bit types alone), so both A and B keep
// k contiguous, as cuBLASLt's fp8 and int8 GEMMs also require ("TN"). One k-tile is 128 elements: a
// 128-byte row, the widest swizzle span. The grid is persistent over rasterized tiles; a TMA
// producer warp fills a ring of stages that two consumer warpgroups (64 rows of every 128 each)
// drain with m64nNk32 wgmma; each tile's accumulator is scaled, converted, written to a shared
// tile by 64-column blocks and stored with TMA while the next tile's loads are under way.
//
// RowScales: a tile's scales are read from global memory by the consumers after their last k-tile's
// mma is issued, so that the loads' latency hides under it.
//
// BlockScales: A has a scale per row and 128 columns (activations quantized 1 x 128), stored M-major
// as cuBLASLt and DeepGEMM take them ([cdiv(k, 128), m] f32, m a multiple of 4 so that its rows
// are whole 16-byte units for TMA), B one per 128 x 128 block ([cdiv(n, 128), cdiv(k, 128)]:
// weights), and the kernel takes pointers to them instead of two per-tensor scales. A k-tile's A
// scales come with its stage, one more TMA box, so the consumers read them from shared memory. Each
// k-tile's product goes to a fresh f32 tile (written by the mma without accumulating, so it needs
// no zeroing), which is scaled by its row's A scale times the block's B scale and added to the
// accumulator: the promotion to f32 that DeepGEMM does, here every k-tile, so no more than 128
// products are summed at the tensor cores' fp8 accumulation precision. The next k-tile's B scale
// loads while the mma runs. The tile is 128 (or 64) x 128, so that one B scale covers it; the two
// consumer warpgroups, each waiting for its own mma, promote while the other's runs.
template <class A, class B = A, class Out = bf16, class Scaling = TensorScales> struct MatmulFp8 : Script {
  static constexpr bool block_scaled = std::is_same_v<Scaling, BlockScales>;
  static constexpr bool row_scaled = std::is_same_v<Scaling, RowScales>;
  int block_m = 128, block_n = 256, block_k = 128;
  int stages = 3;
  int swizzle_size = 4;
  int consumer_warpgroups = 2;
  // The 128-column chunks of k a stage holds, consecutive in each row: with 2, every row's read is
  // 256 contiguous bytes, which DRAM serves faster than 128-byte pieces of rows 16 KB apart (k =
  // 16384), so a few rows, whose time is B's read, go faster. The block-scaled form keeps one: its
  // scales cover 128 columns.
  int k_chunks = 1;
  static constexpr const char* param_names[] = {"m", "n", "k", "scale_a", "scale_b", "a", "b", "d"};
  // B's dimensions are a model's weights', few and fixed, and the tiles they make decide the best
  // configuration: tuned for each value, the rows of A per power-of-two bucket.
  static constexpr const char* exact_sizes[] = {"n", "k"};

  // The first candidate is the configuration above: 3 stages of 128 x 256 and the output tile fill
  // shared memory; 128 x 128 tiles leave room for 6 (5 beside the block scales). The last ones,
  // one consumer warpgroup of 64 rows, are for a few rows (decode), where 128-row tiles leave most
  // multiprocessors without a tile; 4 stages of two chunks each hold as many bytes as 8 of one, and
  // 112 columns make 128 tiles of 64 x 112 over n = 7168 for 132 multiprocessors where 128 make 112.
  MatmulFp8() {
    if (block_scaled) {
      block_n = 128;
      stages = 5;
    }
  }
  static Space space() {
    using S = MatmulFp8;
    if (block_scaled)
      return tune("swizzle_size", &S::swizzle_size, {4, 8}) * tune("block_m, consumer_warpgroups, stages",
                                                                   {&S::block_m, &S::consumer_warpgroups, &S::stages},
                                                                   {{128, 2, 5}, {64, 1, 8}});
    return tune("swizzle_size", &S::swizzle_size, {4, 8}) *
           tune("block_m, consumer_warpgroups, block_n, stages, k_chunks",
                {&S::block_m, &S::consumer_warpgroups, &S::block_n, &S::stages, &S::k_chunks},
                {{128, 2, 256, 3, 1}, {128, 2, 128, 6, 1}, {64, 1, 128, 8, 1}, {64, 1, 128, 4, 2}, {64, 1, 112, 4, 2}});
  }
  static constexpr bool integer = std::is_integral_v<A>;
  static_assert(std::is_integral_v<B> == integer && !(integer && block_scaled),
                "A and B are both fp8 or both 8-bit integers, and block scales are for fp8");
  using Accumulator = std::conditional_t<integer, int32_t, float>;
  static_assert(std::is_same_v<Scaling, TensorScales> || row_scaled || block_scaled,
                "Scaling is TensorScales, RowScales or BlockScales");
  using Scales = std::conditional_t<std::is_same_v<Scaling, TensorScales>, Float32, Ptr<float>>;
  static constexpr int scale_block = 128;  // the columns (and B's rows) one block scale covers

  static constexpr int producer_registers = 40;
  // Columns of one epilogue block: 128 bytes of 16-bit elements, the widest row a swizzled TMA box
  // has; a tile of other widths (112 columns) is one block, whose swizzle the compiler chooses.
  static constexpr int epilogue_n = 64;
  int epilogue_columns() const { return block_n % epilogue_n == 0 ? epilogue_n : block_n; }
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 m, Int32 n, Int32 k, Scales scale_a, Scales scale_b, Ptr<A> a, Ptr<B> b, Ptr<Out> d) {
    Int32 num_m_blocks = cdiv(m, block_m);
    Int32 num_n_blocks = cdiv(n, block_n);
    Int32 num_tiles = num_m_blocks * num_n_blocks;
    attrs.blocks = min(num_tiles, multiprocessors);
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;

    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto g_d = global_view(d, {m, n});
    auto s_a = shared_tensor<A>({stages, k_chunks, block_m, block_k});
    auto s_b = shared_tensor<B>({stages, k_chunks, block_n, block_k});
    const int epilogue_columns = this->epilogue_columns();
    const std::vector<Dim> epilogue_shape = {block_n / epilogue_columns, block_m, epilogue_columns};
    auto s_d = epilogue_columns == epilogue_n ? shared_tensor<Out>(epilogue_shape, Swizzle::b128)
                                              : shared_tensor<Out>(epilogue_shape);
    // Block scales: A's scales of a k-tile's rows come with its stage (scale_a is [k / 128, m]).
    std::optional<GlobalTensor> g_scale_a;
    std::optional<SharedTensor> s_scales;
    if constexpr (block_scaled) {
      if (k_chunks != 1)
        throw Error("fp8_gemm_block_scaled: k_chunks must be 1; a stage's scales cover 128 columns of k");
      require(m % 4 == 0, "m must be a multiple of 4: TMA reads A's scales [k / 128, m] in rows of whole 16 bytes");
      g_scale_a = global_view(scale_a, {cdiv(k, scale_block), m});
      s_scales = shared_tensor<float>({stages, 1, block_m}, Swizzle::none);
    }
    Pipeline tma_pipe(stages, 1, consumer_threads);
    TileRasterization rasterization(swizzle_size);

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        for (Int32 tile : range(blockIdx.x, num_tiles, gridDim.x)) {
          auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
          for (Int32 offset_k : range(0, k, block_k * k_chunks, stages)) {
            tma_pipe.producer_acquire();
            const int64_t scale_bytes = s_scales ? (*s_scales)[0].nbytes() : 0;
            single_thread([&] {
              mbarrier.arrive_and_expect_tx(
                  tma_pipe.producer_barrier(),
                  s_a[tma_pipe.producer_stage].nbytes() + s_b[tma_pipe.producer_stage].nbytes() + scale_bytes);
            });
            for (int c = 0; c < k_chunks; ++c)
              tma.global_to_shared(g_a, s_a[tma_pipe.producer_stage][c], {m_block * block_m, offset_k + c * block_k},
                                   tma_pipe.producer_barrier());
            if (s_scales)
              tma.global_to_shared(*g_scale_a, (*s_scales)[tma_pipe.producer_stage],
                                   {offset_k / scale_block, m_block * block_m}, tma_pipe.producer_barrier());
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
      Int32 k_tiles = cdiv(k, block_k * k_chunks);
      for (Int32 tile : range(blockIdx.x, num_tiles, gridDim.x)) {
        auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
        auto acc = register_tensor<Accumulator>({block_m, block_n}, 0);
        std::optional<RegisterTensor> token_scales, channel_scales;  // RowScales: [block_m, 1] and [1, block_n]
        if constexpr (block_scaled) {
          auto g_scale_b = global_view(scale_b, {cdiv(n, scale_block), cdiv(k, scale_block)});
          auto b_scale_of = [&](const Int32& i) { return load_global(g_scale_b, {n_block, i}, {1, 1}); };
          auto b_scale = b_scale_of(0);
          auto partial = register_tensor<float>({block_m, block_n}, 0.0f);
          // Unrolled by the stages: the B scale loaded for the next k-tile then takes other registers
          // than the one in use, instead of a copy at the back edge that waits for the load.
          for (Int32 i : range(0, k_tiles, 1, stages)) {
            tma_pipe.consumer_acquire();
            wgmma.fence();
            wgmma.mma(s_a[tma_pipe.consumer_stage][0], s_b[tma_pipe.consumer_stage][0].transpose(), partial, false);
            wgmma.commit_group();
            // While the mma runs: this k-tile's A scales from its stage, and the next k-tile's B
            // scale (a last extra load past k is masked).
            auto a_scales = load_shared((*s_scales)[tma_pipe.consumer_stage].transpose(), {0, 0}, {block_m, 1});
            auto next_b_scale = b_scale_of(i + 1);
            wgmma.wait_group(0);
            mbarrier.arrive(tma_pipe.consumer_barrier());
            acc = fma(partial, a_scales * b_scale, acc);
            b_scale = next_b_scale;
            tma_pipe.consumer_advance();
          }
        } else {
          for (Int32 i : range(0, k_tiles, 1, stages)) {
            tma_pipe.consumer_acquire();
            wgmma.fence();
            for (int c = 0; c < k_chunks; ++c)
              wgmma.mma(s_a[tma_pipe.consumer_stage][c], s_b[tma_pipe.consumer_stage][c].transpose(), acc);
            wgmma.commit_group();
            // The mma of k-tile i - 1 is retired, so its stage, the one before, is consumed.
            wgmma.wait_group(1);
            if_(i > 0,
                [&] { mbarrier.arrive(tma_pipe.empty_barriers[(tma_pipe.consumer_stage + stages - 1) % stages]); });
            tma_pipe.consumer_advance();
          }
          if constexpr (row_scaled) {
            token_scales = load_global(global_view(scale_a, {m, 1}), {m_block * block_m, 0}, {block_m, 1});
            channel_scales = load_global(global_view(scale_b, {1, n}), {0, n_block * block_n}, {1, block_n});
          }
          wgmma.wait_group(0);
          if_(k_tiles > 0,
              [&] { mbarrier.arrive(tma_pipe.empty_barriers[(tma_pipe.consumer_stage + stages - 1) % stages]); });
        }
        // The previous tile's store has read s_d before anyone overwrites it.
        single_thread([&] { tma.wait_group(0, true); });
        sync();
        auto out = [&] {
          RegisterTensor sums = integer ? acc.template to<float>() : acc;
          if constexpr (block_scaled)
            return sums.template to<Out>();
          else if constexpr (row_scaled)
            return (sums * *token_scales * *channel_scales).template to<Out>();
          else
            return (sums * (scale_a * scale_b)).template to<Out>();
        }();
        for (int j = 0; j < block_n / epilogue_columns; ++j)
          store_shared(s_d[j], out.slice({0, j * epilogue_columns}, {block_m, epilogue_columns}));
        fence.proxy_async();
        sync();
        single_thread([&] {
          for (int j = 0; j < block_n / epilogue_columns; ++j)
            tma.shared_to_global(s_d[j], g_d, {m_block * block_m, n_block * block_n + j * epilogue_columns});
          tma.commit_group();
        });
      }
      single_thread([&] { tma.wait_group(0); });
    });
  }
};

}  // namespace tessel::examples::hopper
