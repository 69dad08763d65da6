// Tensor-core fragment layouts written in the layout algebra, and the block-level layouts built
// from them. PTX ISA 9.7.14.5.8 (mma.m16n8k16 fragments), with lane = 4 * groupID + threadID:
//   A (16x16 f16): row = groupID (+8 for a2,a3,a6,a7), col = 2*threadID + (i & 1) (+8 for a4..a7)
//   B (16x8 f16):  row = 2*threadID + (i & 1) (+8 for b2,b3), col = groupID
//   C (16x8 f32):  row = groupID (+8 for c2,c3), col = 2*threadID + (i & 1)
#pragma once

#include <vector>

#include "tessel/layout/layout.hpp"

namespace tessel {

Layout mma_m16n8k16_a();
Layout mma_m16n8k16_b();
Layout mma_m16n8k16_c();

// Layouts for a block computing C[m, n] += A[m, k] B[k, n] with warps_m x warps_n warps, each warp
// owning an (m / warps_m) x (n / warps_n) region of C made of m16n8k16 atoms. A is replicated
// over the warps of a row, B over the warps of a column.
struct MmaLayouts {
  Layout a, b, c;
};
MmaLayouts mma_layouts(int m, int n, int k, int warps_m, int warps_n);

// The splits of `warps` warps into warps_m x warps_n for which an m x n x k tile divides into
// m16n8k16 atoms, best first: fewest A and B fragment elements per warp (m / warps_m + n / warps_n,
// so 4 warps on a square tile split 2x2), then more warps along m.
struct WarpSplit {
  int m, n;
};
std::vector<WarpSplit> mma_warp_splits(int m, int n, int k, int warps);

}  // namespace tessel
