#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// y = (x - mean) / sqrt(var + eps) * gamma + beta along each row of an [n_rows, n_cols] float
// matrix: one row per block over all its warps (as WideRowSoftmax), mean and variance by two
// reductions that span the warps.
struct LayerNorm : Script {
  int warps = 8;

  static constexpr const char* param_names[] = {"n_rows", "n_cols", "x", "gamma", "beta", "y"};
  static Space space() { return tune("warps", &LayerNorm::warps, {8, 16, 4}); }
  void operator()(Int32 n_rows, int n_cols, Ptr<float> x, Ptr<float> gamma, Ptr<float> beta, Ptr<float> y) {
    const int threads = warps * 32;
    const int width = cdiv(n_cols, threads * 4) * threads * 4;
    const float eps = 1e-5f;
    attrs.blocks = n_rows;
    attrs.warps = warps;
    const Layout row =
        Layout::local({1, width / (threads * 4)}) * Layout::spatial({1, threads}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {n_rows, n_cols}), {blockIdx.x, 0}, {1, width}, row);
    auto mean = sum(t, 1) * (1.0f / float(n_cols));
    // Padding reads as 0; its deviation is masked out of the variance.
    auto centered = where(arange({1, width}, 1, row) < n_cols, t - mean, 0.0f);
    auto inv_std = rsqrt(sum(centered * centered, 1) * (1.0f / float(n_cols)) + eps);
    auto g = load_global(global_view(gamma, {1, n_cols}), {0, 0}, {1, width}, row);
    auto b = load_global(global_view(beta, {1, n_cols}), {0, 0}, {1, width}, row);
    store_global(global_view(y, {n_rows, n_cols}), fma(centered * inv_std, g, b), {blockIdx.x, 0});
  }
};

}  // namespace tessel::examples
