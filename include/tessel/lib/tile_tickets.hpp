#pragma once

#include "tessel/tessel.hpp"

namespace tessel {

// The tickets by which the units that each hold a partial of an output tile learn which of them
// completes it, as a tessel::Class (split-K's and stream-K's reductions through global memory).
// Each unit stores its partial, then takes a ticket of the tile by an acq_rel fetch_add, so the unit
// that takes the last one sees every other unit's stores.
struct TileTickets : Class {
  GlobalTensor tickets;  // i32 per tile, zero between launches
  SharedTensor ticket;   // the ticket this block took

  explicit TileTickets(const Dim& tiles, loc_t constructed_at = loc_t::current())
      : Class("TileTickets", constructed_at),
        tickets(global_scratch<int32_t>({tiles}, ScratchContents::zeroed)),
        ticket(shared_tensor<int32_t>({1})) {}

  // Called by the thread group that has just stored its partial of tile `tile`: takes the tile's
  // ticket, and in the unit that takes ticket `last` sets it back to 0 for the next launch and runs
  // `complete()`, which may read every unit's partial.
  template <class Complete> void take(const Int32& tile, const Expr<int32_t>& last, Complete complete) {
    sync();  // every partial element is stored before the ticket releases them
    single_thread([&] { atomic.store(ticket, {0}, atomic.fetch_add(tickets, {tile}, 1, MemoryOrder::acq_rel)); });
    sync();
    if_(atomic.load<int32_t>(ticket, {0}) == last, [&] {
      single_thread([&] { atomic.store(tickets, {tile}, 0); });
      complete();
    });
  }
};

}  // namespace tessel
