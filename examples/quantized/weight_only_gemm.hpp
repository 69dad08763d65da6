#pragma once

#include "dequantize_units.hpp"
#include "tessel/lib/split_k.hpp"
#include "tessel/tessel.hpp"
#include "weight_units.hpp"

namespace tessel::examples::quantized {

// A weight-only quantized GEMM, generic over the weights' element type W (any packed integer or
// float of 1 to 7 bits, or an 8-bit type): Y = X · Wᵀ with X [m, k] activations of type Act (f16
// or bf16), W [n, k] quantized weights, and per group of 128 along k a scale and an integer zero
// point in Act (as GPTQ and AWQ checkpoints hold them): w = (q - zero) * scale, in Act. Symmetric
// quantization gives zeros of 0. Y is [m, n] in Act, accumulated in f32.
// The weights come repacked by RepackWeights<W, Act> (repack_weights.hpp): `units` holds them in the
// order of the mma's B fragments, `unit_scales` the scales and zero points by unit. n must be a
// multiple of 8 and k of 128.
//
// The portable structure (mma.sync, sm_80 and later): the activations, the weights' words and
// their scales stream through one cp.async ring of `stages` k-tiles of 128 or 256, so that at decode
// sizes, where the weights are all the traffic, each block keeps stages - 1 k-tiles of them in
// flight. Each thread reads its weights of a k-tile from shared memory as whole words (16 bytes
// for 4 bits), reinterprets them as W (a bitcast, which moves nothing), and dequantizes them in
// registers, which is where the mma reads them: no shuffles, and no pass through shared memory
// as f16. At decode sizes the grid of output tiles is too small to keep the weights streaming, so
// the k range may be split over `split_k` blocks per tile (blockIdx.z), whose partials a
// SplitKReduction sums (tessel/lib/split_k.hpp).
template <class W, class Act = f16> struct WeightOnlyGemm : Script {
  int block_m = 16, warps_m = 1, warps_n = 4, units_per_warp = 2;
  int groups_per_tile = 1;  // k-tiles of 128 or 256
  int stages = 4;
  int split_k = 1;
  static constexpr int group = WeightUnits::depth;  // the k-extent of one scale and zero point
  static constexpr int bits = dtype_bits(dtype_v<W>);
  static constexpr const char* param_names[] = {"m", "n", "k", "x", "units", "unit_scales", "y"};
  // W's dimensions are a model's, few and fixed, and the tiles they make decide the best split:
  // tuned for each value, the rows of X per power-of-two bucket.
  static constexpr const char* exact_sizes[] = {"n", "k"};

  // Few rows (decode) take 16-row tiles over 64 to 128 columns and rings of 4 to 8 k-tiles, traded
  // against the blocks an SM holds; 64 rows take 64 x 64 or 64 x 128, with their B fragments
  // dequantized once per warp or shared by two warps along m; many rows (prefill) take 128 x 128.
  // Deeper k-tiles spread each k-tile's fixed work (the ring's wait and barrier, the copies'
  // addresses) over more weights.
  static Space space() {
    using S = WeightOnlyGemm;
    return tune("block_m, warps_m, warps_n, units_per_warp, groups_per_tile, stages",
                {&S::block_m, &S::warps_m, &S::warps_n, &S::units_per_warp, &S::groups_per_tile, &S::stages},
                {{16, 1, 4, 2, 1, 4},
                 {16, 1, 4, 2, 2, 4},
                 {16, 1, 4, 4, 1, 4},
                 {16, 1, 4, 4, 2, 3},
                 {16, 1, 8, 1, 2, 4},
                 {16, 1, 8, 2, 1, 4},
                 {64, 1, 4, 2, 1, 4},
                 {64, 2, 2, 4, 1, 4},
                 {64, 1, 4, 4, 1, 3},
                 {128, 2, 4, 4, 1, 3}}) *
           tune("split_k", &S::split_k, {1, 2, 4, 8});
  }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<Act> x, Ptr<uint32_t> units_in, Ptr<Act> unit_scales, Ptr<Act> y) {
    require_whole_units(*this, n, k);
    const int block_n = WeightUnits::rows * units_per_warp * warps_n, block_k = group * groups_per_tile;
    const MmaLayouts frag = mma_layouts(block_m, block_n, block_k, warps_m, warps_n);
    constexpr int step_k = 32;
    const MmaLayouts step = mma_layouts(block_m, block_n, step_k, warps_m, warps_n);
    WeightUnits units(units_per_warp, warps_n, warps_m, groups_per_tile, frag.b);
    attrs.blocks = {cdiv(n, block_n), cdiv(m, block_m), split_k};
    attrs.warps = warps_m * warps_n;
    Int32 offset_m = blockIdx.y * block_m, offset_n = blockIdx.x * block_n, first_unit = blockIdx.x * units.units();
    auto g_x = global_view(x, {m, k});
    auto g_units = global_view(units_in, {k / group, n / 8, WeightUnits::lanes, bits});
    auto g_scales = global_view(unit_scales, {k / group, n / 8, 2, WeightUnits::rows});
    auto s_x = shared_tensor<Act>({stages, block_m, block_k});
    auto s_units =
        shared_tensor<uint32_t>({stages, groups_per_tile, units.units(), WeightUnits::lanes, bits}, Swizzle::none);
    auto s_scales = shared_tensor<Act>({stages, groups_per_tile, units.units(), 2, WeightUnits::rows}, Swizzle::none);
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, frag.c);
    // This block's k-tiles: split blockIdx.z's share of them. A last k-tile that reaches past k
    // reads zeros there: weights, scales and activations alike.
    const Int32 all_k_tiles = cdiv(k, block_k), split_tiles = cdiv(all_k_tiles, split_k);
    const Int32 first_tile = blockIdx.z * split_tiles;
    const Int32 k_tiles = max(0, min(all_k_tiles, first_tile + split_tiles) - first_tile);
    const auto load_tile = [&](const Int32& tile, const Int32& stage) {
      copy_async(g_x, s_x[stage], {offset_m, (first_tile + tile) * block_k});
      copy_async(g_units, s_units[stage], {(first_tile + tile) * groups_per_tile, first_unit, 0, 0});
      copy_async(g_scales, s_scales[stage], {(first_tile + tile) * groups_per_tile, first_unit, 0, 0});
    };
    for (int s = 0; s < stages - 1; ++s) {  // prologue: the first stages - 1 k-tiles in flight
      if_(s < k_tiles, [&] { load_tile(Int32(s), Int32(s)); });
      copy_async_commit_group();
    }
    for (Int32 i : range(0, k_tiles)) {
      copy_async_wait_group(stages - 2);  // k-tile i has landed
      // Every warp sees k-tile i, and is done with the stage the next load overwrites.
      sync();
      Int32 next = i + (stages - 1), stage = i % stages;
      if_(next < k_tiles, [&] { load_tile(next, next % stages); });
      copy_async_commit_group();
      auto b = dequantized(units, s_units[stage], s_scales[stage]);
      // The activations 32 of k at a time, so that a tile of many rows holds few of them at once.
      for (int kk = 0; kk < block_k; kk += step_k) {
        auto r_x = load_shared(s_x[stage], {0, kk}, {block_m, step_k}, step.a);
        acc = dot(r_x, b.slice({kk, 0}, {step_k, block_n}), acc);
      }
    }
    auto g_y = global_view(y, {m, n});
    if (split_k == 1) {
      store_global(g_y, acc.to<Act>(), {offset_m, offset_n});
    } else {
      SplitKReduction reduction(split_k, m, n, cdiv(m, block_m) * cdiv(n, block_n));
      reduction.reduce(acc, blockIdx.y * gridDim.x + blockIdx.x, blockIdx.z, offset_m, offset_n, [&] {
        store_global(g_y, acc.to<Act>(), {offset_m, offset_n});
      });
    }
  }

  // A k-tile's weights from the ring, dequantized: w = (q - zero) * scale, the B operand
  // [128 groups, 8 units] in Act.
  RegisterTensor dequantized(WeightUnits& units, const SharedTensor& s_units, const SharedTensor& s_scales) {
    const int groups = units.groups;
    auto words =
        load_shared(s_units, {0, 0, 0, 0}, {groups, units.units(), WeightUnits::lanes, bits}, units.tile_layout(bits));
    auto scales =
        load_shared(s_scales, {0, 0, 0, 0}, {groups, units.units(), 2, WeightUnits::rows}, units.scale_layout());
    return units.to_fragments(DequantizeUnits<W, Act>()(words, scales));
  }
};

}  // namespace tessel::examples::quantized
