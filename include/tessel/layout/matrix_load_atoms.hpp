// ldmatrix and stmatrix fragments written in the layout algebra (PTX ISA 9.7.14.5.15/16;
// hw-semantics.md §6). Each moves 1, 2 or 4 8x8 matrices of 16-bit elements between shared memory
// and the registers of one warp: register j of lane l = 4g + t holds two elements of matrix j,
// (row g, columns 2t, 2t+1) — or with .trans (rows 2t, 2t+1, column g) — low half first. The
// layouts are over the tile as it lies in shared memory, whose rows are the 16-byte rows the lanes
// address: matrix j is the 8x8 block (j % blocks_down, j / blocks_down) of a (8 * blocks_down) x
// (8 * blocks_across) tile, the order in which lanes 8j..8j+7 supply matrix j's row addresses;
// register slot 2j + h is half h of register j.
//
// The tensor-core fragments are such loads: mma_m16n8k16_a() is ldmatrix_fragment(2, 2, false),
// and mma_m16n8k16_b() is ldmatrix_fragment(1, 2, false) of the k-contiguous (transposed) B tile.
#pragma once

#include "tessel/layout/layout.hpp"

namespace tessel {

// The registers of ldmatrix.x{blocks_down * blocks_across}[.trans]; the count must be 1, 2 or 4.
Layout ldmatrix_fragment(int blocks_down, int blocks_across, bool transposed);

// stmatrix (sm_90+) is the inverse of ldmatrix: the same lane addresses and the same registers.
Layout stmatrix_fragment(int blocks_down, int blocks_across, bool transposed);

}  // namespace tessel
