// Register regroupings (reshape, permute, concat, interleave), with host expectations: each result
// is stored and compared with the element its definition names. Run on the simulator by
// tests/regroup_test.cpp and on the GPU by tests/gpu/regroup_gpu_test.cpp.
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// x and y are [8, 64]; each thread of the warp holds 16 consecutive elements of a row. Outputs:
// split: x reshaped to [8, 4, 16]; flat: x reshaped to [512]; transposed: x permuted to [64, 8];
// side_by_side: concat(x, y, 1), [8, 128]; stacked: concat(x, y, 0), [16, 64]; zipped:
// interleave(x, y, 1), [8, 128].
struct Regroupings : Script {
  void operator()(Ptr<float> x, Ptr<float> y, Ptr<float> split, Ptr<float> flat, Ptr<float> transposed,
                  Ptr<float> side_by_side, Ptr<float> stacked, Ptr<float> zipped) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout rows = Layout::spatial({8, 4}) * Layout::local({1, 16});
    auto a = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64}, rows);
    auto b = load_global(global_view(y, {8, 64}), {0, 0}, {8, 64}, rows);
    store_global(global_view(split, {8, 4, 16}), reshape(a, {8, 4, 16}), {0, 0, 0});
    store_global(global_view(flat, {512}), reshape(a, {512}), {0});
    store_global(global_view(transposed, {64, 8}), permute(a, {1, 0}), {0, 0});
    store_global(global_view(side_by_side, {8, 128}), concat(a, b, 1), {0, 0});
    store_global(global_view(stacked, {16, 64}), concat(a, b, 0), {0, 0});
    store_global(global_view(zipped, {8, 128}), interleave(a, b, 1), {0, 0});
  }
};

inline void check_regroupings(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(512), y(512);
  for (float& v : x) v = dist(rng);
  for (float& v : y) v = dist(rng);
  const auto poisoned = [&](size_t n) { return Buffer<float>(dev, std::vector<float>(n, -1e30f)); };
  Buffer<float> dx(dev, x), dy(dev, y);
  auto split = poisoned(512), flat = poisoned(512), transposed = poisoned(512), side = poisoned(1024),
       stacked = poisoned(1024), zipped = poisoned(1024);
  Kernel<Regroupings>(dev, KernelOptions{.sim = options})(dx, dy, split, flat, transposed, side, stacked, zipped);
  EXPECT_EQ(split.download(), x);
  EXPECT_EQ(flat.download(), x);
  const auto t = transposed.download(), s = side.download(), st = stacked.download(), z = zipped.download();
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) {
      const float a = x[size_t(r) * 64 + c], b = y[size_t(r) * 64 + c];
      ASSERT_EQ(t[size_t(c) * 8 + r], a) << "permute at " << r << "," << c;
      ASSERT_EQ(s[size_t(r) * 128 + c], a) << "concat at " << r << "," << c;
      ASSERT_EQ(s[size_t(r) * 128 + 64 + c], b) << "concat at " << r << "," << c;
      ASSERT_EQ(st[size_t(r) * 64 + c], a) << "stack at " << r << "," << c;
      ASSERT_EQ(st[size_t(r + 8) * 64 + c], b) << "stack at " << r << "," << c;
      ASSERT_EQ(z[size_t(r) * 128 + 2 * c], a) << "interleave at " << r << "," << c;
      ASSERT_EQ(z[size_t(r) * 128 + 2 * c + 1], b) << "interleave at " << r << "," << c;
    }
}

}  // namespace tessel::testing
