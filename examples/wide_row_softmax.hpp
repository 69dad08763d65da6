#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// y = softmax(x) along each row of an [n_rows, n_cols] float matrix with wide rows (thousands of
// columns): one row per block, spread over all its warps, so that every thread holds a few runs
// of 4 columns and the loads keep many requests in flight. The row's max and sum span the warps:
// the compiler combines the warps' parts through shared memory.
struct WideRowSoftmax : Script {
  int warps = 8;

  static constexpr const char* param_names[] = {"n_rows", "n_cols", "x", "y"};
  static Space space() { return tune("warps", &WideRowSoftmax::warps, {8, 16, 4}); }
  void operator()(Int32 n_rows, int n_cols, Ptr<float> x, Ptr<float> y) {
    const int threads = warps * 32;
    const int width = cdiv(n_cols, threads * 4) * threads * 4;
    attrs.blocks = n_rows;
    attrs.warps = warps;
    const Layout row =
        Layout::local({1, width / (threads * 4)}) * Layout::spatial({1, threads}) * Layout::local({1, 4});
    // Padding reads as -inf, so it contributes exp(-inf) = 0 to the sum.
    auto t = load_global(global_view(x, {n_rows, n_cols}), {blockIdx.x, 0}, {1, width}, row, -INFINITY);
    auto e = exp(t - max(t, 1));
    store_global(global_view(y, {n_rows, n_cols}), e * (1.0f / sum(e, 1)), {blockIdx.x, 0});
  }
};

}  // namespace tessel::examples
