// argmax and argmin of tiles whose reduced dimension spans warps, with host references: ties go to
// the first position, NaNs lose to every number, a line of NaNs alone gives the extent. Run on the
// simulator by tests/arg_extremes_test.cpp and on the GPU by tests/gpu/arg_extremes_gpu_test.cpp.
#pragma once

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Rows of [4, 1024] over all 8 warps (along dim 1), and columns of [64, 24] (along dim 0).
template <class T> struct ArgExtremes : Script {
  void operator()(Ptr<T> rows, Ptr<T> columns, Ptr<int32_t> row_max, Ptr<int32_t> row_min, Ptr<int32_t> column_max) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto r = load_global(global_view(rows, {4, 1024}), {0, 0}, {4, 1024});
    store_global(global_view(row_max, {4, 1}), argmax(r, 1), {0, 0});
    store_global(global_view(row_min, {4, 1}), argmin(r, 1), {0, 0});
    auto c = load_global(global_view(columns, {64, 24}), {0, 0}, {64, 24});
    store_global(global_view(column_max, {1, 24}), argmax(c, 0), {0, 0});
  }
};

// The first position of the extreme of `n` values `stride` apart, NaNs skipped; `n` when all are NaN.
template <class T, class Better> int32_t first_extreme(const T* x, int n, int stride, Better better) {
  int32_t at = n;
  for (int i = 0; i < n; ++i) {
    const T v = x[size_t(i) * size_t(stride)];
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(v)) continue;
    if (at == n || better(v, x[size_t(at) * size_t(stride)])) at = i;
  }
  return at;
}

template <class T> void check_arg_extremes(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(17);
  std::vector<T> rows(4 * 1024), columns(64 * 24);
  // Few distinct values, so that the extremes repeat and the first must be found.
  for (T& v : rows) v = T(int(rng() % 41) - 20);
  for (T& v : columns) v = T(int(rng() % 9) - 4);
  if constexpr (std::is_floating_point_v<T>) {
    for (int i = 0; i < 1024; i += 7) rows[size_t(i)] = NAN;  // row 0: NaNs among numbers
    for (int i = 2048; i < 3072; ++i) rows[size_t(i)] = NAN;  // row 2: NaNs alone
    for (int i = 0; i < 64 * 24; i += 24 * 5) columns[size_t(i)] = NAN;
  }
  const auto greater = [](T a, T b) { return a > b; };
  const auto less = [](T a, T b) { return a < b; };
  std::vector<int32_t> want_max(4), want_min(4), want_column(24);
  for (int r = 0; r < 4; ++r) {
    want_max[size_t(r)] = first_extreme(&rows[size_t(r) * 1024], 1024, 1, greater);
    want_min[size_t(r)] = first_extreme(&rows[size_t(r) * 1024], 1024, 1, less);
  }
  for (int c = 0; c < 24; ++c) want_column[size_t(c)] = first_extreme(&columns[size_t(c)], 64, 24, greater);
  Buffer<T> drows(dev, rows), dcolumns(dev, columns);
  Buffer<int32_t> row_max(dev, std::vector<int32_t>(4, -7)), row_min(dev, std::vector<int32_t>(4, -7)),
      column_max(dev, std::vector<int32_t>(24, -7));
  Kernel<ArgExtremes<T>>(dev, KernelOptions{.sim = options})(drows, dcolumns, row_max, row_min, column_max);
  EXPECT_EQ(row_max.download(), want_max);
  EXPECT_EQ(row_min.download(), want_min);
  EXPECT_EQ(column_max.download(), want_column);
}

}  // namespace tessel::testing
