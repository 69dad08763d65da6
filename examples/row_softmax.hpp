#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// y = softmax(x) along each row of an [n_rows, n_cols] float matrix. One warp per row: the
// row's reductions stay inside a warp (lane shuffles, no shared memory).
struct RowSoftmax : Script {
  int rows_per_block = 4;

  static constexpr const char* param_names[] = {"n_rows", "n_cols", "x", "y"};
  void operator()(Int32 n_rows, int n_cols, Ptr<float> x, Ptr<float> y) {
    // Each lane owns runs of 4 consecutive columns; the row is padded to a multiple of 128.
    const int width = cdiv(n_cols, 128) * 128;
    attrs.blocks = cdiv(n_rows, rows_per_block);
    attrs.warps = rows_per_block;
    const Layout rows = Layout::local({1, width / 128}) * Layout::spatial({rows_per_block, 32}) * Layout::local({1, 4});
    Int32 row = blockIdx.x * rows_per_block;
    auto gx = global_view(x, {n_rows, n_cols});
    // Padding reads as -inf, so it contributes exp(-inf) = 0 to the sums.
    auto t = load_global(gx, {row, 0}, {rows_per_block, width}, rows, -INFINITY);
    auto e = exp(t - max(t, 1));
    store_global(global_view(y, {n_rows, n_cols}), e / sum(e, 1), {row, 0});
  }
};

}  // namespace tessel::examples
