#pragma once

#include "tessel/tessel.hpp"

namespace tessel {

// The Hopper ladder's epilogue: a block's output tile into a shared tile (stmatrix), then out to
// global memory by TMA stores that one thread issues. The next tile waits for those stores to have
// read the shared tile only when it is about to overwrite it, so a persistent block's stores run
// under its next tile's mma. The shared tile is kept as blocks of 128 bytes of columns (64 of
// 16-bit elements, 32 of f32), each a TMA box whose rows take the 128-byte swizzle, so that the
// eight rows of each stmatrix (or of each f32 store) land in different banks (rows of a whole
// 512-byte tile would all start in the same one); a tile of another width is one block, whose
// swizzle the compiler chooses.
template <class T> struct TmaStoreEpilogue : Class {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "TmaStoreEpilogue stores 16-bit or 32-bit elements");
  static constexpr int span = 128 / int(sizeof(T));  // the columns of one swizzled 128-byte row
  int rows, columns;
  SharedTensor staged;  // [blocks, rows, block_columns()]

  // Every thread of the calling thread group stores (each call's sync() is the group's barrier).
  TmaStoreEpilogue(int rows, int columns, loc_t constructed_at = loc_t::current())
      : Class("TmaStoreEpilogue", constructed_at),
        rows(rows),
        columns(columns),
        staged(block_columns() == span ? shared_tensor<T>({columns / span, rows, span}, Swizzle::b128, constructed_at)
                                       : shared_tensor<T>({1, rows, columns}, constructed_at)) {}

  // Columns of one block: 128 bytes, the widest row a swizzled TMA box has.
  int block_columns() const { return columns % span == 0 ? span : columns; }

  // `tile` ([rows, columns], converted to T block by block) to `g` at (row, column); columns or rows
  // past g's extents are not written.
  void store(const RegisterTensor& tile, const GlobalTensor& g, const Expr<int32_t>& row, const Expr<int32_t>& column) {
    // The previous tile's store has read the shared tile before anyone overwrites it.
    single_thread([&] { tma.wait_group(0, true); });
    sync();
    const int width = block_columns();
    for (int j = 0; j < columns / width; ++j)
      store_shared(staged[j], tile.slice({0, j * width}, {rows, width}).to<T>());
    fence.proxy_async();
    sync();
    single_thread([&] {
      for (int j = 0; j < columns / width; ++j) tma.shared_to_global(staged[j], g, {row, column + j * width});
      tma.commit_group();
    });
  }

  // Before the block ends: its last stores have completed.
  void finish() {
    single_thread([&] { tma.wait_group(0); });
  }
};

}  // namespace tessel
