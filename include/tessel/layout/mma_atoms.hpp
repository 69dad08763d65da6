// Tensor-core fragment layouts written in the layout algebra, and the block-level layouts built
// from them. With lane = 4 * groupID + threadID (PTX ISA 9.7.14.5, "Matrix Fragments for mma"):
// m16n8k16, f16/bf16 operands:
//   A (16x16): row = groupID (+8 for a2,a3,a6,a7), col = 2*threadID + (i & 1) (+8 for a4..a7)
//   B (16x8):  row = 2*threadID + (i & 1) (+8 for b2,b3), col = groupID
// m16n8k32, s8 operands (four per 32-bit register):
//   A (16x32): row = groupID (+8 for a4..a7, a12..a15), col = 4*threadID + (i & 3) (+16 for a8..a15)
//   B (32x8):  row = 4*threadID + (i & 3) (+16 for b4..b7), col = groupID
// m16n8k8, tf32 operands (one per 32-bit register):
//   A (16x8):  row = groupID (+8 for a1, a3), col = threadID (+4 for a2, a3)
//   B (8x8):   row = threadID (+4 for b1), col = groupID
// Every shape, f32 or s32 accumulator:
//   C (16x8):  row = groupID (+8 for c2,c3), col = 2*threadID + (i & 1)
#pragma once

#include <vector>

#include "tessel/dtype.hpp"
#include "tessel/layout/layout.hpp"

namespace tessel {

Layout mma_m16n8k16_a();
Layout mma_m16n8k16_b();
Layout mma_m16n8k16_c();
Layout mma_m16n8k32_s8_a();
Layout mma_m16n8k32_s8_b();
Layout mma_m16n8k8_tf32_a();
Layout mma_m16n8k8_tf32_b();

// One mma.sync shape: an m x n x k product per warp, with the fragment layouts of its operands.
struct MmaAtom {
  int m, n, k;
  Layout a, b, c;
};
// The atom for operands of `operand` type: m16n8k16 for f16 and bf16, m16n8k32 for the 8-bit types (i8, u8, e4m3,
// e5m2), m16n8k8 for tf32. Throws tessel::Error for other types.
const MmaAtom& mma_atom(DType operand);

// Layouts for a block computing C[m, n] += A[m, k] B[k, n] with warps_m x warps_n warps, each warp
// owning an (m / warps_m) x (n / warps_n) region of C made of the atoms of `operand`'s type. A is
// replicated over the warps of a row, B over the warps of a column.
struct MmaLayouts {
  Layout a, b, c;
};
MmaLayouts mma_layouts(int m, int n, int k, int warps_m, int warps_n, DType operand = DType::F16);

// The splits of `warps` warps into warps_m x warps_n for which an m x n x k tile divides into
// the atoms of `operand`'s type, best first: fewest A and B fragment elements per warp
// (m / warps_m + n / warps_n, so 4 warps on a square tile split 2x2), then more warps along m.
struct WarpSplit {
  int m, n;
};
std::vector<WarpSplit> mma_warp_splits(int m, int n, int k, int warps, DType operand = DType::F16);

}  // namespace tessel
