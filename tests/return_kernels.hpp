// return_: kernels whose threads end early, with host expectations. Run on the simulator by
// tests/return_test.cpp and on the GPU by tests/gpu/language_gpu_test.cpp.
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Blocks from `blocks_used` on return whole. Where `stop` is positive, warps 2 and 3 return before
// warps 0 and 1 meet at a barrier of their own; then thread 0 returns from inside a loop at pass
// `stop`, and a while_ loop ends early for the threads of warp 1 whose lane is below `stop`. Each
// thread left stores its passes and its block.
struct ReturnsEarly : Script {
  static constexpr const char* param_names[] = {"blocks_used", "stop", "out"};
  void operator()(Int32 blocks_used, Int32 stop, Ptr<int32_t> out) {
    attrs.blocks = 3;
    attrs.warps = 4;
    auto g = global_view(out, {3, 128});
    if_(blockIdx.x >= blocks_used, [&] { return_(); });
    thread_group(64, 64, [&] { if_(stop > 0, [&] { return_(); }); });
    thread_group(0, 64, [&] { sync(); });
    Int32 passes = 0;
    for (Int32 i : range(0, 10)) {
      single_thread([&] { if_(i == stop, [&] { return_(); }); });
      passes += 1;
    }
    thread_group(32, 32, [&] {
      Int32 more = 0;
      while_([&] { return more < 5; },
             [&] {
               if_(lane_index() < stop, [&] { return_(); });
               more += 1;
             });
      passes += more;
    });
    store_global(g, register_tensor<int32_t>({1, 128}, passes * 10 + blockIdx.x, Layout::spatial({1, 128})),
                 {blockIdx.x, 0});
  }
};

inline std::vector<int32_t> returns_early_expected(int blocks_used, int stop) {
  std::vector<int32_t> want(3 * 128, -1);
  for (int b = 0; b < blocks_used; ++b)
    for (int t = 0; t < 128; ++t) {
      if (stop > 0 && t >= 64) continue;                 // warps 2 and 3 returned
      if (t == 0 && stop < 10) continue;                 // thread 0 returned in the loop
      if (t >= 32 && t < 64 && t - 32 < stop) continue;  // warp 1's lanes below stop, in the while_
      want[size_t(b * 128 + t)] = (t >= 32 && t < 64 ? 15 : 10) * 10 + b;
    }
  return want;
}

inline void check_returns_early(const Device& dev, const KernelOptions& options = {}) {
  Kernel<ReturnsEarly> k(dev, options);
  for (auto [blocks_used, stop] : {std::pair{2, 4}, std::pair{3, 0}, std::pair{1, 10}}) {
    Buffer<int32_t> out(dev, std::vector<int32_t>(3 * 128, -1));
    k(blocks_used, stop, out);
    EXPECT_EQ(out.download(), returns_early_expected(blocks_used, stop))
        << "blocks_used " << blocks_used << ", stop " << stop;
  }
}

// cluster.sync() waits for the threads of the cluster that have not exited (PTX ISA 9.7.13.3), so
// threads that returned do not hold it: warp 1 of each cluster's second block, and lanes 8..15 of
// warp 1 everywhere.
struct ClusterSyncAfterReturns : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 4;
    attrs.warps = 2;
    attrs.cluster = {2, 1, 1};
    thread_group(32, 32, [&] { if_(cluster.blockRank == 1, [&] { return_(); }); });
    thread_group(40, 8, [&] { return_(); });
    cluster.sync();
    single_thread(
        [&] { store_global(global_view(out, {4}), register_tensor<int32_t>({1}, n + blockIdx.x), {blockIdx.x}); });
  }
};

inline void check_cluster_sync_after_returns(const Device& dev, const KernelOptions& options = {}) {
  Buffer<int32_t> out(dev, std::vector<int32_t>(4, -1));
  Kernel<ClusterSyncAfterReturns> k(dev, options);
  k(7, out);
  EXPECT_EQ(out.download(), (std::vector<int32_t>{7, 8, 9, 10}));
}

}  // namespace tessel::testing
