#pragma once

#include "tessel/tessel.hpp"

namespace tessel {

// Where the row tiles of a grouped GEMM lie, when only the device knows the groups' sizes. Group g
// has the rows [ends[g - 1], ends[g]) (from 0 for the first) of a matrix of `rows` rows, cut into
// tiles of block_m rows from its first (its last tile may be partial); the tiles of all groups are
// numbered in the groups' order. seek(t) moves the cursor to the group of tile t by walking the
// groups' ends, forward from where it stands or, for a tile before it, from the first group:
// persistent blocks walk growing tiles, so each reads a group's end about once per pass.
struct GroupedTiles : Class {
  GlobalTensor ends;
  Int32 groups, rows;
  int block_m;
  Int32 group = 0;         // the cursor's group (`groups` once it has run past the last one)
  Int32 tiles_before = 0;  // the tiles of the groups before it
  Int32 first_row = 0;     // its rows [first_row, end_row)
  Int32 end_row;

  GroupedTiles(GlobalTensor ends, Int32 groups, Int32 rows, int block_m, loc_t constructed_at = loc_t::current())
      : Class("GroupedTiles", constructed_at),
        ends(std::move(ends)),
        groups(std::move(groups)),
        rows(std::move(rows)),
        block_m(block_m),
        end_row(end_of(0, 0)) {}

  // Where group g's rows end, given where they begin: never before that (an end that decreases
  // gives the group no rows) nor past the last row, so that no tile reaches outside the matrix.
  Int32 end_of(const Int32& g, const Int32& begin) {
    return min(rows, max(begin, load_global(ends, {g}, {1}, Layout{}, 0).item<int32_t>()));
  }
  // An expression of the cursor's variables, so that seek's loop test reads it as it is.
  Expr<int32_t> tiles_of_group() const { return cdiv(end_row - first_row, block_m); }

  void seek(const Int32& tile) {
    if_(tile < tiles_before, [&] {
      group = 0;
      tiles_before = 0;
      first_row = 0;
      end_row = end_of(0, 0);
    });
    while_([&] { return group < groups && tile >= tiles_before + tiles_of_group(); },
           [&] {
             tiles_before = tiles_before + tiles_of_group();
             group = group + 1;
             first_row = end_row;
             end_row = end_of(group, first_row);
           });
  }
  // After seek(tile): whether the tile exists, and its first row.
  Expr<bool> found() const { return group < groups; }
  Int32 row_of(const Int32& tile) const { return first_row + (tile - tiles_before) * block_m; }
};

}  // namespace tessel
