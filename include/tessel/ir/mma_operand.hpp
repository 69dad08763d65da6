// How the tensor core (wgmma, tcgen05.mma) reads an operand from shared memory: a matrix of `mn`
// rows (its M or N index) by `k`, in one of the swizzled canonical layouts of PTX ISA
// 9.7.15.5.1.2.1.3 (hw-semantics.md §4.3):
//  - K-major: a view [mn, k] (A) or the transpose of one (B as [k, n]) whose rows run along k and
//    are one swizzle span;
//  - MN-major (16-bit types): a view whose k-rows run along M or N: the transpose of a row-major
//    [k, m] tile (A) or a row-major [k, n] tile (B), its k-rows one swizzle span;
//  - MN-major in span-wide blocks: a tile [mn / P, k, P], P the elements of one swizzle span, the
//    layout TMA writes when each block is one box. The descriptor's leading offset steps from
//    block to block, so M or N may be wider than one span.
#pragma once

#include <cstdint>

#include "tessel/ir/core.hpp"

namespace tessel::ir {

struct MmaOperand {
  bool mn_major = false;
  int mn = 0, k = 0;
  // The bytes of one row of the swizzle pattern: a K-major row of k elements, an MN-major k-row
  // of one block.
  int row_bytes = 0;
  // MN-major: the elements from one span-wide block to the next (the descriptor's leading offset);
  // 0 when M or N is one block.
  int64_t block_stride = 0;
  // The view's elements between consecutive rows (K-major) or k-rows (MN-major).
  int64_t row_stride = 0;
  // The elements per block along M or N (MN-major), which is also the span in elements.
  int block = 0;

  // The element of the view (from its start) at operand row `r` and column `kk`: where an
  // instruction that starts there reads from. `r` is a multiple of 8 (K-major) or of `block`
  // (MN-major, or 0).
  int64_t element(int r, int kk) const;
  // The elements from the operand's first to one past its last.
  int64_t extent() const;
};

// The operand `t` of a tensor-core instruction; `k_dim` is the dimension of a 2-D view along k
// (1 for A [m, k], 0 for B [k, n]). Layouts that are none of the above give a K-major operand with
// row_bytes -1 (the tracers refuse them first, at the user's line).
MmaOperand mma_operand(const SharedTensorNode& t, int k_dim);

}  // namespace tessel::ir
