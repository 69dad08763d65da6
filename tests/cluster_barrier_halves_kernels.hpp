// Kernels of cluster.arrive() and cluster.wait(), for the simulator's tests and the GPU's.
#pragma once

#include <random>

#include "simulate.hpp"

namespace tessel::testing {

// Each block of each cluster of two stores its 8 rows of `in` into its tile and arrives at the
// cluster barrier with `Order`; until the others arrive it doubles its rows into the second half
// of `out`; after its wait it reads its peer's tile into its rows of the first half, so that the
// blocks of a cluster trade rows. The cluster.sync() at the end keeps each tile alive while the
// peer reads it.
template <MemoryOrder Order> struct TradesRowsAfterAnArrival : Script {
  void operator()(Int32 clusters, Ptr<float> in, Ptr<float> out) {
    attrs.blocks = clusters * 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    auto g_in = global_view(in, {clusters * 16, 32});
    auto g_out = global_view(out, {clusters * 32, 32});
    auto mine = shared_tensor<float>({8, 32});
    store_shared(mine, load_global(g_in, {blockIdx.x * 8, 0}, {8, 32}));
    cluster.arrive(Order);
    store_global(g_out, load_global(g_in, {blockIdx.x * 8, 0}, {8, 32}) * 2.0f, {clusters * 16 + blockIdx.x * 8, 0});
    cluster.wait();
    store_global(g_out, load_shared(mine.remote(1 - cluster.blockRank)), {blockIdx.x * 8, 0});
    cluster.sync();
  }
};

// Runs the release form over `clusters` clusters on `dev` and checks `out` against the host.
inline void check_traded_rows(const Device& dev, int clusters, const sim::Options& options) {
  std::mt19937 gen{uint32_t(clusters)};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(size_t(clusters) * 512);
  for (float& v : x) v = dist(gen);
  std::vector<float> want(x.size() * 2);
  for (size_t block = 0; block < size_t(clusters) * 2; ++block)
    for (size_t i = 0; i < 256; ++i) {
      want[block * 256 + i] = x[(block ^ 1) * 256 + i];
      want[x.size() + block * 256 + i] = x[block * 256 + i] * 2.0f;
    }
  Buffer<float> in(dev, x), out(dev, std::vector<float>(want.size(), -1.0f));
  Kernel<TradesRowsAfterAnArrival<MemoryOrder::release>> k(dev, KernelOptions{.arch = "sm_90a", .sim = options});
  k(clusters, in, out);
  const auto got = out.download();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << i;
}

}  // namespace tessel::testing
