// XOR swizzles of shared-memory tiles. A swizzle of `bits` (1, 2, 3 for the 32-, 64- and 128-byte
// patterns) XORs the 16-byte chunk index inside each 128-byte line with the line index modulo
// 2^bits: byte bits [4, 4+bits) ^= bits [7, 7+bits) — CUTLASS's Swizzle<bits, 4, 3>, the layout
// TMA and wgmma call SWIZZLE_32B/64B/128B (hw-semantics.md §3.2). Rows of 8 x 16 bytes read by
// ldmatrix then fall into 8 different bank groups.
#pragma once

#include <cstdint>

namespace tessel {

inline int64_t swizzle_byte(int64_t byte, int bits) {
  if (bits == 0) return byte;
  return byte ^ (((byte >> 7) & ((int64_t(1) << bits) - 1)) << 4);
}

// The smallest swizzle under which 8 consecutive rows of `row_bytes` each, read 16 bytes at the same
// column, hit 8 distinct groups of 4 banks (an ldmatrix 8x8 access without conflicts); the 128-byte
// pattern when none does (rows wider than 128 bytes keep 2-way conflicts).
int conflict_free_swizzle_bits(int row_bytes);

// The number of distinct 16-byte bank groups the 8-row access above touches at column `chunk`.
int bank_groups_touched(int row_bytes, int bits, int chunk);

}  // namespace tessel
