// argmax and argmin, and max_and_argmax and min_and_argmin, of tiles whose reduced dimension spans
// warps or lies within one, with host references: ties go to the first position, NaNs lose to every
// number, a line of NaNs alone gives the extent, and the value is the element at the position. Run
// on the simulator by tests/arg_extremes_test.cpp and on the GPU by
// tests/gpu/arg_extremes_gpu_test.cpp.
#pragma once

#include <bit>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Rows of [4, 1024] over all 8 warps (along dim 1), columns of [64, 24] (along dim 0), rows of
// [32, 8] whose 8 positions lie in the lanes of one warp, and the first 16 of those rows again in
// a thread group of threads 16..31, half a warp.
template <class T> struct ArgExtremes : Script {
  void operator()(Ptr<T> rows, Ptr<T> columns, Ptr<T> short_rows, Ptr<int32_t> row_max, Ptr<int32_t> row_min,
                  Ptr<T> row_best, Ptr<int32_t> column_max, Ptr<int32_t> column_min, Ptr<T> column_least,
                  Ptr<int32_t> short_max, Ptr<T> short_best, Ptr<int32_t> half_warp_max) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto r = load_global(global_view(rows, {4, 1024}), {0, 0}, {4, 1024});
    store_global(global_view(row_max, {4, 1}), argmax(r, 1), {0, 0});
    store_global(global_view(row_min, {4, 1}), argmin(r, 1), {0, 0});
    auto [best, best_at] = max_and_argmax(r, 1);
    store_global(global_view(row_best, {4, 1}), best, {0, 0});
    auto c = load_global(global_view(columns, {64, 24}), {0, 0}, {64, 24});
    store_global(global_view(column_max, {1, 24}), argmax(c, 0), {0, 0});
    auto [least, least_at] = min_and_argmin(c, 0);
    store_global(global_view(column_least, {1, 24}), least, {0, 0});
    store_global(global_view(column_min, {1, 24}), least_at, {0, 0});
    auto s = load_global(global_view(short_rows, {32, 8}), {0, 0}, {32, 8});
    store_global(global_view(short_max, {32, 1}), argmax(s, 1), {0, 0});
    store_global(global_view(short_best, {32, 1}), max_and_argmax(s, 1).value, {0, 0});
    thread_group(16, 16, [&] {
      auto h = load_global(global_view(short_rows, {32, 8}), {0, 0}, {16, 8});
      store_global(global_view(half_warp_max, {16, 1}), argmax(h, 1), {0, 0});
    });
  }
};

// The first position of the extreme of `n` values `stride` apart, NaNs skipped; `n` when all are NaN.
template <class T, class Better> int32_t first_extreme(const T* x, int n, int stride, Better better) {
  int32_t at = n;
  for (int i = 0; i < n; ++i) {
    const float v = float(x[size_t(i) * size_t(stride)]);
    if (std::isnan(v)) continue;
    if (at == n || better(v, float(x[size_t(at) * size_t(stride)]))) at = i;
  }
  return at;
}

// An element's bits, for comparisons that tell -0 from +0 and NaNs apart.
template <class T> uint64_t bits_of(T v) {
  if constexpr (std::is_integral_v<T>)
    return uint64_t(v);
  else if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(v);
  else
    return v.bits;
}

// The bits of each line's element at `positions`; where a position is the extent (a line of NaNs
// alone), of the line's first NaN, which the reduction keeps.
template <class T> std::vector<uint64_t> elements_at(const std::vector<T>& x, const std::vector<int32_t>& positions,
                                                     int n, int line_step, int stride) {
  std::vector<uint64_t> out;
  for (size_t l = 0; l < positions.size(); ++l)
    out.push_back(bits_of(x[l * size_t(line_step) + size_t(positions[l] == n ? 0 : positions[l]) * size_t(stride)]));
  return out;
}

template <class T> std::vector<uint64_t> all_bits(const std::vector<T>& x) {
  std::vector<uint64_t> out;
  for (const T& v : x) out.push_back(bits_of(v));
  return out;
}

template <class T> void check_arg_extremes(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(17);
  std::vector<T> rows(4 * 1024), columns(64 * 24), short_rows(32 * 8);
  // Few distinct values, so that the extremes repeat and the first must be found.
  for (T& v : rows) v = T(float(int(rng() % 41) - 20));
  for (T& v : columns) v = T(float(int(rng() % 9) - 4));
  for (T& v : short_rows) v = T(float(int(rng() % 5) - 2));
  if constexpr (!std::is_integral_v<T>) {
    for (int i = 0; i < 1024; i += 7) rows[size_t(i)] = T(NAN);  // row 0: NaNs among numbers
    for (int i = 2048; i < 3072; ++i) rows[size_t(i)] = T(NAN);  // row 2: NaNs alone
    for (int i = 0; i < 64 * 24; i += 24 * 5) columns[size_t(i)] = T(NAN);
    for (int i = 1; i < 64 * 24; i += 24) columns[size_t(i)] = T(-INFINITY);      // column 1: -inf alone
    for (int i = 0; i < 8; ++i) short_rows[size_t(i)] = T(i % 2 ? 0.0f : -0.0f);  // row 0: equal zeros, -0 first
  }
  const auto greater = [](float a, float b) { return a > b; };
  const auto less = [](float a, float b) { return a < b; };
  std::vector<int32_t> want_max(4), want_min(4), want_column_max(24), want_column_min(24), want_short(32);
  for (int r = 0; r < 4; ++r) {
    want_max[size_t(r)] = first_extreme(&rows[size_t(r) * 1024], 1024, 1, greater);
    want_min[size_t(r)] = first_extreme(&rows[size_t(r) * 1024], 1024, 1, less);
  }
  for (int c = 0; c < 24; ++c) {
    want_column_max[size_t(c)] = first_extreme(&columns[size_t(c)], 64, 24, greater);
    want_column_min[size_t(c)] = first_extreme(&columns[size_t(c)], 64, 24, less);
  }
  for (int r = 0; r < 32; ++r) want_short[size_t(r)] = first_extreme(&short_rows[size_t(r) * 8], 8, 1, greater);
  Buffer<T> drows(dev, rows), dcolumns(dev, columns), dshort(dev, short_rows);
  Buffer<int32_t> row_max(dev, std::vector<int32_t>(4, -7)), row_min(dev, std::vector<int32_t>(4, -7)),
      column_max(dev, std::vector<int32_t>(24, -7)), column_min(dev, std::vector<int32_t>(24, -7)),
      short_max(dev, std::vector<int32_t>(32, -7));
  Buffer<T> row_best(dev, std::vector<T>(4, T(99.0f))), column_least(dev, std::vector<T>(24, T(99.0f))),
      short_best(dev, std::vector<T>(32, T(99.0f)));
  Buffer<int32_t> half_warp_max(dev, std::vector<int32_t>(16, -7));
  Kernel<ArgExtremes<T>>(dev, KernelOptions{.sim = options})(drows, dcolumns, dshort, row_max, row_min, row_best,
                                                             column_max, column_min, column_least, short_max,
                                                             short_best, half_warp_max);
  EXPECT_EQ(row_max.download(), want_max);
  EXPECT_EQ(row_min.download(), want_min);
  EXPECT_EQ(column_max.download(), want_column_max);
  EXPECT_EQ(column_min.download(), want_column_min);
  EXPECT_EQ(short_max.download(), want_short);
  EXPECT_EQ(half_warp_max.download(), std::vector<int32_t>(want_short.begin(), want_short.begin() + 16));
  // The values are the elements at the positions, bit for bit: row 2 of `rows` is NaNs alone, row 0
  // of `short_rows` a -0 before equal +0s.
  EXPECT_EQ(all_bits(row_best.download()), elements_at(rows, want_max, 1024, 1024, 1));
  EXPECT_EQ(all_bits(column_least.download()), elements_at(columns, want_column_min, 64, 1, 24));
  EXPECT_EQ(all_bits(short_best.download()), elements_at(short_rows, want_short, 8, 8, 1));
}

}  // namespace tessel::testing
