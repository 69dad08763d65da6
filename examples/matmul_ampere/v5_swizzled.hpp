#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::ampere {

// Step 5: step 4 with swizzled shared tiles. The 16-byte chunks of each tile row are XOR-permuted
// so that the 8 rows an ldmatrix reads fall into 8 different bank groups: conflict-free fragment
// loads, with the same kernel otherwise. The element type T (operands and result) is f16 or bf16;
// the accumulator is f32. The tile shape,
// warp split and pipeline depth are tuned.
template <class T = f16> struct MatmulV5Swizzled : Script {
  int block_m = 128, block_n = 128, block_k = 32;
  int warps_m = 2, warps_n = 2;
  int stages = 3;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // The seeds' stacked autotune decorators; the first candidate is the configuration above.
  static Space space() {
    return (tune("block_m, block_n", {&MatmulV5Swizzled::block_m, &MatmulV5Swizzled::block_n},
                 {{128, 128}, {128, 256}, {256, 128}, {128, 64}, {64, 128}}) *
            tune("block_k", &MatmulV5Swizzled::block_k, {32, 64}) *
            tune("warps_m, warps_n", {&MatmulV5Swizzled::warps_m, &MatmulV5Swizzled::warps_n},
                 {{2, 2}, {2, 4}, {4, 2}}) *
            tune("stages", &MatmulV5Swizzled::stages, {3, 4}))
        .template where<MatmulV5Swizzled>([](const MatmulV5Swizzled& s) {
          // Each warp's m16n8 accumulator tiles must tile the block, and at most 128 f32
          // accumulators per thread leave registers for the fragments.
          const int warp_m = s.block_m / s.warps_m, warp_n = s.block_n / s.warps_n;
          return warp_m % 16 == 0 && warp_n % 8 == 0 && warp_m * warp_n / 32 <= 128;
        });
  }

  void operator()(Int32 m, Int32 n, int k, Ptr<T> a, Ptr<T> b, Ptr<T> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = warps_m * warps_n;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({stages, block_m, block_k}, Swizzle::automatic);
    auto s_b = shared_tensor<T>({stages, block_n, block_k}, Swizzle::automatic);
    const MmaLayouts frag = mma_layouts(block_m, block_n, block_k, warps_m, warps_n);
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, frag.c);
    const int k_tiles = cdiv(k, block_k);
    for (int s = 0; s < stages - 1; ++s) {  // prologue: the first stages - 1 k-tiles in flight
      if (s < k_tiles) {
        copy_async(g_a, s_a[s], {offset_m, s * block_k});
        copy_async(g_b, s_b[s], {offset_n, s * block_k});
      }
      copy_async_commit_group();
    }
    for (Int32 i : range(0, k_tiles)) {
      copy_async_wait_group(stages - 2);  // k-tile i has landed: only the later ones may be in flight
      // One barrier per k-tile: every warp sees k-tile i, and every warp is done with k-tile i - 1,
      // whose stage the copy below refills.
      sync();
      Int32 next = i + (stages - 1);
      if_(next < k_tiles, [&] {
        copy_async(g_a, s_a[next % stages], {offset_m, next * block_k});
        copy_async(g_b, s_b[next % stages], {offset_n, next * block_k});
      });
      copy_async_commit_group();
      auto r_a = load_shared(s_a[i % stages], {0, 0}, {block_m, block_k}, frag.a);
      auto r_b = load_shared(s_b[i % stages].transpose(), {0, 0}, {block_k, block_n}, frag.b);
      acc = dot(r_a, r_b, acc);
    }
    store_global(global_view(c, {m, n}), acc.to<T>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::ampere
