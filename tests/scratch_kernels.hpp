// Global scratch buffers (global_scratch), with host expectations for the column sums of
// last_block_column_sums.hpp. Run on the simulator by tests/scratch_test.cpp and on the GPU by
// tests/gpu/scratch_gpu_test.cpp.
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "last_block_column_sums.hpp"

namespace tessel::testing {

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
