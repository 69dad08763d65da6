#pragma once

#include <array>

#include "tessel/tessel.hpp"

namespace tessel::examples::ampere {

// Step 5: step 4 with swizzled shared tiles and fragments loaded ahead. The 16-byte chunks of each
// tile row are XOR-permuted so that the 8 rows an ldmatrix reads fall into 8 different bank
// groups: conflict-free fragment loads. The fragments of each k16 slice are loaded while the mma
// of the slice before runs, into two register buffers, and the first slice of the next k-tile is
// loaded while the last slice's mma run across the k-tile's barrier, so the tensor cores do not
// wait for ldmatrix. The element type T (operands and result) is f16 or bf16; the accumulator is
// f32. With tf32 operands (f32 data as the tensor cores read it) and an f32 result Out, the slices
// are k8 (mma.sync m16n8k8) and the fragments load without ldmatrix, which moves 16-bit elements.
// The tile shape, warp split and pipeline depth are tuned.
template <class T = f16, class Out = T> struct MatmulV5Swizzled : Script {
  static constexpr int slice_k = sizeof(T) == 4 ? 8 : 16;  // the k of one mma.sync
  // f32 accumulators a thread may hold and keep registers for the fragments: fewer with tf32,
  // whose fragments load element by element (without ldmatrix), each with its own address.
  static constexpr int accumulators_at_most = sizeof(T) == 4 ? 64 : 128;
  int block_m = 128, block_n = 128, block_k = 32;
  int warps_m = 2, warps_n = sizeof(T) == 4 ? 4 : 2;  // 64 accumulators a thread with tf32, 128 else
  int stages = 3;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // Tile shapes, stages and warp splits, tuned jointly; the first candidate is the configuration above.
  static Space space() {
    return (tune("block_m, block_n", {&MatmulV5Swizzled::block_m, &MatmulV5Swizzled::block_n},
                 {{128, 128}, {128, 256}, {256, 128}, {128, 64}, {64, 128}}) *
            tune("block_k", &MatmulV5Swizzled::block_k, {32, 64}) *
            tune("warps_m, warps_n", {&MatmulV5Swizzled::warps_m, &MatmulV5Swizzled::warps_n},
                 {{2, 2}, {2, 4}, {4, 2}}) *
            tune("stages", &MatmulV5Swizzled::stages, {3, 4}))
        .template where<MatmulV5Swizzled>([](const MatmulV5Swizzled& s) {
          // Each warp's m16n8 accumulator tiles must tile the block within the accumulators a
          // thread may hold.
          const int warp_m = s.block_m / s.warps_m, warp_n = s.block_n / s.warps_n;
          return warp_m % 16 == 0 && warp_n % 8 == 0 && warp_m * warp_n / 32 <= accumulators_at_most;
        });
  }

  void operator()(Int32 m, Int32 n, int k, Ptr<T> a, Ptr<T> b, Ptr<Out> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = warps_m * warps_n;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({stages, block_m, block_k}, Swizzle::automatic);
    auto s_b = shared_tensor<T>({stages, block_n, block_k}, Swizzle::automatic);
    // Fragments are loaded one slice ahead of the mma that uses them, into two buffers.
    const MmaLayouts frag = mma_layouts(block_m, block_n, slice_k, warps_m, warps_n, dtype_v<T>);
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, frag.c);
    auto r_a = std::array{register_tensor<T>({block_m, slice_k}, 0.0f, frag.a),
                          register_tensor<T>({block_m, slice_k}, 0.0f, frag.a)};
    auto r_b = std::array{register_tensor<T>({slice_k, block_n}, 0.0f, frag.b),
                          register_tensor<T>({slice_k, block_n}, 0.0f, frag.b)};
    const auto load_slice = [&](const Dim& stage, int slice, int buffer) {
      r_a[buffer] = load_shared(s_a[stage], {0, slice * slice_k}, {block_m, slice_k}, frag.a);
      r_b[buffer] = load_shared(s_b[stage].transpose(), {slice * slice_k, 0}, {slice_k, block_n}, frag.b);
    };
    const int k_tiles = cdiv(k, block_k), slices = block_k / slice_k;
    // Prologue: every stage's k-tile in flight; a stage past the last k-tile is zero-filled, so
    // that every stage holds data before anything reads it.
    for (int s = 0; s < stages; ++s) {
      copy_async(g_a, s_a[s], {offset_m, s * block_k});
      copy_async(g_b, s_b[s], {offset_n, s * block_k});
      copy_async_commit_group();
    }
    copy_async_wait_group(stages - 1);  // k-tile 0 has landed
    sync();
    load_slice(0, 0, 0);
    for (Int32 i : range(0, k_tiles)) {
      for (int kk = 0; kk < slices; ++kk) {  // unrolled at trace time
        if (kk + 1 < slices) load_slice(i % stages, kk + 1, (kk + 1) % 2);
        acc = dot(r_a[kk % 2], r_b[kk % 2], acc);
      }
      // While the last slice's mma run: k-tile i + 1 has landed, and every warp has read k-tile i
      // into registers, so its stage takes k-tile i + stages.
      copy_async_wait_group(stages - 2);
      sync();
      Int32 refill = i + stages;
      if_(refill < k_tiles, [&] {
        copy_async(g_a, s_a[i % stages], {offset_m, refill * block_k});
        copy_async(g_b, s_b[i % stages], {offset_n, refill * block_k});
      });
      copy_async_commit_group();
      // After the last k-tile this reads a stage no copy writes any more, and nothing uses it.
      load_slice((i + 1) % stages, 0, 0);
    }
    store_global(global_view(c, {m, n}), acc.to<Out>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::ampere
