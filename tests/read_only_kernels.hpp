// Kernels whose global views are read-only (ld.global.nc) or carry L1 hints, with host
// expectations, and kernels that break a read-only view's promise. Run on the simulator
// (tests/read_only_views_test.cpp) and on the GPU (tests/gpu/cache_hints_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "cache_hint_kernels.hpp"

namespace tessel::testing {

// out = 2 * a + b + c over [m, n] in 32 x 64 tiles: a read through a read-only view with L1
// no_allocate and L2 evict_first, b through a read-only view with L1 evict_last, c through a
// coherent view with L1 evict_first; out written with L1 no_allocate and L2 evict_last. Sizes that
// are not multiples of the tile take the element-by-element paths at the edges.
template <class T> struct QualifiedLoadsAndStores : Script {
  static constexpr int tile_m = 32, tile_n = 64;
  void operator()(Int32 m, Int32 n, Ptr<T> a, Ptr<T> b, Ptr<T> c, Ptr<T> out) {
    attrs.blocks = {cdiv(m, tile_m), cdiv(n, tile_n)};
    attrs.warps = 4;
    Int32 row = blockIdx.x * tile_m, col = blockIdx.y * tile_n;
    auto va = global_view(a, {m, n}).read_only().with_l1_hint(L1Hint::no_allocate);
    auto ta = load_global(va.with_cache_hint(CacheHint::evict_first), {row, col}, {tile_m, tile_n});
    auto tb =
        load_global(global_view(b, {m, n}).read_only().with_l1_hint(L1Hint::evict_last), {row, col}, {tile_m, tile_n});
    auto tc = load_global(global_view(c, {m, n}).with_l1_hint(L1Hint::evict_first), {row, col}, {tile_m, tile_n});
    auto vout = global_view(out, {m, n}).with_l1_hint(L1Hint::no_allocate).with_cache_hint(CacheHint::evict_last);
    store_global(vout, ta + ta + tb + tc, {row, col});
  }
};

// Packed int4 words through a read-only view with L1 no_allocate: out = w + 1 as i32.
struct ReadOnlyPackedLoad : Script {
  void operator()(Int32 m, Ptr<i4> w, Ptr<int32_t> out) {
    attrs.blocks = cdiv(m, 32);
    attrs.warps = 4;
    Int32 row = blockIdx.x * 32;
    auto t = load_global(global_view(w, {m, 64}).read_only().with_l1_hint(L1Hint::no_allocate), {row, 0}, {32, 64});
    store_global(global_view(out, {m, 64}), t.to<int32_t>() + 1, {row, 0});
  }
};

// Writes through read-only views, and L1 hints where no L1 is passed: refused at their lines.
struct StoreThroughReadOnlyView : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(out, {32}).read_only(), register_tensor<float>({32}, 1.0f), {0});
  }
};

struct AtomicThroughReadOnlyView : Script {
  void operator()(Ptr<float> sums) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(sums, {32}).read_only();
    atomic.add(g, register_tensor<float>({32}, 1.0f), {0});
  }
};

struct ScatterThroughReadOnlyView : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto rows = arange({32}, 0);
    store_global_scatter(global_view(out, {32}).read_only(), 0, rows, register_tensor<float>({32}, 1.0f), {0});
  }
};

struct TmaStoreThroughReadOnlyView : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32, 32});
    store_shared(s, register_tensor<float>({32, 32}, 1.0f));
    fence.proxy_async();
    sync();
    single_thread([&] { tma.shared_to_global(s, global_view(out, {32, 32}).read_only(), {0, 0}); });
  }
};

struct AtomicThroughL1HintedView : Script {
  void operator()(Ptr<int32_t> counts) {
    attrs.blocks = 1;
    attrs.warps = 1;
    single_thread([&] { atomic.add(global_view(counts, {1}).with_l1_hint(L1Hint::no_allocate), {0}, 1); });
  }
};

struct CopyAsyncFromL1HintedView : Script {
  void operator()(Ptr<float> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32});
    copy_async(global_view(in, {32}).with_l1_hint(L1Hint::no_allocate), s, {0});
    copy_async_wait_all();
  }
};

struct TmaFromL1HintedView : Script {
  void operator()(Ptr<float> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32, 32});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 4 * 32 * 32);
      tma.global_to_shared(global_view(in, {32, 32}).with_l1_hint(L1Hint::evict_last), s, {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
  }
};

// Broken promises, which only the simulator sees: `data` read through a read-only view and written
// through a plain one by the same warp (so no race), in either order.
template <bool ReadFirst> struct ReadOnlyViewWrittenInLaunch : Script {
  void operator()(Ptr<float> data, Ptr<float> copy) {
    attrs.blocks = 1;
    attrs.warps = 1;
    if (ReadFirst) {
      auto t = load_global(global_view(data, {32}).read_only(), {0}, {32});
      store_global(global_view(data, {32}), t + 1.0f, {0});
    } else {
      store_global(global_view(data, {32}), register_tensor<float>({32}, 3.0f), {0});
      store_global(global_view(copy, {32}), load_global(global_view(data, {32}).read_only(), {0}, {32}), {0});
    }
  }
};

// Block 0 writes `data` and releases a flag; block 1 acquires it, then reads `data` through a
// read-only view: ordered, so no race, yet block 1's non-coherent cache may keep the old bytes.
struct ReadOnlyReadOfPublishedData : Script {
  void operator()(Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto flag_view = global_view(flag, {1});
    if_(blockIdx.x == 0, [&] {
      store_global(global_view(data, {32}), register_tensor<float>({32}, 2.5f), {0});
      sync();
      single_thread([&] { atomic.store(flag_view, {0}, 1, MemoryOrder::release); });
    }).else_([&] {
      single_thread([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, MemoryOrder::acquire); });
      });
      sync();
      auto published = load_global(global_view(data, {32}).read_only(), {0}, {32});
      store_global(global_view(copy, {32}), published, {0});
    });
  }
};

// An atomic add, then an atomic load of the same word (which takes the add's place among the
// byte's recent atomics), then a read of it through a read-only view.
struct ReadOnlyReadAfterAtomics : Script {
  void operator()(Ptr<int32_t> counts, Ptr<int32_t> copy) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(counts, {32});
    single_thread([&] {
      atomic.add(g, {0}, 1);
      Var<int32_t> seen = atomic.load<int32_t>(g, {0});
    });
    sync();
    auto counted = load_global(global_view(counts, {32}).read_only(), {0}, {32});
    store_global(global_view(copy, {32}), counted, {0});
  }
};

// A TMA store into bytes a read-only view's load read earlier in the launch (sm_90a).
struct TmaStoreOverReadOnlyRead : Script {
  void operator()(Ptr<float> data) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(data, {32, 32}).read_only(), {0, 0}, {32, 32});
    auto s = shared_tensor<float>({32, 32});
    store_shared(s, t + 1.0f);
    fence.proxy_async();
    sync();
    single_thread([&] {
      tma.shared_to_global(s, global_view(data, {32, 32}), {0, 0});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

template <class T>
void check_qualified_loads_and_stores(const Device& dev, int m, int n, const KernelOptions& options) {
  const size_t count = size_t(m) * n;
  const std::vector<T> a = random_values<T>(count, uint32_t(m * 31 + n)),
                       b = random_values<T>(count, uint32_t(m * 37 + n + 1)),
                       c = random_values<T>(count, uint32_t(m * 41 + n + 2));
  Buffer<T> da(dev, a), db(dev, b), dc(dev, c), dout(dev, std::vector<T>(count, T(77.0f)));
  Kernel<QualifiedLoadsAndStores<T>> k(dev, options);
  k(m, n, da, db, dc, dout);
  const std::vector<T> out = dout.download();
  for (size_t i = 0; i < count; ++i) {
    const T twice = T(float(a[i]) + float(a[i]));
    const T with_b = T(float(twice) + float(b[i]));
    ASSERT_EQ(float(out[i]), float(T(float(with_b) + float(c[i])))) << "element " << i;
  }
}

inline void check_read_only_packed_load(const Device& dev, int m, const KernelOptions& options) {
  std::mt19937 rng{uint32_t(m) + 5};
  std::vector<uint8_t> bytes(size_t(m) * 32);
  for (uint8_t& x : bytes) x = uint8_t(rng());
  Buffer<uint8_t> dw(dev, bytes);
  Buffer<int32_t> dout(dev, std::vector<int32_t>(size_t(m) * 64, 77));
  Kernel<ReadOnlyPackedLoad> k(dev, options);
  k(m, dw, dout);
  const std::vector<int32_t> out = dout.download();
  for (size_t i = 0; i < out.size(); ++i) {
    const int nibble = (bytes[i / 2] >> (4 * (i % 2))) & 15;
    ASSERT_EQ(out[i], (nibble >= 8 ? nibble - 16 : nibble) + 1) << "element " << i;
  }
}

}  // namespace tessel::testing
