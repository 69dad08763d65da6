// free_shared's kernel: a transpose through one shared tile, then an increment through a tile of
// another type in its bytes, on the simulator (shared_lifetime_test.cpp) and on the GPU
// (gpu/shared_lifetime_gpu_test.cpp).
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// y = x transposed through one shared tile, then y + 1 through a second tile of another type that
// takes the first one's bytes (block of 64 x 64 elements).
template <bool SyncBeforeReuse> struct TransposeThenIncrement : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 64);
    attrs.warps = 4;
    const Int32 row = blockIdx.x * 64;
    auto staging = shared_tensor<float>({64, 64});
    store_shared(staging, load_global(global_view(x, {n, 64}), {row, 0}, {64, 64}));
    sync();
    auto transposed = load_shared(staging.transpose());
    if constexpr (SyncBeforeReuse) sync();
    free_shared(staging);
    auto halves = shared_tensor<f16>({64, 64});
    store_shared(halves, transposed.to<f16>());
    sync();
    auto back = load_shared(halves).to<float>() + 1.0f;
    store_global(global_view(y, {64, n}), back, {0, row});
  }
};

inline std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-512, 512);
  std::vector<float> v(n);
  for (float& e : v) e = float(d(rng)) / 8;  // exact in f16
  return v;
}

// Runs TransposeThenIncrement<true> on `dev` (with `options`) and checks y = x^T + 1 exactly.
inline void check_transpose_then_increment(const Device& dev, const KernelOptions& options = {}) {
  const int n = 128;
  const std::vector<float> x = random_values(size_t(n) * 64, 3);
  Buffer<float> dx(dev, x), dy(dev, std::vector<float>(x.size(), std::nanf("")));
  Kernel<TransposeThenIncrement<true>> kernel(dev, options);
  kernel(n, dx, dy);
  const std::vector<float> y = dy.download();
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < 64; ++c) ASSERT_EQ(y[size_t(c) * n + r], x[size_t(r) * 64 + c] + 1) << r << ", " << c;
}

}  // namespace tessel::testing
