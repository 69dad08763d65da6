// Sums and inclusive sums along rows that span the 8 warps of a block, of values whose sums depend
// on the order of the additions, with a host model of the order the generated code takes: each
// thread's run of 32 in f32, the 32 lanes by a butterfly (sums) or Hillis-Steele steps (scans),
// then the warps in order, rounded to the element type once. The simulator must give the same bits
// as the GPU. Run on the simulator by tests/reduction_order_test.cpp and on the GPU by
// tests/gpu/reduction_order_gpu_test.cpp.
#pragma once

#include <array>
#include <bit>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

constexpr int kOrderRows = 2, kOrderRun = 32, kOrderColumns = 256 * kOrderRun;

// [2, 8192] rows: thread t of 256 holds columns 32 t .. 32 t + 31 of each.
template <class T> struct RowSumsAndScans : Script {
  void operator()(Ptr<T> x, Ptr<T> sums, Ptr<T> scans) {
    attrs.blocks = 1;
    attrs.warps = 8;
    const Layout rows = Layout::local({kOrderRows, 1}) * Layout::spatial({1, 256}) * Layout::local({1, kOrderRun});
    auto t = load_global(global_view(x, {kOrderRows, kOrderColumns}), {0, 0}, {kOrderRows, kOrderColumns}, rows);
    store_global(global_view(sums, {kOrderRows, 1}), sum(t, 1), {0, 0});
    store_global(global_view(scans, {kOrderRows, kOrderColumns}), cumsum(t, 1), {0, 0});
  }
};

// What the generated code computes for one row `x` of kOrderColumns values: its sum and its
// inclusive sums, in f32, rounded to T at the end.
template <class T> struct OrderedRow {
  T sum;
  std::vector<T> scan;
};
template <class T> OrderedRow<T> ordered_row(const T* x) {
  constexpr int threads = kOrderColumns / kOrderRun, warps = threads / 32;
  std::vector<float> total(threads);
  std::vector<std::array<float, kOrderRun>> running(threads);
  for (int t = 0; t < threads; ++t) {
    float acc = float(x[t * kOrderRun]);
    running[size_t(t)][0] = acc;
    for (int j = 1; j < kOrderRun; ++j) running[size_t(t)][size_t(j)] = acc = acc + float(x[t * kOrderRun + j]);
    total[size_t(t)] = acc;
  }
  OrderedRow<T> out{T(0.0f), std::vector<T>(kOrderColumns)};
  std::vector<float> butterfly = total, lanes = total;
  for (int k = 1; k < 32; k <<= 1) {
    const std::vector<float> before = butterfly;
    for (int t = 0; t < threads; ++t) butterfly[size_t(t)] = before[size_t(t)] + before[size_t(t ^ k)];
  }
  for (int d = 1; d < 32; d <<= 1) {
    const std::vector<float> before = lanes;
    for (int t = 0; t < threads; ++t)
      if (t % 32 >= d) lanes[size_t(t)] = before[size_t(t - d)] + before[size_t(t)];
  }
  float sum = butterfly[0];
  for (int w = 1; w < warps; ++w) sum = sum + butterfly[size_t(w * 32)];
  out.sum = T(sum);
  for (int t = 0; t < threads; ++t) {
    const int q = t / 32;
    bool has_prefix = t % 32 > 0;
    float prefix = has_prefix ? lanes[size_t(t - 1)] : 0.0f;
    if (q > 0) {
      float before = lanes[31];
      for (int w = 1; w < q; ++w) before = before + lanes[size_t(w * 32 + 31)];
      prefix = has_prefix ? before + prefix : before;
      has_prefix = true;
    }
    for (int j = 0; j < kOrderRun; ++j)
      out.scan[size_t(t * kOrderRun + j)] =
          T(has_prefix ? prefix + running[size_t(t)][size_t(j)] : running[size_t(t)][size_t(j)]);
  }
  return out;
}

template <class T> uint32_t bits_of_value(T v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(v);
  else
    return v.bits;
}

// Random values in (-1, 1) with every mantissa bit in use, so that the sums' last bits depend on
// the order; and rows of ones, whose sums a narrow type cannot reach one addition at a time (bf16
// stops at 256).
template <class T> void check_reduction_order(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (const bool ones : {false, true}) {
    std::vector<T> x(size_t(kOrderRows) * kOrderColumns);
    for (T& v : x) v = T(ones ? 1.0f : value(rng));
    Buffer<T> dx(dev, x), sums(dev, std::vector<T>(kOrderRows, T(-7.0f))),
        scans(dev, std::vector<T>(x.size(), T(-7.0f)));
    Kernel<RowSumsAndScans<T>>(dev, KernelOptions{.sim = options})(dx, sums, scans);
    const auto got_sums = sums.download(), got_scans = scans.download();
    for (int r = 0; r < kOrderRows; ++r) {
      const OrderedRow<T> want = ordered_row(&x[size_t(r) * kOrderColumns]);
      EXPECT_EQ(bits_of_value(got_sums[size_t(r)]), bits_of_value(want.sum))
          << "sum of row " << r << (ones ? " of ones" : "") << ": " << float(got_sums[size_t(r)]) << ", want "
          << float(want.sum);
      for (int c = 0; c < kOrderColumns; ++c)
        ASSERT_EQ(bits_of_value(got_scans[size_t(r) * kOrderColumns + c]), bits_of_value(want.scan[size_t(c)]))
            << "cumsum of row " << r << (ones ? " of ones" : "") << " at " << c << ": "
            << float(got_scans[size_t(r) * kOrderColumns + c]) << ", want " << float(want.scan[size_t(c)]);
    }
  }
}

}  // namespace tessel::testing
