// Clusters: attrs.cluster and the cluster's values, cluster.sync(), arrivals on another block's
// mbarrier, TMA multicast; on the simulator against host references under every completion order,
// the misuse each reports, and the generated code through NVRTC for sm_90a.
#include <random>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

using testing::error_of;
using testing::every_order;
using testing::simulate;

int line = 0;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// ---- attrs.cluster and the cluster's values ----

constexpr int kValues = 10;

// Every block writes its cluster values: blockIdx, clusterDim and clusterIdx of the cluster, then
// blockRank.
struct ReportsClusterValues : Script {
  void operator()(Int32 gx, Int32 gy, Int32 gz, Ptr<int32_t> out) {
    attrs.blocks = {gx, gy, gz};
    attrs.cluster = {2, 1, 2};
    attrs.warps = 1;
    Int32 base = ((blockIdx.z * gy + blockIdx.y) * gx + blockIdx.x) * kValues;
    auto view = global_view(out, {gx * gy * gz * kValues});
    const Expr<int32_t> values[kValues] = {cluster.blockIdx.x,   cluster.blockIdx.y,   cluster.blockIdx.z,
                                           cluster.clusterDim.x, cluster.clusterDim.y, cluster.clusterDim.z,
                                           cluster.clusterIdx.x, cluster.clusterIdx.y, cluster.clusterIdx.z,
                                           cluster.blockRank};
    single_thread([&] {
      for (int i = 0; i < kValues; ++i) store_global(view, register_tensor<int32_t>({1}, values[i]), {base + i});
    });
  }
};

TEST(Cluster, BlocksSeeTheirIndexInTheClusterTheClustersShapeAndIndexAndTheirRank) {
  const int gx = 4, gy = 3, gz = 2;
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(size_t(gx * gy * gz * kValues), -1));
  simulate<ReportsClusterValues>({}, gx, gy, gz, out);
  const auto got = out.download();
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x) {
        const int in_x = x % 2, in_z = z % 2;
        const std::vector<int32_t> expected = {in_x, 0, in_z, 2, 1, 2, x / 2, y, z / 2, in_x + 2 * in_z};
        const size_t base = size_t(((z * gy + y) * gx + x) * kValues);
        for (int i = 0; i < kValues; ++i)
          EXPECT_EQ(got[base + size_t(i)], expected[size_t(i)]) << "block " << x << "," << y << "," << z << " value " << i;
      }
}

TEST(Cluster, AGridThatIsNotAWholeNumberOfClustersIsRefusedAtLaunchWithBothShapes) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(size_t(3 * 2 * 2 * kValues), -1));
  EXPECT_EQ(error_of<ReportsClusterValues>(3, 2, 2, out),
            "ReportsClusterValues: a grid of 3 x 2 x 2 blocks is not a whole number of 2 x 1 x 2 clusters");
  EXPECT_EQ(error_of<ReportsClusterValues>(4, 2, 3, out),
            "ReportsClusterValues: a grid of 4 x 2 x 3 blocks is not a whole number of 2 x 1 x 2 clusters");
}

TEST(Cluster, ThePrintedKernelAndTheGeneratedCodeCarryTheClusterShape) {
  Kernel<ReportsClusterValues> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string src = k.cuda_source(4, 2, 2, (int32_t*)nullptr);
  EXPECT_NE(src.find("int(blockIdx.x % 2u + 2u * (blockIdx.y % 1u + 1u * (blockIdx.z % 2u)))"), std::string::npos)
      << src;
  EXPECT_NE(src.find("int(blockIdx.z / 2u)"), std::string::npos) << src;
}

template <int X, int Y, int Z> struct ClusterOf : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 8;
    attrs.cluster = {X, Y, Z};
    attrs.warps = 1;
  }
};

TEST(Cluster, ShapesOutsideTheHardwaresAreReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(1, 0));
  EXPECT_EQ((error_of<ClusterOf<4, 3, 1>>(out)),
            "kernel ClusterOf_4_3_1: attrs.cluster = {4, 3, 1} makes clusters of 12 blocks; a cluster has at most 8");
  EXPECT_EQ((error_of<ClusterOf<2, 0, 1>>(out)),
            "kernel ClusterOf_2_0_1: attrs.cluster = {2, 0, 1}; a cluster has 1 to 3 extents, each at least 1");
}

struct ClusterForSm80 : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 2;
    line = __LINE__ + 1;
    attrs.cluster = {2};
    attrs.warps = 1;
    single_thread([&] { store_global(global_view(out, {2}), register_tensor<int32_t>({1}, cluster.blockRank), {0}); });
  }
};

TEST(Cluster, AKernelWithClustersForSm80IsRejectedNamingSm90a) {
  Kernel<ClusterForSm80> k(Device::simulator(), KernelOptions{.arch = "sm_80"});
  try {
    k.lowered((int32_t*)nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel ClusterForSm80 has clusters of 2 x 1 x 1 blocks (attrs.cluster), which "
                                         "need sm_90a or newer; the kernel is compiled for sm_80"),
              std::string::npos)
        << e.what();
  }
}

// ---- cluster.sync() ----

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

TEST(ClusterSync, BlocksSeeTheirPeersWritesAfterItUnderEveryOrder) {
  const int blocks = 6;
  const std::vector<float> in = random_floats(size_t(blocks) * 128, 11);
  for (const sim::Options& o : every_order()) {
    Buffer<float> din(Device::simulator(), in), scratch(Device::simulator(), std::vector<float>(in.size(), 0.0f)),
        out(Device::simulator(), std::vector<float>(in.size(), 77.0f));
    simulate<SwapsThroughGlobalMemory<true>>(o, blocks, din, scratch, out);
    const auto got = out.download();
    for (int b = 0; b < blocks; ++b)
      for (int i = 0; i < 128; ++i)
        ASSERT_EQ(got[size_t(b * 128 + i)], 2 * in[size_t((b ^ 1) * 128 + i)]) << "block " << b << " element " << i;
  }
}

TEST(ClusterSync, WithoutItABlockReadsThePeersSliceUnwritten) {
  const int blocks = 2;
  const std::vector<float> in = random_floats(size_t(blocks) * 128, 12);
  for (const sim::Options& o : every_order()) {
    Buffer<float> din(Device::simulator(), in), scratch(Device::simulator(), std::vector<float>(in.size(), 0.0f)),
        out(Device::simulator(), std::vector<float>(in.size(), 77.0f));
    simulate<SwapsThroughGlobalMemory<false>>(o, blocks, din, scratch, out);
    const auto got = out.download();
    EXPECT_TRUE(std::count(got.begin(), got.end(), 0.0f) == 128);
  }
}

struct SyncsTheClusterInAThreadGroup : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    single_warp([&] {
      line = __LINE__ + 1;
      cluster.sync();
    });
  }
};

TEST(ClusterSync, InsideAThreadGroupIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  {
    const std::string got = error_of<SyncsTheClusterInAThreadGroup>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: ClusterSync is executed by every thread of the block, but it runs in a thread group of "
                          "threads 0..31 (the block has threads 0..63); move it out of the thread group",
                          __FILE__, line));
  }
}

// Block rank 1 syncs the cluster twice, rank 0 once: the second sync never completes.
struct SyncsTheClusterUnevenly : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    cluster.sync();
    if_(cluster.blockRank == 1, [&] {
      line = __LINE__ + 1;
      cluster.sync();
    });
  }
};

TEST(ClusterSync, ASyncThatNotEveryBlockReachesIsADeadlockNamingIt) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  {
    const std::string got = error_of<SyncsTheClusterUnevenly>(out);
    EXPECT_EQ(got,
              fmt::format("{0}:{1}: deadlock in blocks (0, 0, 0), (1, 0, 0) of kernel SyncsTheClusterUnevenly: every warp "
                          "is blocked or finished and nothing can release the waiting ones\n"
                          "  block (0, 0, 0) warp 0 (threads 0..31): finished\n"
                          "  block (1, 0, 0) warp 0 (threads 0..31): waiting at cluster.sync() at {0}:{1} (32 of its 32 "
                          "threads arrived)\n"
                          "  cluster barrier of cluster.sync(): 32 of 64 threads arrived; every thread of every block of "
                          "the cluster must reach cluster.sync()",
                          __FILE__, line));
  }
}

// ---- arrivals on another block's mbarrier ----

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
    single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
    if_(cluster.blockRank == 0, [&] {
      mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
      auto parts = load_global(global_view(partial, {clusters, 4}), {cluster.clusterIdx.x, 0}, {1, 4});
      store_global(global_view(out, {clusters, 1}), sum(parts, 1), {cluster.clusterIdx.x, 0});
    });
    cluster.sync();
  }
};

TEST(RemoteArrive, RankZeroSumsWhatItsClusterWroteUnderEveryOrder) {
  const int clusters = 3;
  const std::vector<float> in = random_floats(size_t(clusters) * 4 * 32, 21);
  for (const sim::Options& o : every_order()) {
    Buffer<float> din(Device::simulator(), in), partial(Device::simulator(), std::vector<float>(clusters * 4, 0.0f)),
        out(Device::simulator(), std::vector<float>(clusters, 77.0f));
    simulate<SumsRowsOfTheCluster>(o, clusters, din, partial, out);
    const auto parts = partial.download(), got = out.download();
    for (int c = 0; c < clusters; ++c) {
      float total = 0;
      for (int b = 0; b < 4; ++b) total += parts[size_t(c * 4 + b)];
      EXPECT_EQ(got[size_t(c)], total) << "cluster " << c;
      EXPECT_NEAR(got[size_t(c)], [&] {
        float reference = 0;
        for (int i = 0; i < 4 * 32; ++i) reference += in[size_t(c * 128 + i)];
        return reference;
      }(), 1e-3) << "cluster " << c;
    }
  }
}

struct ArrivesOnRankTwoOfTwo : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive(bars[0].remote(2)); });
  }
};

struct ArrivesOnTheNextRank : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[0].remote(cluster.blockRank + 1), 16); });
    cluster.sync();
  }
};

TEST(RemoteArrive, RanksOutsideTheClusterAreReportedAtTraceOrRunTime) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  {
    const std::string got = error_of<ArrivesOnRankTwoOfTwo>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: mbarrier.arrive: block rank 2 is outside the cluster of 2 blocks (attrs.cluster = {{2, "
                          "1, 1}}); ranks run from 0 to 1",
                          __FILE__, line));
  }
  {
    const std::string got = error_of<ArrivesOnTheNextRank>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: mbarrier.arrive_and_expect_tx: block rank 2 is outside the cluster of 2 blocks (thread 0 "
                          "of block (1, 0, 0)); ranks run from 0 to 1",
                          __FILE__, line));
  }
}

// Rank 0 arrives on rank 1's barrier and ends; rank 1 then arrives on rank 0's, which has ended.
struct ArrivesOnAnEndedBlock : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    if_(cluster.blockRank == 0, [&] { single_thread([&] { mbarrier.arrive(bars[0].remote(1)); }); })
        .else_([&] {
          mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
          line = __LINE__ + 1;
          single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
        });
  }
};

TEST(RemoteArrive, AnArrivalOnABlockThatEndedIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  {
    const std::string got = error_of<ArrivesOnAnEndedBlock>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: mbarrier.arrive: thread 0 of block (1, 0, 0) arrives on a barrier of block (0, 0, 0) "
                          "(cluster rank 0), which has ended; end every block of the cluster with cluster.sync() so that "
                          "none ends while others still arrive on its barriers",
                          __FILE__, line));
  }
}

struct AllocatesBarriersBeforeTheCluster : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    attrs.cluster = {2};
    single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
  }
};

TEST(RemoteArrive, BarriersAllocatedBeforeAttrsClusterAreReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  {
    const std::string got = error_of<AllocatesBarriersBeforeTheCluster>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: kernel AllocatesBarriersBeforeTheCluster: mbarrier.alloc before attrs.cluster is set; "
                          "the barriers of a kernel with clusters are published to the whole cluster (cluster.sync()), "
                          "so set attrs.cluster first",
                          __FILE__, line));
  }
}

// ---- TMA multicast ----

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

template <int Blocks> void check_multicast(int m, const sim::Options& o) {
  const int n = kCols, clusters = (m + Blocks * kRows - 1) / (Blocks * kRows), tile = Blocks * kRows * kCols;
  const std::vector<float> a = random_floats(size_t(m) * n, uint32_t(m + Blocks));
  Buffer<float> da(Device::simulator(), a), out(Device::simulator(), std::vector<float>(size_t(clusters * Blocks * tile), 77.0f));
  simulate<SharesATileByMulticast<Blocks>>(o, m, n, da, out);
  const auto got = out.download();
  for (int b = 0; b < clusters * Blocks; ++b)
    for (int i = 0; i < tile; ++i) {
      const int row = (b / Blocks) * Blocks * kRows + i / kCols;
      const float element = row < m ? a[size_t(row * n + i % kCols)] : 0.0f;  // rows past m load as zeros
      ASSERT_EQ(got[size_t(b * tile + i)], element + float(b % Blocks)) << "block " << b << " element " << i;
    }
}

TEST(TmaMulticast, EveryBlockOfTheClusterReceivesEverySliceUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    check_multicast<2>(64, o);
    check_multicast<4>(128, o);
    check_multicast<2>(40, o);  // the last cluster's tile overhangs the view
  }
}

// Rank 1 waits for rank 0's arrival, then multicasts to both; rank 0 has ended by then.
struct MulticastsToAnEndedBlock : Script {
  void operator()(Ptr<float> a) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<float>({kRows, kCols}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    if_(cluster.blockRank == 0, [&] { single_thread([&] { mbarrier.arrive(bars[0].remote(1)); }); })
        .else_([&] {
          mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
          single_thread([&] {
            line = __LINE__ + 1;
            tma.global_to_shared(global_view(a, {kRows, kCols}), tile, {0, 0}, bars[0], Multicast{3});
          });
        });
  }
};

struct MulticastsOutsideTheCluster : Script {
  void operator()(Int32 mask, Ptr<float> a) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<float>({kRows, kCols}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    if_(cluster.blockRank == 0, [&] {
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(bars[0], kRows * kCols * int(sizeof(float)));
        line = __LINE__ + 1;
        tma.global_to_shared(global_view(a, {kRows, kCols}), tile, {0, 0}, bars[0], Multicast{mask});
      });
      mbarrier.wait(bars[0], 0);
    });
    cluster.sync();
  }
};

struct MulticastsToFourOfTwo : Script {
  void operator()(Ptr<float> a) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<float>({kRows, kCols}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    single_thread([&] { tma.global_to_shared(global_view(a, {kRows, kCols}), tile, {0, 0}, bars[0], Multicast{4}); });
  }
};

TEST(TmaMulticast, MasksOutsideTheClusterAndEndedReceiversAreReported) {
  Buffer<float> a(Device::simulator(), random_floats(kRows * kCols, 31));
  {
    const std::string got = error_of<MulticastsToFourOfTwo>(a);
    EXPECT_EQ(got,
              fmt::format("{}:{}: tma.global_to_shared: the multicast mask 0x4 names blocks outside the cluster of 2 "
                          "blocks (attrs.cluster = {{2, 1, 1}}); set bit r for each block rank r in 0..1 that receives "
                          "the box",
                          __FILE__, line));
  }
  {
    const std::string got = error_of<MulticastsOutsideTheCluster>(0, a);
    EXPECT_EQ(got,
              fmt::format("{}:{}: tma.global_to_shared: the multicast mask 0x0 names no block of the cluster of 2 blocks "
                          "(thread 0 of block (0, 0, 0)); set bit r for each block rank r in 0..1 that receives the box",
                          __FILE__, line));
  }
  EXPECT_EQ(error_of<MulticastsOutsideTheCluster>(1, a), "no error");
  {
    const std::string got = error_of<MulticastsToAnEndedBlock>(a);
    EXPECT_EQ(got,
              fmt::format("{}:{}: tma.global_to_shared: multicast to block (0, 0, 0) (cluster rank 0), which has ended "
                          "(thread 0 of block (1, 0, 0)); end every block of the cluster with cluster.sync() so that none "
                          "ends while others still send to it",
                          __FILE__, line));
  }
}

// ---- generated code ----

template <class S, class... A> void expect_compiles_for_sm90a(const std::string& name, const A&... args) {
  Kernel<S> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string src = k.cuda_source(args...);
  runtime::CompileRequest req{src, name, "sm_90a", {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
  EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << src;
}

TEST(Cluster, GeneratedCodeCompilesForSm90a) {
  expect_compiles_for_sm90a<SumsRowsOfTheCluster>("SumsRowsOfTheCluster", 2, (float*)nullptr, (float*)nullptr,
                                                  (float*)nullptr);
  expect_compiles_for_sm90a<SharesATileByMulticast<2>>("SharesATileByMulticast", 64, 32, (float*)nullptr,
                                                       (float*)nullptr);
  expect_compiles_for_sm90a<ArrivesOnTheNextRank>("ArrivesOnTheNextRank", (float*)nullptr);
}

}  // namespace
}  // namespace tessel
