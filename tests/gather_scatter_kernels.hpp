// Gathers and scatters of global memory by index tiles (load_global_gather, store_global_scatter)
// against host references, on the simulator (gather_scatter_test.cpp) and on the GPU
// (gpu/gather_scatter_gpu_test.cpp): the rows of a mixture of experts' token permutation, elements
// along the last dimension as torch.gather and torch.scatter take them, and both in shared memory.
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
  index[3] = -1;                       // a gather reads 0 there, and the scatter leaves its element out
  index[70] = (int64_t{1} << 32) + 3;  // the same beyond the row, where 32 bits of it would be inside
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

// Through shared memory, 256 values a block: the positive ones packed to the front of a shared tile
// in order (a stream compaction: each one's place is the exclusive sum of the keeps before it; the
// others go to -1, outside the tile), and 16 rows of 64 halves read back in reverse order.
struct CompactAndReverseInShared : Script {
  void operator()(Int32 n, Ptr<int32_t> x, Ptr<int32_t> packed, Ptr<f16> rows, Ptr<f16> reversed) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n}), {blockIdx.x * 256}, {256});
    auto keep = (t > 0).to<int32_t>();
    auto place = where(t > 0, cumsum(keep, 0, ScanKind::exclusive), -1);
    auto s = shared_tensor<int32_t>({256});
    store_shared(s, register_tensor<int32_t>({256}, -1));
    sync();
    store_shared_scatter(s, 0, place, t, {0});
    sync();
    store_global(global_view(packed, {n}), load_shared(s), {blockIdx.x * 256});
    auto staged = shared_tensor<f16>({16, 64});
    store_shared(staged, load_global(global_view(rows, {n / 16, 64}), {blockIdx.x * 16, 0}, {16, 64}));
    sync();
    auto back = load_shared_gather(staged, 0, (15 - arange({16, 1}, 0)).to<uint8_t>(), {0, 0}, {16, 64});
    store_global(global_view(reversed, {n / 16, 64}), back, {blockIdx.x * 16, 0});
  }
};

inline void check_compact_and_reverse_in_shared(const Device& dev, const KernelOptions& options = {}) {
  const int n = 512;
  std::mt19937 rng(34);
  std::vector<int32_t> x(size_t{n});
  for (auto& v : x) v = int32_t(rng() % 200) - 100;
  std::vector<f16> rows(size_t(n / 16 * 64));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = f16(float(int(rng() % 512) - 256) / 4);
  Buffer<int32_t> dx(dev, x), packed(dev, std::vector<int32_t>(x.size(), -7777));
  Buffer<f16> drows(dev, rows), reversed(dev, std::vector<f16>(rows.size(), f16(-99.0f)));
  Kernel<CompactAndReverseInShared>(dev, options)(n, dx, packed, drows, reversed);
  std::vector<int32_t> want(x.size(), -1);
  for (int b = 0; b < n / 256; ++b) {
    size_t next = size_t(b) * 256;
    for (int i = 0; i < 256; ++i)
      if (const int32_t v = x[size_t(b * 256 + i)]; v > 0) want[next++] = v;
  }
  EXPECT_EQ(packed.download(), want);
  const std::vector<f16> got = reversed.download();
  for (int b = 0; b < n / 256; ++b)
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 64; ++c)
        ASSERT_EQ(got[size_t((b * 16 + r) * 64 + c)].bits, rows[size_t((b * 16 + 15 - r) * 64 + c)].bits)
            << b << ", " << r << ", " << c;
}

}  // namespace tessel::testing
