// Kernels of f32 multiply-adds, with host expectations: which pairs tessel contracts into one fma
// (rounded once) and which round twice, bit for bit alike on the simulator
// (tests/multiply_add_test.cpp) and the GPU (tests/gpu/multiply_add_gpu_test.cpp).
#pragma once

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Over [128, 64] tiles of a, b and c: sum = a * b + c and difference = a * b - c (each product
// read there only: one fma each), reversed = c - a * s (s a scalar: fma(a, -s, c)), twice = p + c
// with p = a * b also stored (read twice: rounded on its own, then added), and products = a * b +
// a * c (the sum's first operand contracts, whichever product C++ traced first: fma(a, b, a * c)).
struct MultiplyAdds : Script {
  static constexpr int rows = 128, columns = 64;
  void operator()(Float32 s, Ptr<float> a, Ptr<float> b, Ptr<float> c, Ptr<float> sum, Ptr<float> difference,
                  Ptr<float> reversed, Ptr<float> twice, Ptr<float> product, Ptr<float> products) {
    attrs.blocks = 1;
    attrs.warps = 4;
    const auto view = [&](Ptr<float> p) { return global_view(p, {rows, columns}); };
    auto ta = load_global(view(a), {0, 0}, {rows, columns}), tb = load_global(view(b), {0, 0}, {rows, columns});
    auto tc = load_global(view(c), {0, 0}, {rows, columns});
    store_global(view(sum), ta * tb + tc, {0, 0});
    store_global(view(difference), ta * tb - tc, {0, 0});
    store_global(view(reversed), tc - ta * s, {0, 0});
    auto p = ta * tb;
    store_global(view(twice), p + tc, {0, 0});
    store_global(view(product), p, {0, 0});
    store_global(view(products), ta * tb + ta * tc, {0, 0});
  }
};

// Runs MultiplyAdds on `dev` over random inputs, chosen so that most products are inexact in f32,
// and checks every output bit for bit against its host form. Returns how many of the fused sums
// differ from the twice-rounded ones (the check can tell them apart only there).
inline int check_multiply_adds(const Device& dev) {
  constexpr int n = MultiplyAdds::rows * MultiplyAdds::columns;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-3, 3);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = dist(rng), b[i] = dist(rng), c[i] = dist(rng);
  const float s = 1.0f / 3.0f;
  const std::vector<float> poison(n, 77.0f);
  Buffer<float> da(dev, a), db(dev, b), dc(dev, c), sum(dev, poison), difference(dev, poison), reversed(dev, poison),
      twice(dev, poison), product(dev, poison), products(dev, poison);
  Kernel<MultiplyAdds> kernel(dev);
  kernel(s, da, db, dc, sum, difference, reversed, twice, product, products);
  const auto got_sum = sum.download(), got_difference = difference.download(), got_reversed = reversed.download(),
             got_twice = twice.download(), got_product = product.download(), got_products = products.download();
  const auto same_bits = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  int told_apart = 0;
  for (int i = 0; i < n; ++i) {
    const volatile float rounded_product = a[i] * b[i];  // volatile: the host compiler must not contract either
    const float twice_rounded = rounded_product + c[i];
    EXPECT_TRUE(same_bits(got_sum[i], std::fma(a[i], b[i], c[i]))) << i;
    EXPECT_TRUE(same_bits(got_difference[i], std::fma(a[i], b[i], -c[i]))) << i;
    EXPECT_TRUE(same_bits(got_reversed[i], std::fma(-a[i], s, c[i]))) << i;
    EXPECT_TRUE(same_bits(got_twice[i], twice_rounded)) << i;
    EXPECT_TRUE(same_bits(got_product[i], rounded_product)) << i;
    const volatile float second = a[i] * c[i];
    EXPECT_TRUE(same_bits(got_products[i], std::fma(a[i], b[i], second))) << i;
    told_apart += !same_bits(std::fma(a[i], b[i], c[i]), twice_rounded);
  }
  return told_apart;
}

}  // namespace tessel::testing
