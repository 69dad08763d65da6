#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// C = A * B^T with A [M, K] and B [N, K] in f16, accumulated in f32, C [M, N] in f16: step 2 of
// seed 003's walkthrough (shared-memory tiling, no tensor cores). Each block computes a
// block_m x block_n tile of C; each thread a 4x4 sub-tile of it, from a row strip of A and a
// column strip of B^T read from shared memory.
struct MatmulSimt : Script {
  int block_m = 64, block_n = 64, block_k = 32;

  void operator()(Int32 m, Int32 n, int k, Ptr<f16> a, Ptr<f16> b, Ptr<f16> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = block_m * block_n / 16 / 32;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<f16>({block_m, block_k});
    auto s_b = shared_tensor<f16>({block_n, block_k});
    // Thread (i, j) of the block_m/4 x block_n/4 grid owns rows 4i..4i+3 and columns 4j..4j+3.
    const Layout acc_layout = Layout::spatial({block_m / 4, block_n / 4}) * Layout::local({4, 4});
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, acc_layout);
    for (Int32 offset_k : range(0, k, block_k)) {
      store_shared(s_a, load_global(g_a, {offset_m, offset_k}, {block_m, block_k}));
      store_shared(s_b, load_global(g_b, {offset_n, offset_k}, {block_n, block_k}));
      sync();
      auto s_bt = s_b.transpose();
      for (int kk = 0; kk < block_k; ++kk) {  // unrolled at trace time
        auto a_col = load_shared(s_a, {0, kk}, {block_m, 1}, acc_layout.reduced(1)).to<float>();
        auto b_row = load_shared(s_bt, {kk, 0}, {1, block_n}, acc_layout.reduced(0)).to<float>();
        acc = fma(a_col, b_row, acc);
      }
      sync();
    }
    store_global(global_view(c, {m, n}), acc.to<f16>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples
