#pragma once

#include "tessel/lib/tile_tickets.hpp"
#include "tessel/tessel.hpp"

namespace tessel {

// Stream-K's division of a GEMM's work, as a tessel::Class: the k-tiles of all output tiles, tile
// after tile, are shared out among the grid's blocks in runs of equal length (the first
// `total % blocks` blocks take one more), so that every block has as much to do however few tiles
// there are for the multiprocessors. A block's run is cut at tile boundaries into segments. A tile
// whose k-tiles one block does alone is written by it; a tile cut between blocks is finished by the
// block that completes it last, which sums the f32 partials the others stored in a global scratch,
// as SplitKReduction does. A block stores at most two partials (the tiles its run starts and ends
// in), so the scratch is [blocks, 2, rows, columns], whatever the output's size.
struct StreamK : Class {
  Int32 k_tiles;          // of each tile
  Int32 share;            // k-tiles every block takes
  Int32 longer;           // blocks that take one k-tile more
  Int32 block;            // this block's index
  GlobalTensor partials;  // f32 [blocks, 2, rows, columns]
  TileTickets tickets;

  // `tiles` output tiles of `k_tiles` k-tiles each, over a grid of `blocks` blocks (at most
  // tiles × k_tiles, the value attrs.blocks is set to), of which this is block `block`; a tile's
  // accumulator is rows × columns.
  StreamK(const Int32& tiles, const Int32& k_tiles, const Int32& blocks, const Expr<int32_t>& block, int rows,
          int columns, loc_t constructed_at = loc_t::current())
      : Class("StreamK", constructed_at),
        k_tiles(k_tiles),
        share(tiles * k_tiles / blocks),
        longer(tiles * k_tiles % blocks),
        block(block),
        partials(global_scratch<float>({blocks, 2, rows, columns})),
        tickets(tiles, constructed_at) {}

  // Calls body(tile, first, last) for each segment of this block's run: k-tiles [first, last) of
  // tile `tile`, in order. The body runs in this walk's loop, so continue_() there goes on with the
  // next segment and break_() ends the walk.
  template <class Body> void for_each_segment(Body body) {
    Int32 position = begin_of(block);
    const Int32 end = begin_of(block + 1);
    while_([&] { return position < end; },
           [&] {
             const Int32 tile = position / k_tiles, first = position % k_tiles;
             const Int32 last = min(k_tiles, first + end - position);
             position = position + (last - first);
             body(tile, first, last);
           });
  }

  // With `acc` the partial of k-tiles [first, last) of tile `tile`: writes the tile (`write()`)
  // where this block did all of it; else stores the partial, and in the block that completes the
  // tile `acc` becomes the sum of every block's partial and `write()` runs. Called by the thread
  // group that holds the accumulator.
  template <class Write>
  void finish(RegisterTensor& acc, const Int32& tile, const Int32& first, const Int32& last, Write write) {
    if_(first == 0 && last == k_tiles, [&] { write(); }).else_([&] {
      const int rows = acc.shape()[0], columns = acc.shape()[1];
      const Int32 first_owner = owner_of(tile * k_tiles), last_owner = owner_of(tile * k_tiles + k_tiles - 1);
      store_global(partials, reshape(acc, {1, 1, rows, columns}), {block, slot_of(block, tile), 0, 0});
      tickets.take(tile, last_owner - first_owner, [&] {
        const auto partial = [&](const Int32& owner) {
          return reshape(load_global(partials, {owner, slot_of(owner, tile), 0, 0}, {1, 1, rows, columns}),
                         {rows, columns});
        };
        acc = partial(first_owner);
        for (Int32 owner : range(first_owner + 1, last_owner + 1)) acc = acc + partial(owner);
        write();
      });
    });
  }

 private:
  // The first k-tile of block b's run.
  Expr<int32_t> begin_of(const Expr<int32_t>& b) const { return b * share + min(b, longer); }
  // The block whose run holds k-tile i.
  Expr<int32_t> owner_of(const Expr<int32_t>& i) const {
    const Expr<int32_t> boundary = longer * (share + 1);
    return select(i < boundary, i / (share + 1), longer + (i - boundary) / share);
  }
  // Where block b keeps its partial of `tile`: 0 for the tile its run starts in, 1 for the one it
  // ends in.
  Expr<int32_t> slot_of(const Expr<int32_t>& b, const Int32& tile) const {
    return select(begin_of(b) / k_tiles == tile, 0, 1);
  }
};

}  // namespace tessel
