#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::quantized {

// The order in which the weight-only GEMM reads its weights: Marlin's idea, that a thread's
// weights for an mma.sync lie next to each other in memory, so that it loads them with one
// vector access and no shuffles. The weights W [n, k] are cut into units of 8 rows of W (columns
// of the output) by 128 of k (one quantization group). A unit is 32 lanes x 32 elements: lane
// 4 g + t holds the 32 weights that thread of a warp holds in the B fragments of the unit's 8
// m16n8k16 mma (row g of the unit; k = 16 s + 8 h + 2 t + e), as element 4 s + 2 h + e of its run.
// Units follow each other n-fastest: unit (j, u) covers k from 128 j and rows 8 u.. of W, and
// starts at element 1024 (j n / 8 + u), so that the units a block reads for one group are one
// contiguous run of memory, whatever its width. With b-bit weights, a lane's run is b 32-bit words.
//
// A block of the GEMM reads `groups` units along k and `units_per_warp` units along n in each of
// its `warps_n` warps (the block's units are adjacent, unit v to warp v mod warps_n): one tile
// [groups, units, 32, 32] of elements, which to_fragments renames into the block's B operand
// [128 groups, 8 units] in the fragment layout of mma_layouts.
struct WeightUnits : Class {
  static constexpr int rows = 8, depth = 128, lanes = 32, run = 32;
  int units_per_warp, warps_n, warps_m, groups;
  Layout fragments;  // the B operand's layout: mma_layouts(...).b over [128 groups, 8 units]

  WeightUnits(int units_per_warp, int warps_n, int warps_m, int groups, Layout fragments, loc_t at = loc_t::current())
      : Class("WeightUnits", at),
        units_per_warp(units_per_warp),
        warps_n(warps_n),
        warps_m(warps_m),
        groups(groups),
        fragments(std::move(fragments)) {}

  int units() const { return units_per_warp * warps_n; }
  int columns() const { return rows * units(); }

  // The layout of the block's tile [groups, units, 32, per_lane] (a lane's run as per_lane words
  // or elements): each warp's units in its registers, group by group and unit by unit, and each
  // lane's run in consecutive registers. The warps of a column hold the same tile.
  Layout tile_layout(int per_lane) const {
    return Layout::local({groups, units_per_warp, 1, 1}) * Layout::replicated(4, warps_m) *
           Layout::spatial({1, warps_n, lanes, 1}) * Layout::local({1, 1, 1, per_lane});
  }

  // The layout of the block's scales and zero points [groups, units, 2, 8] (a unit's 8 scales,
  // then its 8 zero points): each thread holds those of its fragments' columns, in its registers
  // in the order of tile_layout's.
  Layout scale_layout() const {
    return Layout::local({groups, units_per_warp, 2, 1}) * Layout::replicated(4, warps_m) *
           Layout::spatial({1, warps_n, 1, rows}) * Layout::replicated(4, 4);
  }

  // [groups, units, 32, 32] in tile_layout(32), or in registers ordered otherwise within each
  // thread -> [128 groups, 8 units] in `fragments`.
  RegisterTensor to_fragments(const RegisterTensor& t) {
    const auto split = reshape(t, {groups, units_per_warp, warps_n, rows, 4, depth / 16, 2, 2});
    const auto kn = reshape(permute(split, {0, 5, 6, 4, 7, 1, 2, 3}), {depth * groups, columns()});
    // The fragments take each thread's registers k-step by k-step: where the tile holds them
    // otherwise (unit by unit, say), a renaming of the thread's own registers.
    return convert_layout(kn, fragments);
  }

  // The inverse: [128 groups, 8 units] in `fragments` (with one unit per warp) -> [groups, units,
  // 32, 32].
  RegisterTensor from_fragments(const RegisterTensor& kn) {
    const auto split = reshape(kn, {groups, depth / 16, 2, 4, 2, units_per_warp, warps_n, rows});
    return reshape(permute(split, {0, 5, 6, 7, 3, 1, 2, 4}), {groups, units(), lanes, run});
  }

  // Integers of 1, 2, 4 and 8 bits (whose fields never straddle a byte) are stored with the
  // elements of each word in the order in which DequantizeUnits takes them from the word two at a
  // time, with one mask for each pair (the elements at bits b p and 16 + b p for b bits): of the
  // F = 32 / b elements of a word, element 2 p + h at field p + F / 2 h.
  static constexpr bool interleaved(DType t) {
    return t == DType::I1 || t == DType::U1 || t == DType::I2 || t == DType::U2 || t == DType::I4 || t == DType::U4 ||
           t == DType::I8 || t == DType::U8;
  }
  // Integers of 3, 5, 6 and 7 bits are stored as planes of 4, 2 and 1 bits, widest first (3 = 2 + 1,
  // 5 = 4 + 1, 6 = 4 + 2, 7 = 4 + 2 + 1), so that each plane takes the interleaved path: plane j
  // holds bits o_j.. of each weight made unsigned (excess-2^(b-1) for signed weights) as a b_j-bit
  // unsigned integer in the interleaved order, and a lane's run is its planes' b_j words each, one
  // after the other. A plane of b_j bits starting at bit o_j then starts at word o_j of the run.
  static constexpr bool planar(DType t) { return !is_float(t) && !interleaved(t); }
  struct Plane {
    int bits, offset;  // its width, and the weight's bit (and the run's word) it starts at
  };
  static std::vector<Plane> planes(int bits) {
    std::vector<Plane> planes;
    for (int width = 4, offset = 0; width >= 1; width /= 2)
      if (bits - offset >= width) {
        planes.push_back({width, offset});
        offset += width;
      }
    return planes;
  }
  // The unsigned integer type of a plane's width.
  static constexpr DType plane_type(int bits) { return bits == 1 ? DType::U1 : bits == 2 ? DType::U2 : DType::U4; }

  // Where element `element` of a run lies in the stored run; for a planar type, in each plane's words
  // with the plane's type.
  static constexpr int stored_position(DType t, int element) {
    if (!interleaved(t)) return element;
    const int fields = 32 / dtype_bits(t), in_word = element % fields;
    return element - in_word + in_word / 2 + fields / 2 * (in_word % 2);
  }

  // A tile [groups, units, 32, 32] of runs in the fragments' order -> in the stored order, each
  // lane's run in consecutive registers (moved within each thread).
  RegisterTensor interleave(const RegisterTensor& runs, DType t) {
    const int fields = 32 / dtype_bits(t);
    const auto split = reshape(runs, {groups, units(), lanes, run / fields, fields / 2, 2});
    return convert_layout(reshape(permute(split, {0, 1, 2, 3, 5, 4}), {groups, units(), lanes, run}), tile_layout(run));
  }
};

// The sizes the repacked units cover, required at every launch of a kernel that reads or writes
// them (`script`): n in whole units of rows and k in whole quantization groups.
inline void require_whole_units(Script& script, const Int32& n, const Int32& k,
                                std::source_location loc = std::source_location::current()) {
  script.require(n % WeightUnits::rows == 0,
                 fmt::format("n must be a multiple of {}, the rows of a unit of repacked weights", WeightUnits::rows),
                 loc);
  script.require(k % WeightUnits::depth == 0,
                 fmt::format("k must be a multiple of {}, the depth of a quantization group", WeightUnits::depth), loc);
}

}  // namespace tessel::examples::quantized
