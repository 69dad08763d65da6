// Kernels that move runs of rows between global and shared memory by bulk copies without a tensor
// map (tma.bulk_global_to_shared, tma.bulk_shared_to_global), with host expectations. Run on the
// simulator (tests/bulk_copies_test.cpp) and on the GPU (tests/gpu/tma_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {

// Each block gathers 8 rows of x [rows, 64] (read evict_first), named by `index`, into a shared
// tile with one bulk copy per row, issued by one thread, then writes twice the rows to `gathered` and scatters them
// back by bulk copies to the rows of `scattered` that `index` names.
struct GathersAndScattersRows : Script {
  void operator()(Int32 rows, Int32 picks, Ptr<float> x, Ptr<int32_t> index, Ptr<float> gathered,
                  Ptr<float> scattered) {
    attrs.blocks = cdiv(picks, 8);
    attrs.warps = 2;
    auto in = shared_tensor<float>({8, 64});
    auto out = shared_tensor<float>({8, 64});
    auto bars = mbarrier.alloc({1});
    auto picked = global_view(index, {picks});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 64 * int(sizeof(float)));
      for (Int32 i : range(0, 8)) {
        Var<int32_t> row = atomic.load<int32_t>(picked, {blockIdx.x * 8 + i});
        auto source = global_view(x, {rows, 64}).with_cache_hint(CacheHint::evict_first);
        tma.bulk_global_to_shared(source, in[i], {row, 0}, bars[0]);
      }
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    auto twice = load_shared(in) * 2.0f;
    store_global(global_view(gathered, {picks, 64}), twice, {blockIdx.x * 8, 0});
    store_shared(out, twice);
    fence.proxy_async();
    sync();
    single_thread([&] {
      for (Int32 i : range(0, 8)) {
        Var<int32_t> row = atomic.load<int32_t>(picked, {blockIdx.x * 8 + i});
        tma.bulk_shared_to_global(out[i], global_view(scattered, {rows, 64}), {row, 0});
      }
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

// Block scales gathered by row: each block copies 4 rows of 32 e8m0 scales, named by `index`, and
// writes them widened to f32.
struct GathersScaleRows : Script {
  void operator()(Int32 rows, Ptr<e8m0> scales, Ptr<int32_t> index, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto tile = shared_tensor<e8m0>({4, 32});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 4 * 32);
      for (Int32 i : range(0, 4)) {
        Var<int32_t> row = atomic.load<int32_t>(global_view(index, {8}), {blockIdx.x * 4 + i});
        tma.bulk_global_to_shared(global_view(scales, {rows, 32}), tile[i], {row, 0}, bars[0]);
      }
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(tile).to<float>(), {blockIdx.x * 4, 0});
  }
};

// A bulk store into a read-only view: refused at the call.
struct BulkStoreIntoAReadOnlyView : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({64});
    store_shared(s, register_tensor<float>({64}, 1.0f));
    fence.proxy_async();
    sync();
    single_thread([&] { tma.bulk_shared_to_global(s, global_view(x, {4, 64}).read_only(), {0, 0}); });
  }
};

// A run that starts 8 bytes into its row: refused at the call.
struct BulkCopyOfAMisalignedRun : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({16});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 64);
      tma.bulk_global_to_shared(global_view(x, {4, 64}), s, {0, 2}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
  }
};

// A run of 64 elements from column `first` of rows of 64: it leaves its row unless `first` is 0.
struct BulkCopyOfARunAtAColumn : Script {
  void operator()(Int32 first, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({64});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 256);
      tma.bulk_global_to_shared(global_view(x, {4, 64}), s, {1, first}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
  }
};

inline void check_gathers_and_scatters(const Device& dev, int rows, int picks, const KernelOptions& options) {
  std::mt19937 gen{uint32_t(rows * 7 + picks)};
  std::vector<float> x(size_t(rows) * 64);
  for (float& v : x) v = float(int(gen() % 2001) - 1000) / 16.0f;
  // A permutation's first `picks` rows: each scattered row is written once.
  std::vector<int32_t> order(static_cast<size_t>(rows));
  for (int r = 0; r < rows; ++r) order[size_t(r)] = r;
  std::shuffle(order.begin(), order.end(), gen);
  const std::vector<int32_t> index(order.begin(), order.begin() + picks);
  Buffer<float> dx(dev, x), gathered(dev, std::vector<float>(size_t(picks) * 64, 77.0f)),
      scattered(dev, std::vector<float>(size_t(rows) * 64, -1.0f));
  Buffer<int32_t> dindex(dev, index);
  Kernel<GathersAndScattersRows>(dev, options)(rows, picks, dx, dindex, gathered, scattered);
  const auto got = gathered.download(), back = scattered.download();
  for (int p = 0; p < picks; ++p)
    for (int c = 0; c < 64; ++c) {
      const float want = 2 * x[size_t(index[size_t(p)]) * 64 + size_t(c)];
      ASSERT_EQ(got[size_t(p) * 64 + size_t(c)], want) << p << ", " << c;
      ASSERT_EQ(back[size_t(index[size_t(p)]) * 64 + size_t(c)], want) << p << ", " << c;
    }
  for (int r = picks; r < rows; ++r)
    ASSERT_EQ(back[size_t(order[size_t(r)]) * 64], -1.0f) << "row " << order[size_t(r)] << " was not picked";
}

}  // namespace tessel::testing
