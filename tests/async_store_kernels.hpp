// Kernels that pass tiles between the blocks of a cluster with st.async (store_shared_async), with
// host expectations. Run on the simulator (tests/async_stores_test.cpp) and on the GPU
// (tests/gpu/cluster_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {

// Each block of a cluster of `Blocks` stores its [8, 64] tile of `x` into the tile `theirs` of the
// next block of the cluster (rank r to rank r + 1, the last to rank 0) by st.async, and writes what
// it received to `out`. The misuse each flag adds or leaves out: with `ReadEarly`, the receiver
// reads its tile before waiting (after a cluster.sync(), which orders nothing about the stores'
// landing); with `Announced` below the tile's bytes, the receiver announces fewer bytes than
// arrive.
template <class T, int Blocks, bool ReadEarly = false, int Announced = 8 * 64 * int(sizeof(T))>
struct PassesTilesByAsyncStores : Script {
  static inline int store_line = 0, read_line = 0;
  void operator()(Int32 n, Ptr<T> x, Ptr<T> out) {
    attrs.blocks = cdiv(n, 8 * 64);
    attrs.cluster = {Blocks};
    attrs.warps = 2;
    auto theirs = shared_tensor<T>({8, 64});
    auto bars = mbarrier.alloc({1});
    cluster.sync();  // every block's barrier is initialized before another block's stores reach it
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[0], Announced); });
    auto tile = load_global(global_view(x, {n / 64, 64}), {blockIdx.x * 8, 0}, {8, 64});
    store_line = __LINE__ + 1;
    store_shared_async(theirs.remote((cluster.blockRank + 1) % Blocks), tile, bars[0]);
    if constexpr (ReadEarly) {
      cluster.sync();  // every store is issued, none is waited for
      read_line = __LINE__ + 1;
      store_global(global_view(out, {n / 64, 64}), load_shared(theirs), {blockIdx.x * 8, 0});
    }
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
    store_global(global_view(out, {n / 64, 64}), load_shared(theirs), {blockIdx.x * 8, 0});
    cluster.sync();
  }
};

// Each block sums the columns of its [16, 64] tile of `x` (a [1, 64] tile that several threads
// hold each element of) and stores the sums into the next block's tile by st.async: each element's
// first replica stores it, so the receiver announces 64 elements' bytes.
template <int Blocks> struct PassesColumnSumsByAsyncStores : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> out) {
    attrs.blocks = cdiv(n, 16 * 64);
    attrs.cluster = {Blocks};
    attrs.warps = 4;
    auto theirs = shared_tensor<float>({1, 64});
    auto bars = mbarrier.alloc({1});
    cluster.sync();
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[0], 64 * int(sizeof(float))); });
    auto sums = sum(load_global(global_view(x, {n / 64, 64}), {blockIdx.x * 16, 0}, {16, 64}), 0);
    store_shared_async(theirs.remote((cluster.blockRank + 1) % Blocks), sums, bars[0]);
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
    store_global(global_view(out, {cdiv(n, 16 * 64), 64}), load_shared(theirs), {blockIdx.x, 0});
    cluster.sync();
  }
};

// Each block stores its [8, 64] tile of f16 into columns [64 * half, 64 * half + 64) of its own
// 128-byte-swizzled [8, 128] tile (the rank is its own, known at run time only), at a column offset
// known at run time to be a multiple of 64; then it writes the whole tile to `out` (the other half
// zeros).
struct StoresIntoItsOwnSwizzledTile : Script {
  void operator()(Int32 half, Ptr<f16> x, Ptr<f16> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    auto tile = shared_tensor<f16>({8, 128}, Swizzle::b128);
    auto bars = mbarrier.alloc({1});
    store_shared(tile, register_tensor<f16>({8, 128}, 0.0f));
    sync();
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[0], 8 * 64 * 2); });
    auto values = load_global(global_view(x, {16, 64}), {blockIdx.x * 8, 0}, {8, 64});
    store_shared_async(tile.remote(cluster.blockRank), values, bars[0], {0, half * 64});
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {16, 128}), load_shared(tile), {blockIdx.x * 8, 0});
    cluster.sync();
  }
};

// A [64] tile of f16 over 64 threads: each thread holds one 2-byte element, which st.async cannot
// write alone.
struct AsyncStoreOfTwoByteRuns : Script {
  void operator()(Ptr<f16> x) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    auto theirs = shared_tensor<f16>({64});
    auto bars = mbarrier.alloc({1});
    cluster.sync();
    auto tile = load_global(global_view(x, {64}), {0}, {64});
    store_shared_async(theirs.remote(1 - cluster.blockRank), tile, bars[0]);
    cluster.sync();
  }
};

// st.async in a kernel without clusters.
struct AsyncStoreWithoutClusters : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto theirs = shared_tensor<float>({64});
    auto bars = mbarrier.alloc({1});
    auto tile = load_global(global_view(x, {64}), {0}, {64});
    store_shared_async(theirs.remote(0), tile, bars[0]);
  }
};

template <class T> std::vector<T> async_store_inputs(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<T> v(count);
  for (T& e : v) e = T(dist(rng));
  return v;
}

// Runs PassesTilesByAsyncStores<T, Blocks> over n elements: block b's output is the tile of the
// block before it in its cluster.
template <class T, int Blocks> void check_async_stores(const Device& dev, int n, const sim::Options& options) {
  const std::vector<T> x = async_store_inputs<T>(size_t(n), uint32_t(n + Blocks));
  Buffer<T> dx(dev, x), out(dev, std::vector<T>(size_t(n), T(77.0f)));
  Kernel<PassesTilesByAsyncStores<T, Blocks>>(dev, KernelOptions{.sim = options})(n, dx, out);
  const auto got = out.download();
  constexpr int tile = 8 * 64;
  for (int b = 0; b < n / tile; ++b) {
    const int rank = b % Blocks, sender = b - rank + (rank + Blocks - 1) % Blocks;
    for (int i = 0; i < tile; ++i)
      ASSERT_EQ(float(got[size_t(b * tile + i)]), float(x[size_t(sender * tile + i)])) << b << ", " << i;
  }
}

template <int Blocks> void check_async_column_sums(const Device& dev, int n, const sim::Options& options) {
  std::mt19937 gen{uint32_t(n)};
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = float(int(gen() % 2001) - 1000) / 64.0f;  // sums exact in f32 in any order
  const int blocks = n / (16 * 64);
  Buffer<float> dx(dev, x), out(dev, std::vector<float>(size_t(blocks) * 64, 77.0f));
  Kernel<PassesColumnSumsByAsyncStores<Blocks>>(dev, KernelOptions{.sim = options})(n, dx, out);
  const auto got = out.download();
  for (int b = 0; b < blocks; ++b) {
    const int rank = b % Blocks, sender = b - rank + (rank + Blocks - 1) % Blocks;
    for (int c = 0; c < 64; ++c) {
      float want = 0;
      for (int r = 0; r < 16; ++r) want += x[size_t((sender * 16 + r) * 64 + c)];
      ASSERT_EQ(got[size_t(b * 64 + c)], want) << b << ", " << c;
    }
  }
}

inline void check_stores_into_own_swizzled_tile(const Device& dev, int half, const KernelOptions& options) {
  const std::vector<f16> x = async_store_inputs<f16>(16 * 64, uint32_t(11 + half));
  Buffer<f16> dx(dev, x), out(dev, std::vector<f16>(16 * 128, f16(77.0f)));
  Kernel<StoresIntoItsOwnSwizzledTile>(dev, options)(half, dx, out);
  const auto got = out.download();
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 128; ++c) {
      const float want = c / 64 == half ? float(x[size_t(r * 64 + c % 64)]) : 0.0f;
      ASSERT_EQ(float(got[size_t(r * 128 + c)]), want) << r << ", " << c;
    }
}

}  // namespace tessel::testing
