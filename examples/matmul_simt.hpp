#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// C = A * B^T with A [M, K] and B [N, K] in f16, accumulated in f32, C [M, N] in f16: step 2 of
// seed 003's walkthrough (shared-memory tiling, no tensor cores). Each block computes a
// block_m x block_n tile of C; each thread a thread_m x thread_n sub-tile of it, as a sum of
// outer products of a column of A and a row of B^T read from shared memory.
struct MatmulSimt : Script {
  int block_m = 128, block_n = 128, block_k = 16;
  int thread_m = 8, thread_n = 8;

  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};
  void operator()(Int32 m, Int32 n, int k, Ptr<f16> a, Ptr<f16> b, Ptr<f16> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = (block_m / thread_m) * (block_n / thread_n) / 32;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    // Stored k-major, so that a thread's rows of A and columns of B^T are contiguous.
    auto s_a = shared_tensor<f16>({block_k, block_m});
    auto s_b = shared_tensor<f16>({block_k, block_n});
    const Layout acc_layout =
        Layout::spatial({block_m / thread_m, block_n / thread_n}) * Layout::local({thread_m, thread_n});
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, acc_layout);
    for (Int32 offset_k : range(0, k, block_k)) {
      store_shared(s_a.transpose(), load_global(g_a, {offset_m, offset_k}, {block_m, block_k}));
      store_shared(s_b.transpose(), load_global(g_b, {offset_n, offset_k}, {block_n, block_k}));
      sync();
      for (int kk = 0; kk < block_k; ++kk) {  // unrolled at trace time
        auto a_col = load_shared(s_a.transpose(), {0, kk}, {block_m, 1}, acc_layout.reduced(1)).to<float>();
        auto b_row = load_shared(s_b, {kk, 0}, {1, block_n}, acc_layout.reduced(0)).to<float>();
        acc = fma(a_col, b_row, acc);
      }
      sync();
    }
    store_global(global_view(c, {m, n}), acc.to<f16>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples
