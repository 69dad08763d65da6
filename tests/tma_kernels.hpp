// Kernels using TMA, with host expectations; run on the simulator (tests/tma_test.cpp) and on the
// GPU (tests/gpu/tma_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// out = 2 * in through a shared tile that ordinary stores fill and TMA stores.
template <class T, int TileM, int TileN, Swizzle Sw> struct StoreTileByTma : Script {
  void operator()(Int32 m, Int32 n, Ptr<T> in, Ptr<T> out) {
    attrs.blocks = {cdiv(m, TileM), cdiv(n, TileN)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * TileM, col = blockIdx.y * TileN;
    auto s = shared_tensor<T>({TileM, TileN}, Sw);
    auto t = load_global(global_view(in, {m, n}), {row, col}, {TileM, TileN});
    store_shared(s, t + t);
    // TMA reads the tile through the async proxy, the stores above wrote it through the generic one.
    fence.proxy_async();
    sync();
    tma.shared_to_global(s, global_view(out, {m, n}), {row, col});
    tma.commit_group();
    tma.wait_group(0, true);
    sync();
  }
};

// out = 2 * in through a shared tile that TMA loads onto an mbarrier: one thread announces the
// box's bytes and issues the load, every thread waits on the phase, then reads the tile.
template <class T, int TileM, int TileN, Swizzle Sw> struct LoadTileByTma : Script {
  void operator()(Int32 m, Int32 n, Ptr<T> in, Ptr<T> out) {
    attrs.blocks = {cdiv(m, TileM), cdiv(n, TileN)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * TileM, col = blockIdx.y * TileN;
    auto s = shared_tensor<T>({TileM, TileN}, Sw);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], int(sizeof(T)) * TileM * TileN);
      tma.global_to_shared(global_view(in, {m, n}), s, {row, col}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    auto t = load_shared(s);
    store_global(global_view(out, {m, n}), t + t, {row, col});
  }
};

// Runs a StoreTileByTma or LoadTileByTma kernel for T through `run(m, n, in, out)` on `dev` and compares with a
// host reference: every element doubled, nothing written outside the [m, n] output.
template <class T, class Run> void check_store_tile(const Device& dev, int m, int n, Run&& run) {
  std::mt19937 rng(uint32_t(m * 977 + n));
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<T> in(size_t(m) * n);
  for (auto& x : in) x = T(dist(rng));
  Buffer<T> din(dev, in), dout(dev, std::vector<T>(size_t(m) * n, T(77.0f)));
  run(m, n, din, dout);
  const auto out = dout.download();
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(float(out[i]), 2 * float(in[i])) << "element " << i;
}

// check_store_tile for kernel S on the simulator under `options`.
template <class S, class T> void check_tile_by_tma(int m, int n, const sim::Options& options) {
  check_store_tile<T>(Device::simulator(), m, n,
                      [&](int m, int n, auto& in, auto& out) { simulate<S>(options, m, n, in, out); });
}

}  // namespace tessel::testing
