#pragma once

#include <utility>

#include "tessel/tessel.hpp"

namespace tessel {

// Seed 000's tile rasterization: a one-dimensional grid of blocks walks the output tiles in groups
// of `swizzle_size` N columns, down the M tiles of a group in row-major order, so that the blocks
// of a wave share few A rows and B columns and find them in L2. The divisions by grid constants
// use fast_divmod.
struct TileRasterization : Class {
  int swizzle_size;
  explicit TileRasterization(int swizzle_size) : swizzle_size(swizzle_size) {}

  // Maps a linear block index to (m_block, n_block) with swizzle grouping.
  std::pair<Int32, Int32> compute_block_coord(const Int32& linear_idx, const Int32& num_m_blocks,
                                              const Int32& num_n_blocks) {
    Int32 tiles_per_group = num_m_blocks * swizzle_size;
    auto [group_idx, in_group_idx] = fast_divmod(linear_idx, tiles_per_group);
    Int32 first_n = group_idx * swizzle_size;
    Int32 m_block = 0;
    Int32 n_block = 0;
    // When num_n_blocks is a multiple of swizzle_size, every group is full and last_group_width
    // is never used; swizzle_size keeps its precomputed division well defined.
    Int32 remainder = num_n_blocks - num_n_blocks / swizzle_size * swizzle_size;
    Int32 last_group_width = select(remainder > 0, remainder, swizzle_size);
    if_(first_n + swizzle_size <= num_n_blocks, [&] {
      // a full group: swizzle_size is a compile-time constant
      auto [q, r] = fast_divmod(in_group_idx, swizzle_size);
      m_block = q;
      n_block = first_n + r;
    }).else_([&] {
      // the last group: its width is num_n_blocks % swizzle_size, a grid constant
      auto [q, r] = fast_divmod(in_group_idx, last_group_width);
      m_block = q;
      n_block = first_n + r;
    });
    return {std::move(m_block), std::move(n_block)};
  }
};

}  // namespace tessel
