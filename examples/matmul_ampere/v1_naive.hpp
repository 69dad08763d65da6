#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::ampere {

// Step 1 of seed 003's walkthrough: no data reuse through shared memory. Each thread computes a
// 4x4 patch of C, reading its rows of A and columns of B straight from global memory.
struct MatmulV1Naive : Script {
  int block_m = 64, block_n = 64;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  void operator()(Int32 m, Int32 n, int k, Ptr<f16> a, Ptr<f16> b, Ptr<f16> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = block_m * block_n / 16 / 32;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_bt = global_view(b, {k, n}, {1, k});  // B^T: element (kk, j) is b[j, kk]
    const Layout layout = Layout::spatial({block_m / 4, block_n / 4}) * Layout::local({4, 4});
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f, layout);
    for (Int32 kk : range(0, k)) {
      auto a_col = load_global(g_a, {offset_m, kk}, {block_m, 1}, layout.reduced(1)).to<float>();
      auto b_row = load_global(g_bt, {kk, offset_n}, {1, block_n}, layout.reduced(0)).to<float>();
      acc = fma(a_col, b_row, acc);
    }
    store_global(global_view(c, {m, n}), acc.to<f16>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::ampere
