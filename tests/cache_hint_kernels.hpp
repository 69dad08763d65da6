// Kernels whose global views carry cache hints, with host expectations: a hint changes no value, so
// each computes what the same kernel without hints does. Run on the simulator
// (tests/cache_hints_test.cpp) and on the GPU (tests/gpu/cache_hints_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// out = 2 * a + b over [m, n] in 32 x 64 tiles: a read by load_global (evict_first), b by
// load_global (evict_last) after a cp.async of it through an unhinted view, out written by
// store_global (evict_first). Sizes that are not multiples of the tile take the element-by-element
// paths at the edges.
template <class T> struct HintedLoadsAndStores : Script {
  static constexpr int tile_m = 32, tile_n = 64;
  void operator()(Int32 m, Int32 n, Ptr<T> a, Ptr<T> b, Ptr<T> out) {
    attrs.blocks = {cdiv(m, tile_m), cdiv(n, tile_n)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * tile_m, col = blockIdx.y * tile_n;
    auto s = shared_tensor<T>({tile_m, tile_n});
    copy_async(global_view(b, {m, n}), s, {row, col});
    auto ta = load_global(global_view(a, {m, n}).with_cache_hint(CacheHint::evict_first), {row, col}, {tile_m, tile_n});
    auto tb = load_global(global_view(b, {m, n}).with_cache_hint(CacheHint::evict_last), {row, col}, {tile_m, tile_n});
    copy_async_wait_all();
    sync();
    auto sb = load_shared(s);
    store_global(global_view(out, {m, n}).with_cache_hint(CacheHint::evict_first), ta + ta + tb + sb - tb, {row, col});
  }
};

// out = 2 * in through a TMA load (evict_first) and a TMA store (evict_last) of 64 x 64 tiles.
template <class T> struct HintedTmaCopies : Script {
  static constexpr int tile = 64;
  void operator()(Int32 m, Int32 n, Ptr<T> in, Ptr<T> out) {
    attrs.blocks = {cdiv(m, tile), cdiv(n, tile)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * tile, col = blockIdx.y * tile;
    auto s = shared_tensor<T>({tile, tile});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], int(sizeof(T)) * tile * tile);
      tma.global_to_shared(global_view(in, {m, n}).with_cache_hint(CacheHint::evict_first), s, {row, col}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    auto t = load_shared(s);
    sync();
    store_shared(s, t + t);
    fence.proxy_async();
    sync();
    tma.shared_to_global(s, global_view(out, {m, n}).with_cache_hint(CacheHint::evict_last), {row, col});
    tma.commit_group();
    tma.wait_group(0, true);
    sync();
  }
};

// Packed int4 words under a hint: out = w + 1 as i32, w read 64 elements (8 words) a row.
struct HintedPackedLoad : Script {
  void operator()(Int32 m, Ptr<i4> w, Ptr<int32_t> out) {
    attrs.blocks = cdiv(m, 32);
    attrs.warps = 4;
    Int32 row = blockIdx.x * 32;
    auto t = load_global(global_view(w, {m, 64}).with_cache_hint(CacheHint::evict_first), {row, 0}, {32, 64});
    store_global(global_view(out, {m, 64}), t.to<int32_t>() + 1, {row, 0});
  }
};

// A cp.async from a hinted view: refused at its line.
struct HintedAsyncCopy : Script {
  void operator()(Ptr<float> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32});
    copy_async(global_view(in, {32}).with_cache_hint(CacheHint::evict_last), s, {0});
    copy_async_wait_all();
  }
};

// Atomics through hinted views, in every form that carries the hint: every block adds its row of
// `x` into `sums` (red), 1 into the f16 `halves` (a red of a generic address), adds 1 to `counts`
// and the old counts into `old_sums` (atom), and its index
// into `largest` by a scalar max; one thread of each takes a ticket (a scalar atom), and the last
// one stores 7 into `flag` and reads it back into `seen` (relaxed st and ld).
struct HintedAtomics : Script {
  void operator()(Int32 blocks, Ptr<float> x, Ptr<float> sums, Ptr<f16> halves, Ptr<int32_t> counts,
                  Ptr<int32_t> old_sums, Ptr<int32_t> largest, Ptr<int32_t> tickets, Ptr<int32_t> flag,
                  Ptr<int32_t> seen) {
    attrs.blocks = blocks;
    attrs.warps = 1;
    auto row = reshape(load_global(global_view(x, {blocks, 32}), {blockIdx.x, 0}, {1, 32}), {32});
    atomic.add(global_view(sums, {32}).with_cache_hint(CacheHint::evict_first), row, {0});
    atomic.add(global_view(halves, {32}).with_cache_hint(CacheHint::evict_last), register_tensor<f16>({32}, 1.0f), {0});
    auto before = atomic.fetch_add(global_view(counts, {32}).with_cache_hint(CacheHint::evict_last),
                                   register_tensor<int32_t>({32}, 1), {0});
    atomic.add(global_view(old_sums, {32}), before, {0});
    atomic.max(global_view(largest, {1}).with_cache_hint(CacheHint::evict_first), {0}, blockIdx.x);
    auto g_flag = global_view(flag, {1}).with_cache_hint(CacheHint::evict_last);
    single_thread([&] {
      Int32 ticket = atomic.fetch_add(global_view(tickets, {1}).with_cache_hint(CacheHint::evict_first), {0}, 1);
      if_(ticket == blocks - 1, [&] {
        atomic.store(g_flag, {0}, 7, MemoryOrder::relaxed);
        atomic.store(global_view(seen, {1}), {0}, atomic.load<int32_t>(g_flag, {0}, MemoryOrder::relaxed),
                     MemoryOrder::relaxed);
      });
    });
  }
};

// A compare-exchange through a hinted view: atom.cas takes no hint, so it is refused at its line.
struct HintedCompareExchange : Script {
  void operator()(Ptr<int32_t> words) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(words, {32}).with_cache_hint(CacheHint::evict_first);
    atomic.compare_exchange(g, register_tensor<int32_t>({32}, 0), register_tensor<int32_t>({32}, 1), {0});
  }
};

template <class T> std::vector<T> random_values(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<T> v(count);
  for (T& x : v) x = T(dist(rng));
  return v;
}

template <class T> void check_hinted_loads_and_stores(const Device& dev, int m, int n, const KernelOptions& options) {
  const std::vector<T> a = random_values<T>(size_t(m) * n, uint32_t(m * 31 + n)),
                       b = random_values<T>(size_t(m) * n, uint32_t(m * 37 + n + 1));
  Buffer<T> da(dev, a), db(dev, b), dout(dev, std::vector<T>(size_t(m) * n, T(77.0f)));
  Kernel<HintedLoadsAndStores<T>> k(dev, options);
  k(m, n, da, db, dout);
  const std::vector<T> out = dout.download();
  for (size_t i = 0; i < out.size(); ++i) {
    const T twice = T(float(a[i]) + float(a[i]));
    const T with_b = T(float(twice) + float(b[i]));
    ASSERT_EQ(float(out[i]), float(T(float(T(float(with_b) + float(b[i]))) - float(b[i])))) << "element " << i;
  }
}

template <class T> void check_hinted_tma_copies(const Device& dev, int m, int n, const KernelOptions& options) {
  const std::vector<T> in = random_values<T>(size_t(m) * n, uint32_t(m * 41 + n));
  Buffer<T> din(dev, in), dout(dev, std::vector<T>(size_t(m) * n, T(77.0f)));
  Kernel<HintedTmaCopies<T>> k(dev, options);
  k(m, n, din, dout);
  const std::vector<T> out = dout.download();
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(float(out[i]), 2 * float(in[i])) << "element " << i;
}

// HintedAtomics over `blocks` blocks of small whole numbers, whose float sums are exact in any order.
inline void check_hinted_atomics(const Device& dev, int blocks, const KernelOptions& options) {
  std::mt19937 rng{uint32_t(blocks)};
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<float> x(size_t(blocks) * 32);
  for (float& v : x) v = float(dist(rng));
  Buffer<float> dx(dev, x), sums(dev, std::vector<float>(32, 0.0f));
  Buffer<f16> halves(dev, std::vector<f16>(32, f16(0.0f)));
  Buffer<int32_t> counts(dev, std::vector<int32_t>(32, 0)), old_sums(dev, std::vector<int32_t>(32, 0)),
      largest(dev, std::vector<int32_t>{-1}), tickets(dev, std::vector<int32_t>{0}), flag(dev, std::vector<int32_t>{0}),
      seen(dev, std::vector<int32_t>{0});
  Kernel<HintedAtomics> k(dev, options);
  k(blocks, dx, sums, halves, counts, old_sums, largest, tickets, flag, seen);
  const auto got_sums = sums.download();
  for (int i = 0; i < 32; ++i) {
    float want = 0;
    for (int b = 0; b < blocks; ++b) want += x[size_t(b) * 32 + size_t(i)];
    ASSERT_EQ(got_sums[size_t(i)], want) << i;
  }
  for (const f16 h : halves.download()) ASSERT_EQ(float(h), float(blocks));
  EXPECT_EQ(counts.download(), std::vector<int32_t>(32, blocks));
  EXPECT_EQ(old_sums.download(), std::vector<int32_t>(32, blocks * (blocks - 1) / 2));
  EXPECT_EQ(largest.download(), std::vector<int32_t>{blocks - 1});
  EXPECT_EQ(tickets.download(), std::vector<int32_t>{blocks});
  EXPECT_EQ(seen.download(), std::vector<int32_t>{7});
}

inline void check_hinted_packed_load(const Device& dev, int m, const KernelOptions& options) {
  std::mt19937 rng{uint32_t(m)};
  std::vector<uint8_t> bytes(size_t(m) * 32);
  for (uint8_t& x : bytes) x = uint8_t(rng());
  Buffer<uint8_t> dw(dev, bytes);
  Buffer<int32_t> dout(dev, std::vector<int32_t>(size_t(m) * 64, 77));
  Kernel<HintedPackedLoad> k(dev, options);
  k(m, dw, dout);
  const std::vector<int32_t> out = dout.download();
  for (size_t i = 0; i < out.size(); ++i) {
    const int nibble = (bytes[i / 2] >> (4 * (i % 2))) & 15;
    ASSERT_EQ(out[i], (nibble >= 8 ? nibble - 16 : nibble) + 1) << "element " << i;
  }
}

}  // namespace tessel::testing
