// Column sums of [n_rows, 64] floats in one launch through global scratch buffers: each block stores
// its partial sums in an undefined scratch and takes a ticket from a zeroed one, and the block with
// the last ticket adds the partials in block order, writes the sums and puts the ticket counter
// back to zero. The C++ tests (scratch_kernels.hpp) and the Python ones (python/tests) run it.
#pragma once

#include "tessel/tessel.hpp"

namespace tessel::testing {

template <bool ResetTickets = true> struct LastBlockColumnSums : Script {
  void operator()(Int32 n_rows, Ptr<float> x, Ptr<float> sums) {
    Int32 blocks = cdiv(n_rows, 16);
    attrs.blocks = blocks;
    attrs.warps = 2;
    auto partials = global_scratch<float>({blocks, 64});
    auto tickets = global_scratch<int32_t>({1}, ScratchContents::zeroed);
    auto ticket_of_block = shared_tensor<int32_t>({1});
    auto t = load_global(global_view(x, {n_rows, 64}), {blockIdx.x * 16, 0}, {16, 64});
    store_global(partials, sum(t, 0), {blockIdx.x, 0});
    sync();  // the block's partial is stored before its ticket releases it
    single_thread([&] { atomic.store(ticket_of_block, {0}, atomic.fetch_add(tickets, {0}, 1, MemoryOrder::acq_rel)); });
    sync();
    if_(atomic.load<int32_t>(ticket_of_block, {0}) == blocks - 1, [&] {
      auto total = load_global(partials, {0, 0}, {1, 64});
      for (Int32 b : range(1, blocks)) total = total + load_global(partials, {b, 0}, {1, 64});
      store_global(global_view(sums, {1, 64}), total, {0, 0});
      if constexpr (ResetTickets) single_thread([&] { atomic.store(tickets, {0}, 0); });
    });
  }
};

}  // namespace tessel::testing
