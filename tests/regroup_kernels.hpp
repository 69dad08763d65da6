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
// interleave(x, y, 1), [8, 128]. Without `pinned`, x and y take the layouts the regroupings give
// them (their results as large as both: the operands' layouts come first).
struct Regroupings : Script {
  bool pinned = true;
  void operator()(Ptr<float> x, Ptr<float> y, Ptr<float> split, Ptr<float> flat, Ptr<float> transposed,
                  Ptr<float> side_by_side, Ptr<float> stacked, Ptr<float> zipped) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout rows = Layout::spatial({8, 4}) * Layout::local({1, 16});
    auto a = pinned ? load_global(global_view(x, {8, 64}), {0, 0}, {8, 64}, rows)
                    : load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});
    auto b = pinned ? load_global(global_view(y, {8, 64}), {0, 0}, {8, 64}, rows)
                    : load_global(global_view(y, {8, 64}), {0, 0}, {8, 64});
    store_global(global_view(split, {8, 4, 16}), reshape(a, {8, 4, 16}), {0, 0, 0});
    store_global(global_view(flat, {512}), reshape(a, {512}), {0});
    store_global(global_view(transposed, {64, 8}), permute(a, {1, 0}), {0, 0});
    store_global(global_view(side_by_side, {8, 128}), concat(a, b, 1), {0, 0});
    store_global(global_view(stacked, {16, 64}), concat(a, b, 0), {0, 0});
    store_global(global_view(zipped, {8, 128}), interleave(a, b, 1), {0, 0});
  }
};

struct RegroupingsOfDefaultLayouts : Regroupings {
  RegroupingsOfDefaultLayouts() { pinned = false; }
};

template <class S = Regroupings> void check_regroupings(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(512), y(512);
  for (float& v : x) v = dist(rng);
  for (float& v : y) v = dist(rng);
  const auto poisoned = [&](size_t n) { return Buffer<float>(dev, std::vector<float>(n, -1e30f)); };
  Buffer<float> dx(dev, x), dy(dev, y);
  auto split = poisoned(512), flat = poisoned(512), transposed = poisoned(512), side = poisoned(1024),
       stacked = poisoned(1024), zipped = poisoned(1024);
  Kernel<S>(dev, KernelOptions{.sim = options})(dx, dy, split, flat, transposed, side, stacked, zipped);
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

// Layout conversions by warp shuffles, over two warps. x [2, 96]: each thread holds 3 consecutive
// elements of its warp's row, which a reshape to [2, 3, 32] would cut; converted to a layout whose
// threads hold columns 32 apart, it reshapes, so `split` is x. h [8, 32] (f16) is converted by the
// second warp between two layouts that share no thread's registers, so `halves` is h.
struct ConvertsLayouts : Script {
  void operator()(Ptr<float> x, Ptr<float> split, Ptr<f16> h, Ptr<f16> halves) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto t = load_global(global_view(x, {2, 96}), {0, 0}, {2, 96}, Layout::spatial({2, 32}) * Layout::local({1, 3}));
    auto columns = convert_layout(t, Layout::spatial({2, 1}) * Layout::local({1, 3}) * Layout::spatial({1, 32}));
    store_global(global_view(split, {2, 3, 32}), reshape(columns, {2, 3, 32}), {0, 0, 0});
    thread_group(32, 32, [&] {
      auto u = load_global(global_view(h, {8, 32}), {0, 0}, {8, 32}, Layout::spatial({4, 8}) * Layout::local({2, 4}));
      auto v = convert_layout(u, Layout::local({2, 4}) * Layout::spatial({4, 8}));
      store_global(global_view(halves, {8, 32}), v, {0, 0});
    });
  }
};

inline void check_layout_conversions(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(192);
  std::vector<f16> h(256);
  for (float& v : x) v = dist(rng);
  for (f16& v : h) v = f16(dist(rng));
  Buffer<float> dx(dev, x), split(dev, std::vector<float>(192, -1e30f));
  Buffer<f16> dh(dev, h), halves(dev, std::vector<f16>(256, f16(-99.0f)));
  Kernel<ConvertsLayouts>(dev, KernelOptions{.sim = options})(dx, split, dh, halves);
  EXPECT_EQ(split.download(), x);
  const std::vector<f16> got = halves.download();
  for (size_t i = 0; i < h.size(); ++i) ASSERT_EQ(float(got[i]), float(h[i])) << i;
}

// Layout conversions across warps, through shared memory, in a block of four warps. x [64, 128]
// (f32) is read in two halves of 32 rows, each in a layout whose warps hold 8 rows, converted to one
// whose warps hold 32 columns (the second half reuses the scratch the first went through), and
// stored doubled to y. r [1, 64] (f16), element j in threads 2j and 2j + 1 of the four warps, is converted
// so that every thread holds the whole row, and multiplied by c [128, 1], a row per thread: every
// thread's copy of the row shows in outer [128, 64] = c rᵀ.
struct ConvertsLayoutsAcrossWarps : Script {
  void operator()(Ptr<float> x, Ptr<float> y, Ptr<f16> r, Ptr<float> c, Ptr<float> outer) {
    attrs.blocks = 1;
    attrs.warps = 4;
    const Layout rows_by_warp = Layout::spatial({32, 4}) * Layout::local({1, 32});
    const Layout columns_by_warp = Layout::column_spatial({32, 4}) * Layout::local({1, 32});
    for (Int32 half : range(0, 2)) {
      auto rows = load_global(global_view(x, {64, 128}), {half * 32, 0}, {32, 128}, rows_by_warp);
      store_global(global_view(y, {64, 128}), convert_layout(rows, columns_by_warp) * 2.0f, {half * 32, 0});
    }
    auto row =
        load_global(global_view(r, {1, 64}), {0, 0}, {1, 64}, Layout::spatial({1, 64}) * Layout::replicated(2, 2));
    auto everywhere = convert_layout(row, Layout::replicated(2, 128) * Layout::local({1, 64}));
    auto column = load_global(global_view(c, {128, 1}), {0, 0}, {128, 1}, Layout::spatial({128, 1}));
    store_global(global_view(outer, {128, 64}),
                 fma(column, everywhere.to<float>(),
                     register_tensor<float>({128, 64}, 0.0f, Layout::spatial({128, 1}) * Layout::local({1, 64}))),
                 {0, 0});
  }
};

inline void check_layout_conversions_across_warps(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(size_t(64) * 128), c(128);
  std::vector<f16> r(64);
  for (float& v : x) v = dist(rng);
  for (float& v : c) v = dist(rng);
  for (f16& v : r) v = f16(dist(rng));
  Buffer<float> dx(dev, x), y(dev, std::vector<float>(x.size(), -1e30f)), dc(dev, c),
      outer(dev, std::vector<float>(size_t(128) * 64, -1e30f));
  Buffer<f16> dr(dev, r);
  Kernel<ConvertsLayoutsAcrossWarps>(dev, KernelOptions{.sim = options})(dx, y, dr, dc, outer);
  const std::vector<float> got_y = y.download(), got_outer = outer.download();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got_y[i], 2.0f * x[i]) << i;
  for (size_t i = 0; i < 128; ++i)
    for (size_t j = 0; j < 64; ++j) ASSERT_EQ(got_outer[i * 64 + j], c[i] * float(r[j])) << i << "," << j;
}

}  // namespace tessel::testing
