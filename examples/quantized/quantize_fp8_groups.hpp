#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// DeepSeek-V3's activation quantization, the input of fp8_gemm_block_scaled: each row's groups of
// 128 columns divided by their scale, the group's largest magnitude over 448 (e4m3's largest finite
// value; 1e-4 at least, so that a group of zeros stays zeros), and rounded to e4m3 as
// cvt.rn.satfinite rounds. The scales are stored M-major, [k / 128, m], as the GEMM reads them.
// Each warp takes a row, each thread runs of 8 columns (16 bytes), so a group is 16 lanes and its
// largest magnitude is a butterfly within the warp.
struct QuantizeFp8Groups : Script {
  int warps = 4;  // rows per block

  static constexpr const char* param_names[] = {"m", "k", "x", "q", "scales"};
  static Space space() { return tune("warps", &QuantizeFp8Groups::warps, {4, 8, 16}); }
  void operator()(Int32 m, int k, Ptr<bf16> x, Ptr<f8e4m3> q, Ptr<float> scales) {
    if (k % 128 != 0)
      throw Error(fmt::format("QuantizeFp8Groups: k = {} is not a multiple of 128, the groups' width", k));
    const int width = cdiv(k, 256) * 256, groups = width / 128;
    attrs.blocks = cdiv(m, warps);
    attrs.warps = warps;
    const Layout rows = Layout::local({1, width / 256}) * Layout::spatial({warps, 32}) * Layout::local({1, 8});
    Int32 row0 = blockIdx.x * warps;
    // Padding (rows beyond m, the last 128 columns where k is an odd number of groups) reads as 0
    // and is not stored.
    auto t = load_global(global_view(x, {m, k}), {row0, 0}, {warps, width}, rows, 0.0f).to<float>();
    auto grouped = reshape(t, {warps, groups, 128});
    auto scale = maximum(max(abs(grouped), 2), 1e-4f) * (1.0f / 448.0f);
    auto quantized = (grouped * (1.0f / scale)).to<f8e4m3>();
    store_global(global_view(q, {m, k}), reshape(quantized, {warps, width}), {row0, 0});
    store_global(global_view(scales, {k / 128, m}), permute(reshape(scale, {warps, groups}), {1, 0}), {0, row0});
  }
};

}  // namespace tessel::examples::quantized
