#pragma once

#include "tessel/lib/tile_tickets.hpp"
#include "tessel/tessel.hpp"

namespace tessel {

// Split-K's reduction through global memory, as a tessel::Class: the `splits` units of an output
// tile each hold an f32 partial of it; each stores its partial to a global scratch [splits, m, n]
// and takes a ticket of the tile (TileTickets). The unit that takes the last one sums the partials
// and writes the tile. Called by the thread group that holds the partial.
struct SplitKReduction : Class {
  int splits;
  GlobalTensor partials;  // f32 [splits, m, n]
  TileTickets tickets;

  // m and n are the output's extents; `tiles` its number of tiles.
  SplitKReduction(int splits, Dim m, Dim n, Dim tiles, loc_t constructed_at = loc_t::current())
      : Class("SplitKReduction", constructed_at),
        splits(splits),
        partials(global_scratch<float>({splits, m, n})),
        tickets(tiles, constructed_at) {}

  // Adds `acc`, split `split`'s partial of tile `tile` at (row, column) of the output; in the unit
  // that completes the tile, `acc` becomes the sum and `write()` runs.
  template <class Write> void reduce(RegisterTensor& acc, const Int32& tile, const Int32& split, const Int32& row,
                                     const Int32& column, Write write) {
    const int rows = acc.shape()[0], columns = acc.shape()[1];
    store_global(partials, reshape(acc, {1, rows, columns}), {split, row, column});
    tickets.take(tile, splits - 1, [&] {
      const auto partial = [&](int s) {
        return reshape(load_global(partials, {s, row, column}, {1, rows, columns}), {rows, columns});
      };
      acc = partial(0);
      for (int s = 1; s < splits; ++s) acc = acc + partial(s);
      write();
    });
  }
};

}  // namespace tessel
