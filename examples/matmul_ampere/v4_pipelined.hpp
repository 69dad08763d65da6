#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::ampere {

// Step 4: a multi-stage cp.async pipeline. `stages` shared buffers form a ring; while the warps
// multiply stage i, the copies of the next stages - 1 k-tiles are in flight.
struct MatmulV4Pipelined : Script {
  int block_m = 128, block_n = 128, block_k = 32;
  int warps_m = 2, warps_n = 2;
  int stages = 3;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  void operator()(Int32 m, Int32 n, int k, Ptr<f16> a, Ptr<f16> b, Ptr<f16> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = warps_m * warps_n;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    // Unswizzled on purpose (step 5 adds the swizzle); left to choose_swizzles they would get one.
    auto s_a = shared_tensor<f16>({stages, block_m, block_k}, Swizzle::none);
    auto s_b = shared_tensor<f16>({stages, block_n, block_k}, Swizzle::none);
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
    store_global(global_view(c, {m, n}), acc.to<f16>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::ampere
