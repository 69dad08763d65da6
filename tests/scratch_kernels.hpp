// Global scratch buffers (global_scratch), with host expectations: column sums in one launch, where
// each block stores its partial sums in an undefined scratch, takes a ticket from a zeroed one,
// and the block with the last ticket adds the partials in block order, writes the sums and puts
// the ticket counter back to zero. Run on the simulator by tests/scratch_test.cpp and on the GPU
// by tests/gpu/scratch_gpu_test.cpp.
#pragma once

#include <random>

#include <gtest/gtest.h>

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

// Two launches of one kernel object: the second finds the tickets at zero again.
inline void check_last_block_column_sums(const Device& dev, int rows, const sim::Options& options = {}) {
  std::mt19937 rng(5);
  std::vector<float> x(size_t(rows) * 64);
  for (float& v : x) v = float(int(rng() % 2001) - 1000) / 64;
  Buffer<float> dx(dev, x);
  Kernel<LastBlockColumnSums<>> kernel(dev, KernelOptions{.sim = options});
  for (int launch = 0; launch < 2; ++launch) {
    Buffer<float> dsums(dev, std::vector<float>(64, -1.0f));
    kernel(rows, dx, dsums);
    const auto got = dsums.download();
    for (int c = 0; c < 64; ++c) {
      double want = 0;
      for (int r = 0; r < rows; ++r) want += double(x[size_t(r) * 64 + c]);
      // Multiples of 1/64 below 2^17 add exactly in f32, in any order.
      EXPECT_EQ(double(got[size_t(c)]), want) << "launch " << launch << ", column " << c;
    }
  }
}

}  // namespace tessel::testing
