#pragma once

#include "tessel/tessel.hpp"
#include "weight_units.hpp"

namespace tessel::examples::quantized {

// The units of weight_units.hpp read as wgmma's A operand (sm_90a), by the weight-only GEMM for
// many rows, which computes Yᵀ = W Xᵀ so that the dequantized weights come from registers (wgmma
// reads B from shared memory only). In the run of lane 4 g + t, element 4 s + 2 h + e is row g of
// its unit at k = 16 s + 8 h + 2 t + e: what that thread holds of row g in the A fragment of
// k-step s (a0 a1 for h = 0, a4 a5 for h = 1), and for the unit 8 rows below, of row g + 8 (a2 a3,
// a6 a7). So warp w of a warpgroup reads units 2 w and 2 w + 1 of each 64 rows its warpgroup owns,
// and their runs are its fragments as they are: renamed, not moved.
struct WgmmaWeightUnits : Class {
  static constexpr int rows_per_warpgroup = 64;
  int block_rows, warpgroups;
  // wgmma_layouts(block_rows, n, depth, warpgroups).a, for the depth of k to_fragments renames: 128,
  // or a slice of it.
  Layout fragments;

  WgmmaWeightUnits(int block_rows, int warpgroups, Layout fragments, loc_t at = loc_t::current())
      : Class("WgmmaWeightUnits", at),
        block_rows(block_rows),
        warpgroups(warpgroups),
        fragments(std::move(fragments)) {}

  int units() const { return block_rows / WeightUnits::rows; }
  // The 64-row repetitions of each warpgroup: warpgroup q owns rows 64 (q + warpgroups r).
  int repetitions() const { return block_rows / (rows_per_warpgroup * warpgroups); }

  // The block's words [units, 32 per_lane] (a lane's run as per_lane words or elements): unit
  // 8 (warpgroups r + q) + 2 w + h to warp w of warpgroup q, each lane's run in consecutive registers.
  Layout tile_layout(int per_lane) const {
    return Layout::local({repetitions(), 1}) * Layout::spatial({4 * warpgroups, WeightUnits::lanes}) *
           Layout::local({2, per_lane});
  }

  // The block's scales and zero points [units, 2, 8]: each thread holds those of its rows.
  Layout scale_layout() const {
    return Layout::local({repetitions(), 1, 1}) * Layout::spatial({4 * warpgroups, 1, WeightUnits::rows}) *
           Layout::local({2, 2, 1}) * Layout::replicated(3, 4);
  }

  // Runs [1, units, 32, e] in tile_layout(e)'s threads -> the A operand [block_rows, 4 e] in
  // `fragments`: whole runs (e = 32) are a k-tile of 128, and e consecutive elements of each run
  // a slice of it, k-step by k-step.
  RegisterTensor to_fragments(const RegisterTensor& runs) {
    const int elements = runs.shape()[3];
    const auto split = reshape(runs, {units(), WeightUnits::rows, 4, elements / 4, 2, 2});
    const auto nk = reshape(permute(split, {0, 1, 3, 4, 2, 5}), {block_rows, 4 * elements});
    return convert_layout(nk, fragments);
  }
};

}  // namespace tessel::examples::quantized
