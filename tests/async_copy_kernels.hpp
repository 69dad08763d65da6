// Kernels using cp.async, with host expectations; run on the simulator (tests/async_copy_test.cpp)
// and on the GPU (tests/gpu/async_copy_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// One tile of TileM x TileN through shared memory: out = 2 * in, with zero fill beyond the view.
// Extents with few factors of two (a halo's 130 columns) have their runs taken in turn.
template <class T, int TileM = 32, int TileN = 64> struct CopyTileThroughShared : Script {
  int tile_m = TileM, tile_n = TileN;
  void operator()(Int32 m, Int32 n, Ptr<T> in, Ptr<T> out) {
    attrs.blocks = {cdiv(m, tile_m), cdiv(n, tile_n)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * tile_m, col = blockIdx.y * tile_n;
    auto s = shared_tensor<T>({tile_m, tile_n});
    copy_async(global_view(in, {m, n}), s, {row, col});
    copy_async_wait_all();
    sync();
    auto t = load_shared(s);
    // Out-of-view elements were zero-filled: write the whole tile to a padded output.
    store_global(global_view(out, {cdiv(m, tile_m) * tile_m, cdiv(n, tile_n) * tile_n}), t + t, {row, col});
  }
};

// Runs CopyTileThroughShared<T, TileM, TileN> through `run(m, n, in, out)` on `dev` and compares
// with a host reference.
template <class T, int TileM = 32, int TileN = 64, class Run>
void check_copy_tile(const Device& dev, int m, int n, Run&& run) {
  const int pm = (m + TileM - 1) / TileM * TileM, pn = (n + TileN - 1) / TileN * TileN;
  std::mt19937 rng(m * 131 + n);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<T> in(size_t(m) * n);
  for (auto& x : in) x = T(dist(rng));
  Buffer<T> din(dev, in), dout(dev, std::vector<T>(size_t(pm) * pn, T(77.0f)));
  run(m, n, din, dout);
  const auto out = dout.download();
  for (int i = 0; i < pm; ++i)
    for (int j = 0; j < pn; ++j) {
      const float want = i < m && j < n ? 2 * float(in[size_t(i) * n + j]) : 0.0f;
      ASSERT_EQ(float(out[size_t(i) * pn + j]), want) << i << ", " << j;
    }
}

template <class T, int TileM = 32, int TileN = 64> void check_copy_tile(const Device& dev, int m, int n) {
  check_copy_tile<T, TileM, TileN>(dev, m, n, [&](int m, int n, auto& in, auto& out) {
    Kernel<CopyTileThroughShared<T, TileM, TileN>> k(dev);
    k(m, n, in, out);
  });
}

// Tiles whose extents spread over few threads by a layout, so that their runs are taken in turn:
// a halo's [2, 130] (65 runs of 8 bytes a row in f32, of 4 in f16), [3, 64] (3 rows) and [1, 129]
// (single f32 elements; in f16, copied synchronously), each over edges in both dimensions.
inline void check_copies_taken_in_turn(const Device& dev) {
  for (auto [m, n] : {std::pair{2, 130}, std::pair{5, 300}, std::pair{1, 100}}) {
    check_copy_tile<float, 2, 130>(dev, m, n);
    check_copy_tile<f16, 2, 130>(dev, m, n);
    check_copy_tile<float, 3, 64>(dev, m, n);
    check_copy_tile<float, 1, 129>(dev, m, n);
    check_copy_tile<f16, 1, 129>(dev, m, n);
  }
}

// Row sums over K with a `stages`-deep ring of cp.async buffers: the load of chunk k + stages - 1
// overlaps the reduction of chunk k.
struct PipelinedRowSum : Script {
  int rows = 32, chunk = 64, stages = 3;
  static constexpr const char* param_names[] = {"m", "k", "a", "out"};
  void operator()(Int32 m, Int32 k, Ptr<float> a, Ptr<float> out) {
    attrs.blocks = cdiv(m, rows);
    attrs.warps = 4;
    Int32 row = blockIdx.x * rows;
    auto g = global_view(a, {m, k});
    auto s = shared_tensor<float>({stages, rows, chunk});
    const Layout layout = Layout::spatial({4, 32}) * Layout::local({rows / 4, chunk / 32});
    auto acc = register_tensor<float>({rows, 1}, 0.0f, layout.reduced(1));
    Int32 chunks = cdiv(k, chunk);
    for (int p = 0; p < stages - 1; ++p) {  // prologue: the first stages - 1 chunks in flight
      if_(p < chunks, [&] { copy_async(g, s[p], {row, p * chunk}); });
      copy_async_commit_group();
    }
    for (Int32 i : range(0, chunks)) {
      Int32 next = i + stages - 1;
      if_(next < chunks, [&] { copy_async(g, s[next % stages], {row, next * chunk}); });
      copy_async_commit_group();
      copy_async_wait_group(stages - 1);
      sync();
      acc = acc + sum(load_shared(s[i % stages], {0, 0}, {rows, chunk}, layout), 1);
      sync();
    }
    store_global(global_view(out, {m, 1}), acc, {row, 0});
  }
};

// Runs PipelinedRowSum through `run(m, k, a, out)` on `dev` and compares with a host reference.
template <class Run>
void check_pipelined_row_sum(const Device& dev, int m, int k, const std::string& label, Run&& run) {
  std::mt19937 rng(m + k);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(size_t(m) * k);
  for (auto& x : a) x = dist(rng);
  Buffer<float> da(dev, a), dout(dev, std::vector<float>(m, 1e9f));
  run(m, k, da, dout);
  const auto out = dout.download();
  for (int i = 0; i < m; ++i) {
    double want = 0;
    for (int j = 0; j < k; ++j) want += a[size_t(i) * k + j];
    ASSERT_NEAR(out[i], want, 1e-4 * (1 + std::abs(want))) << "row " << i << " (" << label << ")";
  }
}

inline void check_pipelined_row_sum(const Device& dev, int m, int k, uint64_t seed) {
  check_pipelined_row_sum(dev, m, k, fmt::format("seed {}", seed), [&](int m, int k, auto& a, auto& out) {
    Kernel<PipelinedRowSum> kernel(dev, KernelOptions{.sim = {.seed = seed}});
    kernel(m, k, a, out);
  });
}

}  // namespace tessel::testing
