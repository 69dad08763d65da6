// Kernels using clusters, with host references; run on the simulator (tests/cluster_test.cpp) and on
// the GPU (tests/gpu/cluster_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// Runs kernel S on `dev`: on the simulator under `options`, or on the GPU, waiting for it.
template <class S, class... A> void run_on(const Device& dev, const sim::Options& options, const A&... args) {
  if (!dev.is_gpu()) return simulate<S>(options, args...);
  Kernel<S> kernel(dev);
  kernel(args...);
  dev.synchronize();
}

inline std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

constexpr int kValues = 10;

// Every block writes its cluster values: blockIdx, clusterDim and clusterIdx of the cluster, then
// blockRank.
struct ReportsClusterValues : Script {
  static constexpr int blocks_line = __LINE__ + 3;  // where a grid that does not fit its clusters is reported
  static constexpr const char* file = __FILE__;
  void operator()(Int32 gx, Int32 gy, Int32 gz, Ptr<int32_t> out) {
    attrs.blocks = {gx, gy, gz};
    attrs.cluster = {2, 1, 2};
    attrs.warps = 1;
    Int32 base = ((blockIdx.z * gy + blockIdx.y) * gx + blockIdx.x) * kValues;
    auto view = global_view(out, {gx * gy * gz * kValues});
    const Expr<int32_t> values[kValues] = {
        cluster.blockIdx.x,   cluster.blockIdx.y,   cluster.blockIdx.z,   cluster.clusterDim.x, cluster.clusterDim.y,
        cluster.clusterDim.z, cluster.clusterIdx.x, cluster.clusterIdx.y, cluster.clusterIdx.z, cluster.blockRank};
    single_thread([&] {
      for (int i = 0; i < kValues; ++i) store_global(view, register_tensor<int32_t>({1}, values[i]), {base + i});
    });
  }
};

// Runs ReportsClusterValues over a grid of gx x gy x gz blocks (gx and gz even) and checks every
// block's values.
inline void check_cluster_values(const Device& dev, int gx, int gy, int gz, const sim::Options& options) {
  Buffer<int32_t> out(dev, std::vector<int32_t>(size_t(gx * gy * gz * kValues), -1));
  run_on<ReportsClusterValues>(dev, options, gx, gy, gz, out);
  const auto got = out.download();
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x) {
        const int in_x = x % 2, in_z = z % 2;
        const std::vector<int32_t> expected = {in_x, 0, in_z, 2, 1, 2, x / 2, y, z / 2, in_x + 2 * in_z};
        const size_t base = size_t(((z * gy + y) * gx + x) * kValues);
        for (int i = 0; i < kValues; ++i)
          ASSERT_EQ(got[base + size_t(i)], expected[size_t(i)])
              << "block " << x << "," << y << "," << z << " value " << i;
      }
}

// Each block writes its slice of `in` doubled into `scratch`, syncs the cluster, then copies its
// peer's slice (rank ^ 1) to `out`: the peer's writes must be visible after the sync. One warp per
// block, so that without the sync the first block to run reads its peer's slice unwritten.
template <bool Sync> struct SwapsThroughGlobalMemory : Script {
  void operator()(Int32 blocks, Ptr<float> in, Ptr<float> scratch, Ptr<float> out) {
    attrs.blocks = blocks;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto src = global_view(in, {blocks, 128}), mid = global_view(scratch, {blocks, 128}),
         dst = global_view(out, {blocks, 128});
    auto t = load_global(src, {blockIdx.x, 0}, {1, 128});
    store_global(mid, t + t, {blockIdx.x, 0});
    if constexpr (Sync) cluster.sync();
    Int32 peer = blockIdx.x - cluster.blockRank + (cluster.blockRank ^ 1);
    store_global(dst, load_global(mid, {peer, 0}, {1, 128}), {blockIdx.x, 0});
  }
};

// Runs SwapsThroughGlobalMemory<true> over `blocks` blocks: each block's output is its peer's input
// doubled.
inline void check_swap(const Device& dev, int blocks, const sim::Options& options) {
  const std::vector<float> in = random_floats(size_t(blocks) * 128, uint32_t(blocks));
  Buffer<float> din(dev, in), scratch(dev, std::vector<float>(in.size(), 0.0f)),
      out(dev, std::vector<float>(in.size(), 77.0f));
  run_on<SwapsThroughGlobalMemory<true>>(dev, options, blocks, din, scratch, out);
  const auto got = out.download();
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < 128; ++i)
      ASSERT_EQ(got[size_t(b * 128 + i)], 2 * in[size_t((b ^ 1) * 128 + i)]) << "block " << b << " element " << i;
}

// Every block of a cluster of four writes the sum of its row of `in` to `partial` and arrives on
// rank 0's barrier; rank 0 waits at cluster scope and writes the cluster's total. Rank 0 must not
// end before the others arrived: the final cluster.sync() keeps it.
struct SumsRowsOfTheCluster : Script {
  void operator()(Int32 clusters, Ptr<float> in, Ptr<float> partial, Ptr<float> out) {
    attrs.blocks = clusters * 4;
    attrs.cluster = {4};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({4});
    auto row = load_global(global_view(in, {clusters * 4, 32}), {blockIdx.x, 0}, {1, 32});
    store_global(global_view(partial, {clusters * 4, 1}), sum(row, 1), {blockIdx.x, 0});
    sync();  // the block's writes precede the arrival, which releases them to the cluster
    single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
    if_(cluster.blockRank == 0, [&] {
      mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
      auto parts = load_global(global_view(partial, {clusters, 4}), {cluster.clusterIdx.x, 0}, {1, 4});
      store_global(global_view(out, {clusters, 1}), sum(parts, 1), {cluster.clusterIdx.x, 0});
    });
    cluster.sync();
  }
};

// Runs SumsRowsOfTheCluster over `clusters` clusters: each cluster's total is the sum of its
// blocks' partial sums, and close to the sum of its rows.
inline void check_cluster_sums(const Device& dev, int clusters, const sim::Options& options) {
  const std::vector<float> in = random_floats(size_t(clusters) * 4 * 32, uint32_t(clusters + 20));
  Buffer<float> din(dev, in), partial(dev, std::vector<float>(size_t(clusters) * 4, 0.0f)),
      out(dev, std::vector<float>(size_t(clusters), 77.0f));
  run_on<SumsRowsOfTheCluster>(dev, options, clusters, din, partial, out);
  const auto parts = partial.download(), got = out.download();
  for (int c = 0; c < clusters; ++c) {
    float total = 0, reference = 0;
    for (int b = 0; b < 4; ++b) total += parts[size_t(c * 4 + b)];
    for (int i = 0; i < 4 * 32; ++i) reference += in[size_t(c * 128 + i)];
    EXPECT_EQ(got[size_t(c)], total) << "cluster " << c;
    EXPECT_NEAR(got[size_t(c)], reference, 1e-3) << "cluster " << c;
  }
}

constexpr int kRows = 16, kCols = 32;

// A cluster of `Blocks` shares one [Blocks * kRows, kCols] tile of `a`: block rank r loads rows
// r * kRows.. of it and multicasts them to every block, so each block's barrier receives the
// whole tile. Every block then writes its copy plus its rank to its own slot of `out`.
template <int Blocks> struct SharesATileByMulticast : Script {
  void operator()(Int32 m, Int32 n, Ptr<float> a, Ptr<float> out) {
    attrs.blocks = cdiv(m, Blocks * kRows) * Blocks;
    attrs.cluster = {Blocks};
    attrs.warps = 4;
    auto tile = shared_tensor<float>({Blocks, kRows, kCols}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    Int32 first_row = cluster.clusterIdx.x * (Blocks * kRows);
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], Blocks * kRows * kCols * int(sizeof(float)));
      tma.global_to_shared(global_view(a, {m, n}), tile[cluster.blockRank], {first_row + cluster.blockRank * kRows, 0},
                           bars[0], Multicast{(1 << Blocks) - 1});
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
    auto copy = load_shared(tile);
    store_global(global_view(out, {cdiv(m, Blocks * kRows) * Blocks * Blocks, kRows, kCols}),
                 copy + cast<float>(cluster.blockRank), {blockIdx.x * Blocks, 0, 0});
    cluster.sync();
  }
};

// Runs SharesATileByMulticast<Blocks> over an [m, kCols] matrix: every block's copy is its
// cluster's tile (zeros past m) plus its rank.
template <int Blocks> void check_multicast(const Device& dev, int m, const sim::Options& options) {
  const int n = kCols, clusters = (m + Blocks * kRows - 1) / (Blocks * kRows), tile = Blocks * kRows * kCols;
  const std::vector<float> a = random_floats(size_t(m) * n, uint32_t(m + Blocks));
  Buffer<float> da(dev, a), out(dev, std::vector<float>(size_t(clusters * Blocks * tile), 77.0f));
  run_on<SharesATileByMulticast<Blocks>>(dev, options, m, n, da, out);
  const auto got = out.download();
  for (int b = 0; b < clusters * Blocks; ++b)
    for (int i = 0; i < tile; ++i) {
      const int row = (b / Blocks) * Blocks * kRows + i / kCols;
      const float element = row < m ? a[size_t(row * n + i % kCols)] : 0.0f;  // rows past m load as zeros
      ASSERT_EQ(got[size_t(b * tile + i)], element + float(b % Blocks)) << "block " << b << " element " << i;
    }
}

constexpr int kTileRows = 8, kTileCols = 64;

// Each block of a cluster of `Blocks` passes its [kTileRows, kTileCols] tile of `in`, times its rank
// plus one, to the next rank through distributed shared memory. Pulling, each block stores its own
// tile, syncs the cluster, and loads the previous rank's tile (tile.remote(rank)), then syncs again
// so that no block ends while the next still reads it. Pushing, each block syncs the cluster (so
// that the next rank runs), stores straight into the next rank's inbox and syncs again, after which
// its own inbox is full. Either way block rank r writes to `out` the tile of rank r - 1 (mod
// Blocks). Without `Synced` the cluster.sync() between the handoff's store and load is left out;
// without `Started`, the push's first one.
template <int Blocks, bool Push, bool Synced = true, bool Started = true> struct PassesTilesAroundTheCluster : Script {
  static constexpr int handoff_line = __LINE__ + 16;  // the read that races when not Synced
  static constexpr int push_line = __LINE__ + 12;     // the store that comes too early when not Started
  void operator()(Int32 clusters, Ptr<float> in, Ptr<float> out) {
    attrs.blocks = clusters * Blocks;
    attrs.cluster = {Blocks};
    attrs.warps = 2;
    auto src = global_view(in, {clusters * Blocks * kTileRows, kTileCols});
    auto dst = global_view(out, {clusters * Blocks * kTileRows, kTileCols});
    auto tile = load_global(src, {blockIdx.x * kTileRows, 0}, {kTileRows, kTileCols});
    auto scaled = tile * cast<float>(cluster.blockRank + 1);
    auto mailbox = shared_tensor<float>({kTileRows, kTileCols});
    Int32 next = (cluster.blockRank + 1) % Blocks, previous = (cluster.blockRank + Blocks - 1) % Blocks;
    if constexpr (Push && Started) cluster.sync();
    if constexpr (Push) store_shared(mailbox.remote(next), scaled);
    if constexpr (!Push) store_shared(mailbox, scaled);
    if constexpr (Synced) cluster.sync();
    auto received = Push ? load_shared(mailbox) : load_shared(mailbox.remote(previous));
    store_global(dst, received, {blockIdx.x * kTileRows, 0});
    if constexpr (!Push || !Synced) cluster.sync();
  }
};

// Runs PassesTilesAroundTheCluster<Blocks, Push> over `clusters` clusters and checks that every
// block received the previous rank's tile, scaled by that rank plus one.
template <int Blocks, bool Push> void check_passed_tiles(const Device& dev, int clusters, const sim::Options& options) {
  const int tile = kTileRows * kTileCols;
  const std::vector<float> in = random_floats(size_t(clusters * Blocks * tile), uint32_t(clusters * 7 + Blocks));
  Buffer<float> din(dev, in), out(dev, std::vector<float>(in.size(), 77.0f));
  run_on<PassesTilesAroundTheCluster<Blocks, Push>>(dev, options, clusters, din, out);
  const auto got = out.download();
  for (int b = 0; b < clusters * Blocks; ++b) {
    const int rank = b % Blocks, previous = (rank + Blocks - 1) % Blocks, from = b - rank + previous;
    for (int i = 0; i < tile; ++i)
      ASSERT_EQ(got[size_t(b * tile + i)], in[size_t(from * tile + i)] * float(previous + 1))
          << "block " << b << " element " << i;
  }
}

constexpr int kBinsPerBlock = 16;

// A histogram spread over a cluster, as distributed shared memory allows: each block of the cluster
// holds kBinsPerBlock of its Blocks * kBinsPerBlock bins, and every block counts its 256 values
// into the owning blocks' bins with scatter atomics on their tiles (tile.remote(rank), at cluster
// scope), one scatter per owner with the other values' positions -1. Values outside the bins count
// nowhere. After a last cluster.sync() each block writes its bins, its cluster's counts, to `out`.
template <int Blocks> struct CountsIntoTheClustersBins : Script {
  void operator()(Int32 n, Ptr<int32_t> x, Ptr<int32_t> out) {
    Int32 blocks = cdiv(n, 256 * Blocks) * Blocks;
    attrs.blocks = blocks;
    attrs.cluster = {Blocks};
    attrs.warps = 4;
    auto bins = shared_tensor<int32_t>({kBinsPerBlock});
    store_shared(bins, register_tensor<int32_t>({kBinsPerBlock}, 0));
    cluster.sync();  // every block runs, and its bins are zero for the others
    auto v = load_global(global_view(x, {n}), {blockIdx.x * 256}, {256}, Layout{}, -1);
    auto owner = where(v >= 0, v / kBinsPerBlock, -1);
    for (int rank = 0; rank < Blocks; ++rank)
      atomic.scatter_add(bins.remote(rank), where(owner == rank, v % kBinsPerBlock, -1),
                         register_tensor<int32_t>({256}, 1));
    cluster.sync();  // the counts are complete, and no block adds to another's bins any more
    store_global(global_view(out, {blocks * kBinsPerBlock}), load_shared(bins), {blockIdx.x * kBinsPerBlock});
  }
};

// Runs CountsIntoTheClustersBins<Blocks> over n values from -4 to the last bin plus 3, and checks
// each cluster's counts.
template <int Blocks> void check_cluster_histogram(const Device& dev, int n, const sim::Options& options) {
  const int bins = Blocks * kBinsPerBlock, clusters = (n + 256 * Blocks - 1) / (256 * Blocks);
  std::mt19937 rng(uint32_t(n + Blocks));
  std::vector<int32_t> x(static_cast<size_t>(n));
  for (int32_t& v : x) v = int32_t(rng() % uint32_t(bins + 8)) - 4;
  Buffer<int32_t> dx(dev, x), out(dev, std::vector<int32_t>(size_t(clusters * bins), -7));
  run_on<CountsIntoTheClustersBins<Blocks>>(dev, options, n, dx, out);
  std::vector<int32_t> want(size_t(clusters * bins), 0);
  for (int i = 0; i < n; ++i)
    if (x[size_t(i)] >= 0 && x[size_t(i)] < bins) ++want[size_t(i / (256 * Blocks) * bins + x[size_t(i)])];
  EXPECT_EQ(out.download(), want);
}

// Each block of a cluster of `Blocks` passes its 64-element slice of `x`, written to its shared
// tile `mine` by its threads, to the next block of the cluster (rank r to rank r + 1, the last to
// rank 0) by a bulk copy into the receiver's tile `theirs`. The misuse each flag leaves out or adds:
// with `Overwrite`, the sender stores into `mine` again right after issuing the copy, which may
// still be reading it; without `Fence`, the stores into `mine` reach the copy (the async proxy)
// unfenced; without `EndWithSync`, a block may end while its slice is in flight.
template <int Blocks, bool Overwrite = false, bool Fence = true, bool EndWithSync = true> struct PassesSlicesByBulkCopy
    : Script {
  static inline int copy_line = 0, overwrite_line = 0;
  void operator()(Int32 n, Ptr<float> x, Ptr<float> out) {
    attrs.blocks = cdiv(n, 64);
    attrs.cluster = {Blocks};
    attrs.warps = 2;
    auto mine = shared_tensor<float>({64});
    auto theirs = shared_tensor<float>({64});
    auto bars = mbarrier.alloc({1});
    auto slice = load_global(global_view(x, {n}), {blockIdx.x * 64}, {64});
    store_shared(mine, slice);
    if constexpr (Fence) fence.proxy_async();
    sync();
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 64 * int(sizeof(float)));
      copy_line = __LINE__ + 1;
      tma.shared_to_cluster(mine, theirs.remote((cluster.blockRank + 1) % Blocks), bars[0]);
      overwrite_line = __LINE__ + 1;
      if constexpr (Overwrite) store_shared(mine, register_tensor<float>({64}, 0.0f));
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
    store_global(global_view(out, {n}), load_shared(theirs), {blockIdx.x * 64});
    if constexpr (EndWithSync) cluster.sync();  // no block ends while its slice may still be read
  }
};

// Runs PassesSlicesByBulkCopy<Blocks> over n elements: block b's output is the slice of the block
// before it in its cluster.
template <int Blocks> void check_bulk_copies(const Device& dev, int n, const sim::Options& options) {
  const std::vector<float> x = random_floats(size_t(n), uint32_t(n + Blocks));
  Buffer<float> dx(dev, x), out(dev, std::vector<float>(size_t(n), 77.0f));
  run_on<PassesSlicesByBulkCopy<Blocks>>(dev, options, n, dx, out);
  const auto got = out.download();
  for (int b = 0; b < n / 64; ++b) {
    const int rank = b % Blocks, sender = b - rank + (rank + Blocks - 1) % Blocks;
    for (int i = 0; i < 64; ++i) ASSERT_EQ(got[size_t(b * 64 + i)], x[size_t(sender * 64 + i)]) << b << ", " << i;
  }
}

}  // namespace tessel::testing
