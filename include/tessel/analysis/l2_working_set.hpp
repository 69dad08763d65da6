// Tile rasterization and the L2 working set it implies. A matmul launched as a 1D grid maps each
// block index to a tile (m_block, n_block) of C; tile (m, n) reads row-strip m of A and
// column-strip n of B over all of K. The blocks running at once (a wave) need every strip they
// touch, so the order of the tiles decides how much of A and B must stay in L2.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::analysis {

struct TileOrder {
  enum class Kind { ColumnMajor, Swizzled };
  Kind kind = Kind::ColumnMajor;
  int swizzle_size = 1;  // Swizzled: N-columns per group

  // Block index walks M first: what a 2D grid with blockIdx.x over M does.
  static TileOrder column_major() { return {}; }
  // The tiling seed's compute_block_coord: N-columns in groups of `size`, row-major within a group.
  static TileOrder swizzled(int size) { return {Kind::Swizzled, size}; }
  std::string str() const;  // "column-major", "swizzle 4"
};

struct TileCoord {
  int m_block = 0, n_block = 0;
  bool operator==(const TileCoord&) const = default;
};

// The tile that block `linear` of a num_m_blocks x num_n_blocks grid computes. Every tile is
// visited exactly once over 0 .. num_m_blocks * num_n_blocks - 1, also when swizzle_size does not
// divide num_n_blocks (the last group is narrower). Throws tessel::Error for an index outside
// the grid or a swizzle size below 1.
TileCoord tile_coord(const TileOrder& order, int64_t linear, int num_m_blocks, int num_n_blocks);

struct WorkingSetQuery {
  int num_m_blocks = 0, num_n_blocks = 0;
  int block_m = 0, block_n = 0;
  int64_t k = 0;
  int elem_bytes = 2;
  int active_blocks = 0;  // blocks resident at once: blocks per SM x SMs
  TileOrder order;
};

// The distinct strips the first wave touches. A strip is a full block_m x K (A) or K x block_n
// (B) slab; edge tiles count as full.
struct WorkingSet {
  int blocks = 0;  // in the wave: active_blocks, or the whole grid when that is smaller
  int a_strips = 0, b_strips = 0;
  int64_t a_strip_bytes = 0, b_strip_bytes = 0;

  int strips() const { return a_strips + b_strips; }
  int64_t a_bytes() const { return a_strips * a_strip_bytes; }
  int64_t b_bytes() const { return b_strips * b_strip_bytes; }
  int64_t bytes() const { return a_bytes() + b_bytes(); }
};

// Throws tessel::Error for sizes that are not positive.
WorkingSet first_wave_working_set(const WorkingSetQuery& query);

}  // namespace tessel::analysis
