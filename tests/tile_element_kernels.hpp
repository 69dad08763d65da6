// A tile's value as a kernel value (item<T>()), with host expectations. Run on the simulator by
// tests/tile_element_test.cpp and on the GPU by tests/gpu/tile_element_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// x [4, 128] over a block of four warps. The number of its positive elements, a block-wide sum, is
// the trip count of a loop; whether its largest element passes 3, a bool tile's value, picks a
// branch; and its sum, rounded to i32 by item<int32_t>(), is stored as it is.
struct SteersByTileValues : Script {
  void operator()(Ptr<float> x, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {4, 128}), {0, 0}, {4, 128});
    Int32 count = sum(sum((t > 0.0f).to<int32_t>(), 1), 0).item<int32_t>();
    Int32 steps = 0;
    for (Int32 i : range(0, count)) steps = steps + 2;
    Int32 branch = -1;
    if_((max(max(t, 1), 0) > 3.0f).item<bool>(), [&] { branch = 1; });
    Int32 total = sum(sum(t, 1), 0).item<int32_t>();
    single_thread([&] {
      auto g = global_view(out, {3});
      store_global(g, register_tensor<int32_t>({1}, steps), {0});
      store_global(g, register_tensor<int32_t>({1}, branch), {1});
      store_global(g, register_tensor<int32_t>({1}, total), {2});
    });
  }
};

inline void check_steering_by_tile_values(const Device& dev, const sim::Options& options = {}) {
  for (const float largest : {2.5f, 3.5f}) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(512);
    for (float& v : x) v = std::round(dist(rng) * 4) / 4;  // quarters: the sums are exact in any order
    x[300] = largest;
    const int positive = int(std::count_if(x.begin(), x.end(), [](float v) { return v > 0; }));
    float total = 0;
    for (float v : x) total += v;
    Buffer<float> dx(dev, x);
    Buffer<int32_t> out(dev, std::vector<int32_t>(3, -99));
    Kernel<SteersByTileValues>(dev, KernelOptions{.sim = options})(dx, out);
    EXPECT_EQ(out.download(),
              (std::vector<int32_t>{2 * positive, largest > 3 ? 1 : -1, int32_t(std::nearbyint(total))}))
        << "largest " << largest;
  }
}

}  // namespace tessel::testing
