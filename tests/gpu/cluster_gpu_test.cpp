// Clusters on the GPU (sm_90a): the cluster's values, cluster.sync() and its halves, arrivals on another block's
// mbarrier, TMA multicast, distributed shared memory and st.async, against the host references.
// Skipped, visibly, without a GPU.
#include "../async_store_kernels.hpp"
#include "../cluster_barrier_halves_kernels.hpp"
#include "../cluster_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ClusterOnGpu = GpuTest;

TEST_F(ClusterOnGpu, BlocksSeeTheirClusterValues) { check_cluster_values(Device::gpu(), 8, 3, 4, {}); }

TEST_F(ClusterOnGpu, ClusterSyncMakesThePeersWritesVisible) { check_swap(Device::gpu(), 264, {}); }

TEST_F(ClusterOnGpu, AReleaseArrivalOrdersATileBeforeThePeersWaitEnds) {
  check_traded_rows(Device::gpu(), 66, {});
  check_traded_rows(Device::gpu(), 300, {});
}

TEST_F(ClusterOnGpu, RemoteArrivalsReachRankZero) { check_cluster_sums(Device::gpu(), 33, {}); }

TEST_F(ClusterOnGpu, MulticastLoadsLandInEveryBlockOfTheCluster) {
  check_multicast<2>(Device::gpu(), 64, {});
  check_multicast<4>(Device::gpu(), 1024, {});
  check_multicast<2>(Device::gpu(), 40, {});
}

TEST_F(ClusterOnGpu, BulkCopiesPassSlicesAroundTheCluster) {
  check_bulk_copies<2>(Device::gpu(), 64 * 264, {});
  check_bulk_copies<4>(Device::gpu(), 64 * 1024, {});
}

TEST_F(ClusterOnGpu, AsyncStoresPassTilesAroundTheCluster) {
  check_async_stores<float, 2>(Device::gpu(), 132 * 512, {});
  check_async_stores<f16, 4>(Device::gpu(), 264 * 512, {});
  check_async_stores<int8_t, 2>(Device::gpu(), 66 * 512, {});
  check_async_column_sums<2>(Device::gpu(), 132 * 1024, {});
  check_async_column_sums<4>(Device::gpu(), 264 * 1024, {});
  for (int half : {0, 1}) check_stores_into_own_swizzled_tile(Device::gpu(), half, {});
}

TEST_F(ClusterOnGpu, BlocksLoadAndStoreTheirPeersSharedTiles) {
  check_passed_tiles<2, false>(Device::gpu(), 66, {});
  check_passed_tiles<4, false>(Device::gpu(), 33, {});
  check_passed_tiles<2, true>(Device::gpu(), 66, {});
  check_passed_tiles<8, true>(Device::gpu(), 17, {});
}

TEST_F(ClusterOnGpu, BlocksCountIntoTheClustersBinsWithRemoteAtomics) {
  check_cluster_histogram<2>(Device::gpu(), 100000, {});
  check_cluster_histogram<4>(Device::gpu(), 333333, {});
}

}  // namespace
}  // namespace tessel::testing
