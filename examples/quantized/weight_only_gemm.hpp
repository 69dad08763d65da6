#pragma once

#include "tessel/lib/split_k.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// A weight-only quantized GEMM, generic over the weights' element type W (any packed integer or
// float of 1 to 7 bits, or an 8-bit type): Y = X · Wᵀ with X [m, k] f16 activations, W [n, k]
// quantized weights with k contiguous, and per group of 128 along k a scale and a zero point
// ([n, cdiv(k, 128)] f16 each): w = (q - zero) * scale, in f16. Symmetric quantization gives zeros
// of 0. Y is [m, n] f16, accumulated in f32. The weights are passed as the 32-bit words that hold
// them, [n, k * bits / 32] (as GPTQ checkpoints store them): k must be a multiple of 32, so that
// every row starts on a word.
//
// The portable structure (mma.sync, sm_80 and later): the weights' words and the activations
// stream through cp.async rings of `stages` k-tiles, so that at decode sizes, where the weights
// are all the traffic, each block keeps stages - 1 k-tiles of them in flight. A k-tile's words are
// loaded from shared memory into registers, reinterpreted as W (a bitcast, which moves nothing),
// dequantized there and written back as f16, from where the mma reads them with the activations.
// At decode sizes the grid of output tiles is too small to keep the weights streaming, so the k
// range may be split over `split_k` blocks per tile (blockIdx.z), whose partials a SplitKReduction
// sums (tessel/lib/split_k.hpp).
template <class W> struct WeightOnlyGemm : Script {
  int block_m = 64, block_n = 128, block_k = 64;
  int warps_m = 1, warps_n = 4;
  int stages = 4;
  int split_k = 1;
  static constexpr int group = 128;  // the k-extent of one scale and zero point
  static constexpr int bits = dtype_bits(dtype_v<W>);
  static constexpr const char* param_names[] = {"m", "n", "k", "x", "w", "scales", "zeros", "y"};

  // Few rows (decode) take 16-row tiles, so that the grid covers n with narrow blocks (32 columns:
  // one mma column of 8 per warp), and deep rings; many rows (prefill) take 128 x 128.
  static Space space() {
    using S = WeightOnlyGemm;
    return tune("block_m, block_n, warps_m, warps_n", {&S::block_m, &S::block_n, &S::warps_m, &S::warps_n},
                {{64, 128, 1, 4}, {16, 32, 1, 4}, {16, 64, 1, 4}, {16, 128, 1, 4}, {128, 128, 2, 2}}) *
           tune("block_k, stages", {&S::block_k, &S::stages}, {{64, 4}, {128, 4}, {64, 8}}) *
           tune("split_k", &S::split_k, {1, 2, 4, 8});
  }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<f16> x, Ptr<uint32_t> w, Ptr<f16> scales, Ptr<f16> zeros, Ptr<f16> y) {
    attrs.blocks = {cdiv(n, block_n), cdiv(m, block_m), split_k};
    attrs.warps = warps_m * warps_n;
    const int tile_words = block_k * bits / 32;
    Int32 offset_m = blockIdx.y * block_m, offset_n = blockIdx.x * block_n;
    auto g_x = global_view(x, {m, k});
    auto g_w = global_view(w, {n, k / 32 * bits});
    auto g_scales = global_view(scales, {n, cdiv(k, group)});
    auto g_zeros = global_view(zeros, {n, cdiv(k, group)});
    auto s_x = shared_tensor<f16>({stages, block_m, block_k});
    auto s_w = shared_tensor<uint32_t>({stages, block_n, tile_words}, Swizzle::none);
    auto s_dequantized = shared_tensor<f16>({block_n, block_k});
    const MmaLayouts frag = mma_layouts(block_m, block_n, block_k, warps_m, warps_n);
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, frag.c);
    // This block's k-tiles: split blockIdx.z's share of them.
    const Int32 all_k_tiles = cdiv(k, block_k), split_tiles = cdiv(all_k_tiles, split_k);
    const Int32 first_tile = blockIdx.z * split_tiles;
    const Int32 k_tiles = max(0, min(all_k_tiles, first_tile + split_tiles) - first_tile);
    const auto load_tile = [&](const Int32& tile, const Int32& stage) {
      copy_async(g_x, s_x[stage], {offset_m, (first_tile + tile) * block_k});
      copy_async(g_w, s_w[stage], {offset_n, (first_tile + tile) * tile_words});
    };
    for (int s = 0; s < stages - 1; ++s) {  // prologue: the first stages - 1 k-tiles in flight
      if_(s < k_tiles, [&] { load_tile(Int32(s), Int32(s)); });
      copy_async_commit_group();
    }
    // A k-tile lies in one group, since block_k divides the group. Each k-tile's scales and zero
    // points are loaded one k-tile ahead, so that their latency hides behind a k-tile's work.
    const Int32 first_group = first_tile * block_k / group;
    auto scale = load_global(g_scales, {offset_n, first_group}, {block_n, 1});
    auto zero = load_global(g_zeros, {offset_n, first_group}, {block_n, 1});
    for (Int32 i : range(0, k_tiles)) {
      Int32 next_group = (first_tile + i + 1) * block_k / group;
      auto next_scale = load_global(g_scales, {offset_n, next_group}, {block_n, 1});
      auto next_zero = load_global(g_zeros, {offset_n, next_group}, {block_n, 1});
      copy_async_wait_group(stages - 2);  // k-tile i has landed
      // Every warp sees k-tile i, and is done with the previous k-tile's stage and weights.
      sync();
      Int32 next = i + (stages - 1);
      if_(next < k_tiles, [&] { load_tile(next, next % stages); });
      copy_async_commit_group();
      auto q = load_shared(s_w[i % stages], {0, 0}, {block_n, tile_words}).template bitcast<W>();
      store_shared(s_dequantized, (q.template to<f16>() - zero) * scale);
      sync();
      auto r_x = load_shared(s_x[i % stages], {0, 0}, {block_m, block_k}, frag.a);
      auto r_w = load_shared(s_dequantized.transpose(), {0, 0}, {block_k, block_n}, frag.b);
      acc = dot(r_x, r_w, acc);
      scale = next_scale;
      zero = next_zero;
    }
    auto g_y = global_view(y, {m, n});
    if (split_k == 1) {
      store_global(g_y, acc.to<f16>(), {offset_m, offset_n});
    } else {
      SplitKReduction reduction(split_k, m, n, cdiv(m, block_m) * cdiv(n, block_n));
      reduction.reduce(acc, blockIdx.y * gridDim.x + blockIdx.x, blockIdx.z, offset_m, offset_n, [&] {
        store_global(g_y, acc.to<f16>(), {offset_m, offset_n});
      });
    }
  }
};

}  // namespace tessel::examples::quantized
