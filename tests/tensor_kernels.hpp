// Kernels of the tensor-argument tests, shared by the simulator and GPU tests.
#pragma once

#include "tessel/tessel.hpp"

namespace tessel::testing {

// out = 2 * x over a [rows, cols] view of x whose rows are `ld` elements apart; out is contiguous.
struct ScaleRows : Script {
  static constexpr int kBlockRows = 8;
  static inline SourceLoc view_loc;  // where x's global_view is, for the tests' messages
  static constexpr const char* param_names[] = {"rows", "cols", "ld", "x", "out"};
  void operator()(Int32 rows, int cols, Int32 ld, Ptr<float> x, Ptr<float> out) {
    attrs.blocks = cdiv(rows, kBlockRows);
    attrs.warps = 4;
    Int32 row = blockIdx.x * kBlockRows;
    view_loc = {__FILE__, __LINE__ + 1};
    auto t = load_global(global_view(x, {rows, cols}, {ld, 1}), {row, 0}, {kBlockRows, cols});
    store_global(global_view(out, {rows, cols}), t * 2.0f, {row, 0});
  }
};

// The host's answer to ScaleRows.
inline std::vector<float> scaled_rows(const std::vector<float>& x, int rows, int cols, int ld) {
  std::vector<float> out(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[size_t(r) * cols + c] = 2.0f * x[size_t(r) * ld + c];
  return out;
}

}  // namespace tessel::testing
