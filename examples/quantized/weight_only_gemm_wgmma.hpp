#pragma once

#include <algorithm>
#include <optional>

#include "dequantize_units.hpp"
#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/split_k.hpp"
#include "tessel/lib/stream_k.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/tessel.hpp"
#include "wgmma_weight_units.hpp"

namespace tessel::examples::quantized {

// The weight-only GEMM on Hopper (sm_90a): the GEMM of weight_only_gemm.hpp, with the same
// parameters and the same repacked weights, on wgmma. wgmma reads its B operand from shared memory
// only, so the kernel computes Yᵀ = W Xᵀ: the weights, dequantized in registers, are the A operand
// (RS wgmma, as CUTLASS's mixed-input GEMMs for Hopper and vLLM's Machete do), and a tile of X is B,
// K-major as it lies in memory. The runs of the repacked units are the A fragments as they are
// (wgmma_weight_units.hpp). Act is the type of the activations, the scales and zero points and the
// output: f16, or bf16 (whose weights dequantize under bf16's exponent, docs/performance.md).
//
// The structure is the Hopper ladder's step 5: a persistent grid over rasterized tiles, a TMA
// producer warp filling a ring with each k-tile of 128 (one quantization group): X as two 64-column
// blocks (a 128-byte swizzle span each), the block's units and their scales, each one contiguous run
// of memory; and `consumer_warpgroups` consumer warpgroups of 64 rows of W each, which dequantize
// their k-tile's weights and run 8 m64nNk16 wgmma with N = block_m rows of X. The warpgroups' mma
// and dequantization overlap each other's. Each tile's accumulator is stored transposed.
//
// At decode sizes the same structure streams the weights: X's few rows are the wgmma's N (16, with
// no rows of padding beyond), one thread issues every copy, and the ring holds up to 12 k-tiles.
// The tiles of W's rows are then too few for the multiprocessors, so the k range of each may be
// split over `split_k` work items, whose partials a SplitKReduction sums (tessel/lib/split_k.hpp),
// or all the tiles' k-tiles shared out equally among the blocks (`stream_k`, tessel/lib/stream_k.hpp),
// and within a block over its consumer warpgroups, which then all take the same rows and hand their
// partials over through shared memory (`interleave_k`).
template <class W, class Act = f16> struct WeightOnlyGemmWgmma : Script {
  int block_m = 128;  // rows of X per tile: the wgmma's N
  int consumer_warpgroups = 2;
  // The 64-row blocks of W each consumer warpgroup takes: two give each k-tile's dequantization and
  // mma twice the independent work between the same waits.
  int row_blocks = 1;
  int swizzle_size = 8;
  int split_k = 1;
  // Whether the k-tiles of every tile are shared out in equal runs among the blocks (StreamK), so
  // that no multiprocessor idles where whole tiles or split_k's items do not divide among them
  // (112 tiles of 128 rows on 132).
  int stream_k = 0;
  // Stream-K takes whole tiles; its partials are [blocks, 2, block_m, 128 or more] in f32, which
  // it keeps to tiles of few rows of X.
  bool stream_k_fits() const { return !stream_k || (split_k == 1 && block_m <= 64); }
  // Whether each warpgroup dequantizes the next k-tile while its mma runs (a second A operand live).
  int overlap = 0;
  // Whether each tile's output is stored by TMA from shared memory (else by each thread, transposed).
  int epilogue_tma = 0;
  // Whether each k-tile's product of the unscaled weights (q - zero) goes to a fresh f32 tile,
  // which the rows' scales then scale into the accumulator: one multiply per accumulator element
  // instead of one per weight, far fewer where X has few rows (decode).
  int promote = 0;
  // The slices of k that each k-tile's dequantization and mma are cut into (1 or 2, and a divisor
  // of the weights' bits, so that a slice is whole words): the mma of one slice runs while the
  // warpgroup dequantizes the next.
  int k_slices = 1;
  // Whether k_slices fits the other members: halves are whole words of even widths, and the
  // overlapped form dequantizes whole k-tiles.
  bool k_slices_fit() const { return k_slices == 1 || (k_slices == 2 && bits % 2 == 0 && !overlap); }
  // Whether the consumer warpgroups share each tile's rows and take its k-tiles in turn (warpgroup q
  // of c the k-tiles q, q + c, ...), their partials summed through shared memory at the tile's end:
  // k split within a block, without split-K's reduction through global memory.
  int interleave_k = 0;
  // Interleaving takes several warpgroups, each of which dequantizes only its own k-tiles.
  bool interleave_k_fits() const { return !interleave_k || (consumer_warpgroups > 1 && !overlap); }
  // Whether the kernel is a programmatic dependent of the kernel before it (docs/language.md,
  // "Programmatic dependent launch"): the weights and scales of the ring's first lap load before
  // its grid_dependency.wait(), while that kernel may still run, and X, which that kernel may have
  // written (a model's previous layer), after it. Only for weights that no kernel that may still
  // run writes (not right after their repack), so it is asked for, not tuned.
  int early_weights = 0;
  static constexpr int group = WeightUnits::depth;  // the k-tile: one scale and zero point
  static constexpr int bits = dtype_bits(dtype_v<W>);
  static constexpr const char* param_names[] = {"m", "n", "k", "x", "units", "unit_scales", "y"};
  // W's dimensions are a model's, few and fixed, and the tiles they make decide the best split:
  // tuned for each value, the rows of X per power-of-two bucket.
  static constexpr const char* exact_sizes[] = {"n", "k"};

  // Many rows take tiles of 256 or 128 rows of X, their output stored by each thread or through
  // shared memory by TMA; 64 rows, tiles of 64, whole or split over 2 or 4 items of k (4096 columns
  // of W make 32 tiles of 128 for 132 multiprocessors); decode sizes, 16 rows (or 8, which halves the
  // wgmma's N and X's stage for up to 8 rows), whole or split over 2 to 8 items of k, with two
  // consumer warpgroups of one or two 64-row blocks or four of one, each dequantizing its next
  // k-tile during its mma or not, or two to four on the same rows taking the k-tiles in turn, and
  // the scales applied to the weights or to each k-tile's product; where a k-tile is not
  // overlapped with the next and the weights' bits are even, its two halves dequantized and
  // multiplied in turn or not. Stream-K is not tuned: on the H200 it is slower at every decode
  // shape measured (docs/performance.md, "Stream-K at decode sizes"); a kernel built from a script
  // object asks for it.
  static Space space() {
    using S = WeightOnlyGemmWgmma;
    const Space space =
        tune("block_m, split_k, consumer_warpgroups, row_blocks, overlap, epilogue_tma, promote, interleave_k",
             {&S::block_m, &S::split_k, &S::consumer_warpgroups, &S::row_blocks, &S::overlap, &S::epilogue_tma,
              &S::promote, &S::interleave_k},
             {{256, 1, 2, 1, 0, 0, 0, 0}, {256, 1, 2, 1, 0, 1, 0, 0}, {128, 1, 2, 1, 0, 0, 0, 0},
              {128, 1, 2, 1, 0, 1, 0, 0}, {64, 1, 2, 1, 0, 0, 0, 0},  {64, 1, 2, 1, 1, 0, 0, 0},
              {64, 2, 2, 1, 0, 0, 0, 0},  {64, 1, 2, 1, 0, 0, 1, 0},  {16, 1, 2, 1, 0, 0, 1, 0},
              {16, 2, 2, 1, 0, 0, 0, 0},  {16, 2, 2, 1, 1, 0, 0, 0},  {16, 4, 2, 1, 0, 0, 0, 0},
              {16, 4, 2, 1, 1, 0, 0, 0},  {16, 8, 2, 1, 0, 0, 0, 0},  {16, 2, 4, 1, 0, 0, 0, 0},
              {16, 2, 4, 1, 1, 0, 0, 0},  {16, 4, 4, 1, 0, 0, 0, 0},  {16, 4, 4, 1, 1, 0, 0, 0},
              {16, 2, 2, 1, 0, 0, 1, 0},  {16, 4, 2, 1, 0, 0, 1, 0},  {16, 2, 4, 1, 0, 0, 1, 0},
              {16, 4, 4, 1, 0, 0, 1, 0},  {16, 2, 4, 1, 1, 0, 1, 0},  {16, 2, 2, 2, 0, 0, 0, 0},
              {16, 4, 2, 2, 0, 0, 0, 0},  {16, 2, 2, 2, 0, 0, 1, 0},  {16, 4, 2, 2, 0, 0, 1, 0},
              {64, 1, 2, 2, 0, 0, 0, 0},  {64, 4, 2, 1, 0, 0, 0, 0},  {64, 4, 2, 1, 0, 0, 1, 0},
              {8, 2, 2, 2, 0, 0, 1, 0},   {8, 4, 2, 1, 0, 0, 0, 0},   {8, 1, 2, 2, 0, 0, 1, 1},
              {16, 1, 2, 2, 0, 0, 1, 1},  {8, 4, 2, 2, 0, 0, 1, 1},   {16, 4, 2, 2, 0, 0, 1, 1},
              {8, 2, 4, 1, 0, 0, 1, 1},   {8, 1, 3, 2, 0, 0, 1, 1},   {16, 1, 3, 2, 0, 0, 1, 1},
              {8, 4, 3, 2, 0, 0, 1, 1},   {16, 4, 3, 2, 0, 0, 1, 1}}) *
        tune("k_slices", &S::k_slices, {1, 2}) * tune("swizzle_size", &S::swizzle_size, {4, 8});
    return space.where<S>([](const S& s) { return s.k_slices_fit() && s.interleave_k_fits(); }) *
           opt_in("early_weights", &S::early_weights, {0, 1});
  }

  static constexpr int producer_registers = 40;
  // The consumers share what the producer gives up of the block's registers at entry.
  int consumer_registers() const {
    const int warpgroups = 1 + consumer_warpgroups;
    const int block = SetmaxnregInstructions::registers_at_entry(128 * warpgroups) * warpgroups;
    return std::min(256, (block - producer_registers) / consumer_warpgroups / 8 * 8);
  }
  // As many k-tiles in flight as 200 KB of shared memory holds, up to 12; with the output tile in
  // shared memory, as many as 224 KB holds beside it; less the interleaved warpgroups' partials,
  // whose stages are shared out equally among them (Turns).
  int stages() const {
    const int stage_bytes = block_m * group * 2 + block_rows() * group * bits / 8 + block_rows() / 8 * 2 * 8 * 2;
    const int budget = (epilogue_tma ? 224 * 1024 - block_m * block_rows() * 2 : 200 * 1024) - partials_bytes();
    const int stages = std::clamp(budget / stage_bytes, 1, 12);
    const int turns = interleave_k ? consumer_warpgroups : 1;
    return std::max(turns, stages / turns * turns);
  }
  // The warpgroups over which a tile's rows are spread: one where they all take the same rows.
  int row_warpgroups() const { return interleave_k ? 1 : consumer_warpgroups; }
  int block_rows() const { return WgmmaWeightUnits::rows_per_warpgroup * row_warpgroups() * row_blocks; }
  // The f32 partials that interleaved warpgroups other than the first hand it at each tile's end.
  int partials_bytes() const { return interleave_k ? (consumer_warpgroups - 1) * block_rows() * block_m * 4 : 0; }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<Act> x, Ptr<uint32_t> units_in, Ptr<Act> unit_scales, Ptr<Act> y) {
    if (!k_slices_fit())
      throw Error(
          fmt::format("WeightOnlyGemmWgmma: k_slices = {} needs 1, or 2 with weights of even bits and "
                      "overlap = 0 ({} bits, overlap = {})",
                      k_slices, bits, overlap));
    if (!interleave_k_fits())
      throw Error(
          fmt::format("WeightOnlyGemmWgmma: interleave_k = 1 needs consumer_warpgroups > 1 and overlap = 0 "
                      "(consumer_warpgroups = {}, overlap = {})",
                      consumer_warpgroups, overlap));
    if (!stream_k_fits())
      throw Error(
          fmt::format("WeightOnlyGemmWgmma: stream_k = 1 needs split_k = 1 and block_m <= 64 (split_k = {}, "
                      "block_m = {})",
                      split_k, block_m));
    require_whole_units(*this, n, k);
    constexpr int half = group / 2;
    const int block_n = block_rows(), stages = this->stages(), units_per_tile = block_n / WeightUnits::rows;
    Int32 num_m_blocks = cdiv(m, block_m), num_n_blocks = cdiv(n, block_n);
    Int32 num_tiles = num_m_blocks * num_n_blocks, all_k_tiles = k / group;
    // Work item i is split i % split_k of tile i / split_k: its share of the k-tiles.
    Int32 num_items = num_tiles * split_k, split_tiles = cdiv(all_k_tiles, split_k);
    Int32 blocks = min(stream_k ? Int32(num_tiles * all_k_tiles) : num_items, multiprocessors);
    attrs.blocks = blocks;
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;

    auto g_x = global_view(x, {m, k});
    auto g_units = global_view(units_in, {k / group, n / WeightUnits::rows, WeightUnits::lanes * bits});
    auto g_scales = global_view(unit_scales, {k / group, n / WeightUnits::rows, 2, WeightUnits::rows});
    auto s_x = shared_tensor<Act>({stages, 2, block_m, half});
    auto s_units = shared_tensor<uint32_t>({stages, units_per_tile, WeightUnits::lanes * bits}, Swizzle::none);
    auto s_scales = shared_tensor<Act>({stages, units_per_tile, 2, WeightUnits::rows}, Swizzle::none);
    // With epilogue_tma, each tile's output goes through shared memory and leaves by one TMA store
    // while the next tile's mma run.
    std::optional<SharedTensor> s_y;
    if (epilogue_tma) s_y = shared_tensor<Act>({block_m, block_n}, Swizzle::none);
    // Interleaved, the warpgroups take the fillings in turn, each in stages of its own.
    Pipeline pipe(stages, Turns{interleave_k ? consumer_warpgroups : 1}, 1, interleave_k ? 128 : consumer_threads);
    TileRasterization rasterization(swizzle_size);
    // Interleaved, warpgroups 1 to c - 1 hand their partials to warpgroup 0 through this one-slot ring.
    std::optional<SharedTensor> s_partials;
    std::optional<Pipeline> handover;
    if (interleave_k) {
      s_partials = shared_tensor<float>({consumer_warpgroups - 1, block_n, block_m}, Swizzle::none);
      handover.emplace(1, 128 * (consumer_warpgroups - 1), 128);
    }
    std::optional<StreamK> stream;
    if (stream_k) stream.emplace(num_tiles, all_k_tiles, blocks, blockIdx.x, block_m, block_n);
    // Calls body(tile, first, last) for each work item of this block: k-tiles [first, last) of a tile.
    const auto for_each_item = [&](auto body) {
      if (stream) return stream->for_each_segment(body);
      for (Int32 item : range(blockIdx.x, num_items, gridDim.x)) {
        const Int32 first = (item % split_k) * split_tiles;
        body(item / split_k, first, min(all_k_tiles, first + split_tiles));
      }
    };

    // The next kernel on the stream may start its own early loads while this one runs.
    if (early_weights) grid_dependency.launch_dependents();
    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        const int bytes = int(s_x[0].nbytes() + s_units[0].nbytes() + s_scales[0].nbytes());
        // Filling `stage` with k-tile kt: its bytes announced, its weights and scales, or X.
        const auto announce = [&](const Int32& stage) {
          single_thread([&] { mbarrier.arrive_and_expect_tx(pipe.full_barriers[stage], bytes); });
        };
        const auto load_weights = [&](const Int32& stage, const Int32& n_block, const Int32& kt) {
          tma.global_to_shared(g_units, s_units[stage], {kt, n_block * units_per_tile, 0}, pipe.full_barriers[stage]);
          tma.global_to_shared(g_scales, s_scales[stage], {kt, n_block * units_per_tile, 0, 0},
                               pipe.full_barriers[stage]);
        };
        const auto load_x = [&](const Int32& stage, const Int32& m_block, const Int32& kt) {
          for (int c = 0; c < 2; ++c)
            tma.global_to_shared(g_x, s_x[stage][c], {m_block * block_m, kt * group + c * half},
                                 pipe.full_barriers[stage]);
        };
        // Early weights: the ring's fillings so far, whose first lap's weights load before the wait.
        std::optional<Var<int32_t>> filling;
        if (early_weights) {
          Var<int32_t>& f = filling.emplace(Var<int32_t>(0));  // declared here, at the user's line
          for_each_item([&](const Int32& tile, const Int32& first, const Int32& last) {
            const Int32 n_block = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks).second;
            // The item's k-tiles that still fit in the ring's first lap, counted before the loop
            // moves the filling.
            Var<int32_t> lap_end = min(last, first + (stages - f));
            for (Int32 kt : range(first, lap_end)) {
              announce(f);
              load_weights(f, n_block, kt);
              f = f + 1;
            }
          });
          grid_dependency.wait();
          f = 0;
        }
        for_each_item([&](const Int32& tile, const Int32& first, const Int32& last) {
          auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
          for (Int32 kt : range(first, last)) {
            pipe.producer_acquire();
            const Int32 stage = pipe.producer_stage;
            const auto fill_weights = [&] {
              announce(stage);
              load_weights(stage, n_block, kt);
            };
            if (filling) {
              if_(*filling >= stages, fill_weights);
            } else {
              fill_weights();
            }
            load_x(stage, m_block, kt);
            pipe.producer_advance();
            if (filling) *filling = *filling + 1;
          }
        });
      });
    });

    // The consumers' code: run by the c consumer warpgroups together (q = 0: every k-tile, the rows
    // spread over them) or, interleaved, by each warpgroup q alone (k-tiles q, q + c, ..., all rows).
    const auto consume = [&](int q) {
      const int warpgroups = row_warpgroups();
      setmaxnreg.increase(consumer_registers());
      // What the consumers write (the output, split-K's partials) the kernel before may still read.
      if (early_weights) grid_dependency.wait();
      const WgmmaLayouts layouts = wgmma_layouts(block_n, block_m, group, warpgroups);
      WgmmaWeightUnits units(block_n, warpgroups, layouts.a);
      // A slice of a k-tile's weights as the A operand [block_n, 64] (k_slices = 2).
      WgmmaWeightUnits half_units(block_n, warpgroups, wgmma_layouts(block_n, block_m, half, warpgroups).a);
      auto g_y = global_view(y, {m, n});
      // The scales and zero points of a k-tile's units in stage `stage` of the ring.
      const auto scales_of = [&](const Int32& stage) {
        return load_shared(s_scales[stage], {0, 0, 0}, {units_per_tile, 2, WeightUnits::rows}, units.scale_layout());
      };
      // A k-tile's words in stage `stage`: [1, units, 32, bits].
      const auto words_of = [&](const Int32& stage) {
        auto words =
            load_shared(s_units[stage], {0, 0}, {units_per_tile, WeightUnits::lanes * bits}, units.tile_layout(bits));
        return reshape(words, {1, units_per_tile, WeightUnits::lanes, bits});
      };
      // Slice `slice` of `slices` of k of words [1, units, 32, bits] dequantized (unscaled with promote)
      // as `as`'s A operand.
      const auto dequantized = [&](const RegisterTensor& words, const RegisterTensor& scales, WgmmaWeightUnits& as,
                                   int slice = 0, int slices = 1) {
        return as.to_fragments(DequantizeUnits<W, Act>(!promote)(
            words, reshape(scales, {1, units_per_tile, 2, WeightUnits::rows}), slice, slices));
      };
      // A k-tile's weights from stage `stage`, dequantized: the A operand [block_n, 128].
      const auto weights = [&](const Int32& stage, const RegisterTensor& scales) {
        return dequantized(words_of(stage), scales, units);
      };
      // The scale of each row of W [block_n, 1] in f32, in the accumulator's layout.
      const auto row_scales = [&](const RegisterTensor& scales) {
        auto of_rows = reshape(scales.slice({0, 0, 0}, {units_per_tile, 1, WeightUnits::rows}), {block_n, 1});
        return convert_layout(of_rows.to<float>(), layouts.c.reduced(1));
      };
      // acc (+)= a X[stage]ᵀ, committed; without accumulate, acc's old value is not read.
      const auto mma = [&](const RegisterTensor& a, const Int32& stage, const RegisterTensor& acc, bool accumulate) {
        auto a_lo = a.slice({0, 0}, {block_n, half}), a_hi = a.slice({0, half}, {block_n, half});
        wgmma.fence();
        wgmma.mma(a_lo, s_x[stage][0].transpose(), acc, accumulate);
        wgmma.mma(a_hi, s_x[stage][1].transpose(), acc);
        wgmma.commit_group();
      };
      std::optional<SplitKReduction> reduction;
      if (split_k > 1 && q == 0) reduction.emplace(split_k, m, n, num_tiles);
      Int32 filled = 0;  // interleaved: the ring's fillings of the block's earlier items
      for_each_item([&](const Int32& tile, const Int32& first, const Int32& last) {
        auto [m_block, n_block] = rasterization.compute_block_coord(tile, num_m_blocks, num_n_blocks);
        auto acc = register_tensor<float>({block_n, block_m}, 0.0f);
        // With promote, each k-tile's product, which the rows' scales then scale into acc.
        std::optional<RegisterTensor> partial;
        if (promote) partial = register_tensor<float>({block_n, block_m}, 0.0f);
        const auto product = [&](const RegisterTensor& a, const Int32& stage) {
          mma(a, stage, promote ? *partial : acc, !promote);
        };
        // The same in two halves of k: the first half's mma runs while the second half dequantizes.
        const auto product_by_halves = [&](const Int32& stage, const RegisterTensor& scales) {
          const auto words = words_of(stage);
          for (int h = 0; h < 2; ++h) {
            auto a = dequantized(words, scales, half_units, h, 2);
            wgmma.fence();
            wgmma.mma(a, s_x[stage][h].transpose(), promote ? *partial : acc, !promote || h > 0);
          }
          wgmma.commit_group();
        };
        if (overlap) {
          // The next k-tile's weights dequantize while the mma of this one runs; after the last,
          // the stage still held is read again and the result dropped. An item past k has none.
          if_(first < last, [&] {
            pipe.consumer_acquire();
            auto scales = scales_of(pipe.consumer_stage);
            auto a = weights(pipe.consumer_stage, scales);
            for (Int32 kt : range(first, last)) {
              const Int32 stage = pipe.consumer_stage;
              product(a, stage);
              pipe.consumer_advance();
              Int32 next_stage = stage;
              if_(kt + 1 < last, [&] {
                pipe.consumer_acquire();
                next_stage = pipe.consumer_stage;
              });
              auto next_scales = scales_of(next_stage);
              auto a_next = weights(next_stage, next_scales);
              wgmma.wait_group(0);
              mbarrier.arrive(pipe.empty_barriers[stage]);
              if (promote) acc = fma(*partial, row_scales(scales), acc);
              a = a_next;
              scales = next_scales;
            }
          });
        } else {
          // Interleaved, warpgroup q takes the ring's fillings n with n % c = q, whichever k-tiles of
          // the item they are: its own stages (Turns), also where an item's k-tiles are not a
          // multiple of c.
          const int c = consumer_warpgroups;
          Int32 start = first;
          if (interleave_k) start = first + (q + c - filled % c) % c;
          if (interleave_k) pipe.consumer_seek(filled + start - first);
          for (Int32 kt : range(start, last, interleave_k ? c : 1)) {
            pipe.consumer_acquire();
            auto scales = scales_of(pipe.consumer_stage);
            if (k_slices == 2)
              product_by_halves(pipe.consumer_stage, scales);
            else
              product(weights(pipe.consumer_stage, scales), pipe.consumer_stage);
            std::optional<RegisterTensor> scale;
            if (promote) scale = row_scales(scales);
            wgmma.wait_group(0);
            mbarrier.arrive(pipe.consumer_barrier());
            pipe.consumer_advance();
            if (promote) acc = fma(*partial, *scale, acc);
          }
        }
        if (interleave_k) {
          filled = filled + (last - first);
          if (q > 0) {
            handover->producer_acquire();
            store_shared((*s_partials)[q - 1], acc);
            mbarrier.arrive(handover->producer_barrier());
            handover->producer_advance();
            return;
          }
          handover->consumer_acquire();
          for (int p = 0; p < consumer_warpgroups - 1; ++p)
            acc = acc + load_shared((*s_partials)[p], {0, 0}, {block_n, block_m}, layouts.c);
          mbarrier.arrive(handover->consumer_barrier());
          handover->consumer_advance();
        }
        auto out = permute(acc, {1, 0});
        const auto write = [&] { store_global(g_y, out.template to<Act>(), {m_block * block_m, n_block * block_n}); };
        if (stream) {
          stream->finish(out, tile, first, last, write);
        } else if (reduction) {
          reduction->reduce(out, tile, first / split_tiles, m_block * block_m, n_block * block_n, write);
        } else if (s_y) {
          // The previous tile's store has read s_y before anyone overwrites it.
          single_thread([&] { tma.wait_group(0, true); });
          sync();
          store_shared(*s_y, out.template to<Act>());
          fence.proxy_async();
          sync();
          single_thread([&] {
            tma.shared_to_global(*s_y, g_y, {m_block * block_m, n_block * block_n});
            tma.commit_group();
          });
        } else {
          write();
        }
      });
      if (s_y && q == 0) single_thread([&] { tma.wait_group(0); });
    };
    if (interleave_k)
      for (int q = 0; q < consumer_warpgroups; ++q) warp_group(1 + q, [&] { consume(q); });
    else
      thread_group(128, consumer_threads, [&] { consume(0); });
  }
};

}  // namespace tessel::examples::quantized
