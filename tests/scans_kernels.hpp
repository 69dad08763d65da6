// Scans along a dimension, with host expectations: rows that span all 8 warps of a block and rows
// within a warp, inclusive and exclusive, for cumsum, cummax and cummin. Run on the simulator by
// tests/scans_test.cpp and on the GPU by tests/gpu/scans_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// [4, 1024] rows over 8 warps (a run of 4 per thread), and [8, 128] rows within a warp each.
template <class T> struct Scans : Script {
  void operator()(Ptr<T> x, Ptr<T> across, Ptr<T> within) {
    attrs.blocks = 1;
    attrs.warps = 8;
    const Layout wide = Layout::local({4, 1}) * Layout::spatial({1, 256}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {4, 1024}), {0, 0}, {4, 1024}, wide);
    // Scan s of row r goes to row 4 s + r of `across`.
    auto out = global_view(across, {16, 1024});
    store_global(out, cumsum(t, 1), {0, 0});
    store_global(out, cumsum(t, 1, ScanKind::exclusive), {4, 0});
    store_global(out, cummax(t, 1), {8, 0});
    store_global(out, cummin(t, 1, ScanKind::exclusive), {12, 0});
    const Layout narrow = Layout::spatial({8, 32}) * Layout::local({1, 4});
    auto u = load_global(global_view(x, {8, 512}), {0, 0}, {8, 128}, narrow);
    auto in_warps = global_view(within, {16, 128});
    store_global(in_warps, cumsum(u, 1), {0, 0});
    store_global(in_warps, cummax(u, 1, ScanKind::exclusive), {8, 0});
  }
};

// The host's scan of `n` values from `x` with stride 1: `op` applied in order, inclusive or not.
template <class T, class Op> std::vector<T> host_scan(const T* x, int n, Op op, bool exclusive, T identity) {
  std::vector<T> out(static_cast<size_t>(n));
  T acc = identity;
  for (int i = 0; i < n; ++i) {
    const T next = i == 0 ? x[0] : op(acc, x[i]);
    out[size_t(i)] = exclusive ? (i == 0 ? identity : acc) : next;
    acc = next;
  }
  return out;
}

template <class T> void check_scans(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(21);
  std::vector<T> x(4096);
  for (T& v : x) v = T(int(rng() % 2001) - 1000) / T(std::is_floating_point_v<T> ? 16 : 1);
  Buffer<T> dx(dev, x), across(dev, std::vector<T>(4 * 4096, T(-7))), within(dev, std::vector<T>(2 * 1024, T(-7)));
  Kernel<Scans<T>>(dev, KernelOptions{.sim = options})(dx, across, within);
  const T lowest = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  const T highest = std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  const auto plus = [](T a, T b) { return T(a + b); };
  const auto larger = [](T a, T b) { return std::max(a, b); };
  const auto smaller = [](T a, T b) { return std::min(a, b); };
  const auto a = across.download(), w = within.download();
  for (int r = 0; r < 4; ++r) {
    const T* row = &x[size_t(r) * 1024];
    const std::vector<std::vector<T>> want = {
        host_scan(row, 1024, plus, false, T(0)), host_scan(row, 1024, plus, true, T(0)),
        host_scan(row, 1024, larger, false, lowest), host_scan(row, 1024, smaller, true, highest)};
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 1024; ++c)
        ASSERT_EQ(a[(size_t(s) * 4 + r) * 1024 + c], want[size_t(s)][size_t(c)])
            << "scan " << s << " row " << r << " at " << c;
  }
  for (int r = 0; r < 8; ++r) {
    const T* row = &x[size_t(r) * 512];
    const auto sums = host_scan(row, 128, plus, false, T(0));
    const auto maxima = host_scan(row, 128, larger, true, lowest);
    for (int c = 0; c < 128; ++c) {
      ASSERT_EQ(w[size_t(r) * 128 + c], sums[size_t(c)]) << "row " << r << " at " << c;
      ASSERT_EQ(w[(8 + size_t(r)) * 128 + c], maxima[size_t(c)]) << "row " << r << " at " << c;
    }
  }
}

}  // namespace tessel::testing
