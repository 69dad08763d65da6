// Gathers and scatters of global memory by index tiles (load_global_gather, store_global_scatter)
// against host references, on the simulator (gather_scatter_test.cpp) and on the GPU
// (gpu/gather_scatter_gpu_test.cpp): the rows of a mixture of experts' token permutation, and
// elements along the last dimension as torch.gather and torch.scatter take them.
#pragma once

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Token rows into their places and from their sources, 32 rows and 128 columns a block:
// permuted[place[i]] = x[i] for the rows whose place is not -1, and gathered[i] = x[source[i]], with
// the rows whose source is negative or beyond the rows read as 7.
struct PermuteTokenRows : Script {
  void operator()(Int32 rows, Int32 hidden, Ptr<f16> x, Ptr<int32_t> place, Ptr<int32_t> source, Ptr<f16> permuted,
                  Ptr<f16> gathered) {
    attrs.blocks = {cdiv(hidden, 128), cdiv(rows, 32)};
    attrs.warps = 4;
    const Int32 row = blockIdx.y * 32, column = blockIdx.x * 128;
    auto g_x = global_view(x, {rows, hidden});
    auto g_permuted = global_view(permuted, {rows, hidden});
    // [32, 1] indices: one per row, the same for each of its columns.
    auto to = load_global(global_view(place, {rows, 1}), {row, 0}, {32, 1}, Layout{}, -1);
    auto from = load_global(global_view(source, {rows, 1}), {row, 0}, {32, 1}, Layout{}, -1);
    store_global_scatter(g_permuted, 0, to, load_global(g_x, {row, column}, {32, 128}), {0, column});
    auto back = load_global_gather(g_x, 0, from, {0, column}, {32, 128}, Layout{}, 7);
    store_global(global_view(gathered, {rows, hidden}), back, {row, column});
  }
};

inline void check_permute_token_rows(const Device& dev, const KernelOptions& options = {}) {
  const int rows = 100, hidden = 512;
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> value(-4, 4);
  std::vector<f16> x(size_t(rows * hidden));
  for (f16& v : x) v = f16(value(rng));
  std::vector<int32_t> place(static_cast<size_t>(rows)), source(static_cast<size_t>(rows));
  std::iota(place.begin(), place.end(), 0);
  std::shuffle(place.begin(), place.end(), rng);
  for (int i = 0; i < rows; i += 9) place[size_t(i)] = -1;      // tokens that no expert takes
  for (auto& s : source) s = int32_t(rng() % (rows + 20)) - 5;  // some before and beyond the rows
  const f16 poison(-99.0f);
  Buffer<f16> dx(dev, x), permuted(dev, std::vector<f16>(x.size(), poison)),
      gathered(dev, std::vector<f16>(x.size(), poison));
  Buffer<int32_t> dplace(dev, place), dsource(dev, source);
  Kernel<PermuteTokenRows>(dev, options)(rows, hidden, dx, dplace, dsource, permuted, gathered);
  std::vector<f16> want_permuted(x.size(), poison), want_gathered(x.size(), f16(7.0f));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < hidden; ++j) {
      if (place[size_t(i)] >= 0) want_permuted[size_t(place[size_t(i)] * hidden + j)] = x[size_t(i * hidden + j)];
      if (source[size_t(i)] >= 0 && source[size_t(i)] < rows)
        want_gathered[size_t(i * hidden + j)] = x[size_t(source[size_t(i)] * hidden + j)];
    }
  const auto bits = [](const std::vector<f16>& v) {
    std::vector<uint16_t> b;
    for (const f16& h : v) b.push_back(h.bits);
    return b;
  };
  EXPECT_EQ(bits(permuted.download()), bits(want_permuted));
  EXPECT_EQ(bits(gathered.download()), bits(want_gathered));
}

// Along the last dimension with an index per element (i64), 16 rows of 64 a block:
// gathered[i][j] = x[i][index[i][j]] (0 outside the row), and scattered[i][index[i][j]] = x[i][j]
// where each row's indices are a permutation.
struct GatherAndScatterColumns : Script {
  void operator()(Int32 rows, Ptr<float> x, Ptr<int64_t> index, Ptr<float> gathered, Ptr<float> scattered) {
    attrs.blocks = cdiv(rows, 16);
    attrs.warps = 2;
    const Int32 row = blockIdx.x * 16;
    auto g_x = global_view(x, {rows, 64});
    auto i = load_global(global_view(index, {rows, 64}), {row, 0}, {16, 64}, Layout{}, -1);
    store_global(global_view(gathered, {rows, 64}), load_global_gather(g_x, 1, i, {row, 0}, {16, 64}), {row, 0});
    store_global_scatter(global_view(scattered, {rows, 64}), 1, i, load_global(g_x, {row, 0}, {16, 64}), {row, 0});
  }
};

inline void check_gather_and_scatter_columns(const Device& dev, const KernelOptions& options = {}) {
  const int rows = 56;
  std::mt19937 rng(32);
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> x(size_t(rows * 64));
  for (float& v : x) v = value(rng);
  std::vector<int64_t> index(x.size());
  for (int i = 0; i < rows; ++i) {
    const auto row = index.begin() + i * 64;
    std::iota(row, row + 64, 0);
    std::shuffle(row, row + 64, rng);
  }
  index[3] = -1;        // a gather reads 0 there, and the scatter leaves its element out
  index[70] = 1 << 20;  // the same beyond the row
  Buffer<float> dx(dev, x), gathered(dev, std::vector<float>(x.size(), -99.0f)),
      scattered(dev, std::vector<float>(x.size(), -99.0f));
  Buffer<int64_t> dindex(dev, index);
  Kernel<GatherAndScatterColumns>(dev, options)(rows, dx, dindex, gathered, scattered);
  std::vector<float> want_gathered(x.size()), want_scattered(x.size(), -99.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < 64; ++j) {
      const int64_t k = index[size_t(i * 64 + j)];
      if (k < 0 || k >= 64) continue;
      want_gathered[size_t(i * 64 + j)] = x[size_t(i * 64 + k)];
      want_scattered[size_t(i * 64 + k)] = x[size_t(i * 64 + j)];
    }
  EXPECT_EQ(gathered.download(), want_gathered);
  EXPECT_EQ(scattered.download(), want_scattered);
}

}  // namespace tessel::testing
