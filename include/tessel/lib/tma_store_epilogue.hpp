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
// swizzle the compiler chooses. With `passes` > 1 the shared tile holds that fraction of the
// output tile's blocks, which go out in turn, each pass waiting for the stores of the one before
// to have read it: an f32 tile of 128 x 256 (128 KB) then leaves room for the mainloop's stages.
template <class T> struct TmaStoreEpilogue : Class {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "TmaStoreEpilogue stores 16-bit or 32-bit elements");
  static constexpr int span = 128 / int(sizeof(T));  // the columns of one swizzled 128-byte row
  int rows, columns, passes;
  SharedTensor staged;  // [blocks of one pass, rows, block_columns()]

  // Every thread of the calling thread group stores (each call's sync() is the group's barrier).
  TmaStoreEpilogue(int rows, int columns, int passes = 1, loc_t constructed_at = loc_t::current())
      : Class("TmaStoreEpilogue", constructed_at),
        rows(rows),
        columns(columns),
        passes(checked_passes(columns, passes, constructed_at)),
        staged(block_columns() == span
                   ? shared_tensor<T>({columns / span / passes, rows, span}, Swizzle::b128, constructed_at)
                   : shared_tensor<T>({1, rows, columns}, constructed_at)) {}

  // Columns of one block: 128 bytes, the widest row a swizzled TMA box has.
  static int block_columns(int columns) { return columns % span == 0 ? span : columns; }
  int block_columns() const { return block_columns(columns); }
  // `passes`, when it shares the tile's blocks out evenly.
  static int checked_passes(int columns, int passes, loc_t at) {
    const int blocks = columns / block_columns(columns);
    if (passes < 1 || blocks % passes != 0)
      throw Error(SourceLoc::from(at),
                  fmt::format("TmaStoreEpilogue: {} columns make {} blocks of {}, which {} passes do not share out "
                              "evenly",
                              columns, blocks, block_columns(columns), passes));
    return passes;
  }

  // `tile` ([rows, columns], converted to T block by block) to `g` at (row, column); columns or rows
  // past g's extents are not written.
  void store(const RegisterTensor& tile, const GlobalTensor& g, const Expr<int32_t>& row, const Expr<int32_t>& column) {
    const int width = block_columns(), per_pass = columns / width / passes;
    for (int pass = 0; pass < passes; ++pass) {
      // The stores before (this tile's previous pass, or the tile before) have read the shared
      // tile before anyone overwrites it.
      single_thread([&] { tma.wait_group(0, true); });
      sync();
      for (int j = 0; j < per_pass; ++j)
        store_shared(staged[j], tile.slice({0, (pass * per_pass + j) * width}, {rows, width}).to<T>());
      fence.proxy_async();
      sync();
      single_thread([&] {
        for (int j = 0; j < per_pass; ++j)
          tma.shared_to_global(staged[j], g, {row, column + (pass * per_pass + j) * width});
        tma.commit_group();
      });
    }
  }

  // Before the block ends: its last stores have completed.
  void finish() {
    single_thread([&] { tma.wait_group(0); });
  }
};

}  // namespace tessel
