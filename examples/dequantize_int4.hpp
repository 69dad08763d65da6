#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// W4A16 weights to f16: w = q * scale, where q is a signed 4-bit integer of the [k, n] weight
// matrix, packed two to a byte along its rows, and scale the f16 of q's group of 128 rows and its
// column. The conversion works a word (8 values) at a time with bit operations and packed f16
// arithmetic (docs/performance.md, "Dequantizing 4-bit integers").
struct DequantizeInt4 : Script {
  static constexpr int group = 128, block_rows = 16, block_columns = 512;

  static constexpr const char* param_names[] = {"k", "n", "q", "scales", "w"};
  void operator()(Int32 k, Int32 n, Ptr<i4> q, Ptr<f16> scales, Ptr<f16> w) {
    attrs.blocks = {cdiv(n, block_columns), cdiv(k, block_rows)};
    attrs.warps = 4;
    // Each thread holds runs of 32 consecutive elements of a row: 16 bytes of q, 64 of w.
    const Layout runs = Layout::local({2, 1}) * Layout::spatial({8, 16}) * Layout::local({1, 32});
    Int32 row = blockIdx.y * block_rows, column = blockIdx.x * block_columns;
    auto packed = load_global(global_view(q, {k, n}), {row, column}, {block_rows, block_columns}, runs);
    // A block's rows lie in one group, since the group is a multiple of the block's rows.
    auto scale = load_global(global_view(scales, {cdiv(k, group), n}), {row / group, column}, {1, block_columns});
    store_global(global_view(w, {k, n}), packed.to<f16>() * scale, {row, column});
  }
};

}  // namespace tessel::examples
