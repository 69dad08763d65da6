#pragma once

#include <algorithm>

#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// DeepSeek-V3's activation quantization, the input of fp8_gemm_block_scaled: each row's groups of
// 128 columns divided by their scale, the group's largest magnitude over 448 (e4m3's largest finite
// value; 1e-4 at least, so that a group of zeros stays zeros), and rounded to e4m3 as
// cvt.rn.satfinite rounds. The scales are stored M-major, [k / 128, m], as the GEMM reads them.
// A row is spread over a block's warps (a warp per row held 224 values a thread at 7168 columns and
// spilled): each thread takes runs of 8 columns (16 bytes), so a group is 16 lanes of one warp and
// its largest magnitude a butterfly within the warp. A block takes a whole row, or, with
// `passes` > 0, that many passes of its warps over the row (warps * 256 columns each): no value
// depends on another group's, so a few rows still make many blocks (128 rows of 7168 columns are
// 128 blocks whole, and 896 of one pass of 4 warps).
struct QuantizeFp8Groups : Script {
  int warps = 8;
  int passes = 0;  // a block's passes over its row; 0: the whole row

  static constexpr const char* param_names[] = {"m", "k", "x", "q", "scales"};
  static Space space() {
    return tune("warps, passes", {&QuantizeFp8Groups::warps, &QuantizeFp8Groups::passes},
                {{8, 0}, {4, 0}, {16, 0}, {4, 1}, {8, 1}, {4, 2}});
  }
  void operator()(Int32 m, int k, Ptr<bf16> x, Ptr<f8e4m3> q, Ptr<float> scales) {
    if (k % 128 != 0)
      throw Error(fmt::format("QuantizeFp8Groups: k = {} is not a multiple of 128, the groups' width", k));
    const int pass = warps * 32 * 8, row_passes = cdiv(k, pass);
    const int block_passes = passes > 0 ? std::min(passes, row_passes) : row_passes;
    const int width = block_passes * pass, groups = width / 128, blocks_per_row = cdiv(row_passes, block_passes);
    attrs.blocks = m * blocks_per_row;
    attrs.warps = warps;
    const Int32 row = blockIdx.x / blocks_per_row, column = blockIdx.x % blocks_per_row * width;
    const Layout layout = Layout::local({1, block_passes}) * Layout::spatial({1, warps * 32}) * Layout::local({1, 8});
    // Padding (the columns past k up to a whole number of passes) reads as 0 and is not stored.
    auto t = load_global(global_view(x, {m, k}), {row, column}, {1, width}, layout, 0.0f).to<float>();
    auto grouped = reshape(t, {1, groups, 128});
    auto scale = maximum(max(abs(grouped), 2), 1e-4f) * (1.0f / 448.0f);
    auto quantized = (grouped * (1.0f / scale)).to<f8e4m3>();
    store_global(global_view(q, {m, k}), reshape(quantized, {1, width}), {row, column});
    store_global(global_view(scales, {k / 128, m}), permute(reshape(scale, {1, groups}), {1, 0}), {column / 128, row});
  }
};

}  // namespace tessel::examples::quantized
