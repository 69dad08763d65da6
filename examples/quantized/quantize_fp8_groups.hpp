#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// DeepSeek-V3's activation quantization, the input of fp8_gemm_block_scaled: each row's groups of
// 128 columns divided by their scale, the group's largest magnitude over 448 (e4m3's largest finite
// value; 1e-4 at least, so that a group of zeros stays zeros), and rounded to e4m3 as
// cvt.rn.satfinite rounds. The scales are stored M-major, [k / 128, m], as the GEMM reads them.
// One row per block, spread over all its warps (a warp per row held 224 values a thread at 7168
// columns and spilled): each thread takes runs of 8 columns (16 bytes), so a group is 16 lanes of
// one warp and its largest magnitude a butterfly within the warp.
struct QuantizeFp8Groups : Script {
  int warps = 8;

  static constexpr const char* param_names[] = {"m", "k", "x", "q", "scales"};
  static Space space() { return tune("warps", &QuantizeFp8Groups::warps, {8, 4, 16}); }
  void operator()(Int32 m, int k, Ptr<bf16> x, Ptr<f8e4m3> q, Ptr<float> scales) {
    if (k % 128 != 0)
      throw Error(fmt::format("QuantizeFp8Groups: k = {} is not a multiple of 128, the groups' width", k));
    const int pass = warps * 32 * 8, width = cdiv(k, pass) * pass, groups = width / 128;
    attrs.blocks = m;
    attrs.warps = warps;
    const Layout row = Layout::local({1, width / pass}) * Layout::spatial({1, warps * 32}) * Layout::local({1, 8});
    // Padding (the columns past k up to a whole number of passes) reads as 0 and is not stored.
    auto t = load_global(global_view(x, {m, k}), {blockIdx.x, 0}, {1, width}, row, 0.0f).to<float>();
    auto grouped = reshape(t, {1, groups, 128});
    auto scale = maximum(max(abs(grouped), 2), 1e-4f) * (1.0f / 448.0f);
    auto quantized = (grouped * (1.0f / scale)).to<f8e4m3>();
    store_global(global_view(q, {m, k}), reshape(quantized, {1, width}), {blockIdx.x, 0});
    store_global(global_view(scales, {k / 128, m}), permute(reshape(scale, {1, groups}), {1, 0}), {0, blockIdx.x});
  }
};

}  // namespace tessel::examples::quantized
