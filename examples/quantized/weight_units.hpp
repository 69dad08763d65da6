#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// The order in which the weight-only GEMM reads its weights: Marlin's idea, that a thread's
// weights for an mma.sync lie next to each other in memory, so that it loads them with one
// vector access and no shuffles. The weights W [n, k] are cut into units of 8 rows of W (columns
// of the output) by 128 of k (one quantization group). A unit is 32 lanes x 32 elements: lane
// 4 g + t holds the 32 weights that thread of a warp holds in the B fragments of the unit's 8
// m16n8k16 mma (row g of the unit; k = 16 s + 8 h + 2 t + e), as element 4 s + 2 h + e of its run.
// Units follow each other k-fastest: unit (u, j) covers rows 8 u.. of W and k from 128 j, and
// starts at element 1024 (u cdiv(k, 128) + j). With b-bit weights, a lane's run is b 32-bit words.
//
// A block of the GEMM reads `units_per_warp` units in each of its `warps_n` warps (the block's
// units are adjacent, unit v to warp v mod warps_n), so one [units, 1, 32, 32] tile of
// elements, renamed by to_fragments, is the block's B operand [128, 8 units] in the fragment
// layout of mma_layouts; the renaming moves nothing.
struct WeightUnits : Class {
  static constexpr int rows = 8, depth = 128, lanes = 32, run = 32;
  int units_per_warp, warps_n, warps_m;
  Layout fragments;  // the B operand's layout: mma_layouts(...).b over [128, 8 units]

  WeightUnits(int units_per_warp, int warps_n, int warps_m, Layout fragments, loc_t at = loc_t::current())
      : Class("WeightUnits", at),
        units_per_warp(units_per_warp),
        warps_n(warps_n),
        warps_m(warps_m),
        fragments(std::move(fragments)) {}

  int units() const { return units_per_warp * warps_n; }

  // The layout of the block's tile [units, 1, 32, per_lane] (a lane's run as per_lane words or
  // elements): each warp's units in its registers, unit by unit, and each lane's run in
  // consecutive registers. The warps of a column hold the same tile.
  Layout tile_layout(int per_lane) const {
    return Layout::local({units_per_warp, 1, 1, 1}) * Layout::replicated(4, warps_m) *
           Layout::spatial({warps_n, 1, lanes, 1}) * Layout::local({1, 1, 1, per_lane});
  }

  // The layout of the block's scales and zero points [units, 1, 2, 8] (a unit's 8 scales, then its
  // 8 zero points): each thread holds those of its fragments' columns, as the B operand reduced
  // over k does.
  Layout scale_layout() const {
    return Layout::local({units_per_warp, 1, 2, 1}) * Layout::replicated(4, warps_m) *
           Layout::spatial({warps_n, 1, 1, rows}) * Layout::replicated(4, 4);
  }

  // [units, 1, 32, 32] in tile_layout(32) -> [128, 8 units] in `fragments`.
  RegisterTensor to_fragments(const RegisterTensor& t) {
    const auto split = reshape(t, {units_per_warp, warps_n, rows, 4, depth / 16, 2, 2});
    const auto kn = reshape(permute(split, {4, 5, 3, 6, 0, 1, 2}), {depth, rows * units()});
    // With several units per warp their registers come unit by unit, where the fragments take
    // them k-step by k-step: a renaming of each thread's own registers.
    return units_per_warp == 1 ? kn : convert_layout(kn, fragments);
  }

  // The inverse: [128, 8 units] in `fragments` (with one unit per warp) -> [units, 1, 32, 32].
  RegisterTensor from_fragments(const RegisterTensor& kn) {
    const auto split = reshape(kn, {depth / 16, 2, 4, 2, units_per_warp, warps_n, rows});
    return reshape(permute(split, {4, 5, 6, 2, 0, 1, 3}), {units(), 1, lanes, run});
  }
};

}  // namespace tessel::examples::quantized
