// Clusters: attrs.cluster and the cluster's values, cluster.sync(), arrivals on another block's
// mbarrier, TMA multicast; on the simulator against host references under every completion order,
// the misuse each reports, and the generated code through NVRTC for sm_90a.
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "cluster_kernels.hpp"
#include "expect_error.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

using testing::error_of;
using testing::every_order;
using testing::kCols;
using testing::kRows;
using testing::kValues;
using testing::PassesSlicesByBulkCopy;
using testing::PassesTilesAroundTheCluster;
using testing::random_floats;
using testing::ReportsClusterValues;
using testing::SharesATileByMulticast;
using testing::simulate;
using testing::SumsRowsOfTheCluster;
using testing::SwapsThroughGlobalMemory;

int line = 0;

// ---- attrs.cluster and the cluster's values ----

TEST(Cluster, BlocksSeeTheirIndexInTheClusterTheClustersShapeAndIndexAndTheirRank) {
  testing::check_cluster_values(Device::simulator(), 4, 3, 2, {});
}

TEST(Cluster, AGridThatIsNotAWholeNumberOfClustersIsRefusedAtLaunchWithBothShapes) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(size_t(3 * 2 * 2 * kValues), -1));
  const std::string blocks = fmt::format("{}:{}", ReportsClusterValues::file, ReportsClusterValues::blocks_line);
  EXPECT_EQ(error_of<ReportsClusterValues>(3, 2, 2, out),
            blocks +
                ": kernel ReportsClusterValues: attrs.blocks gives a grid of 3 x 2 x 2 blocks, which is not a "
                "whole number of its 2 x 1 x 2 clusters (attrs.cluster)");
  EXPECT_EQ(error_of<ReportsClusterValues>(4, 2, 3, out),
            blocks +
                ": kernel ReportsClusterValues: attrs.blocks gives a grid of 4 x 2 x 3 blocks, which is not a "
                "whole number of its 2 x 1 x 2 clusters (attrs.cluster)");
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
    attrs.cluster = {2};
    attrs.warps = 1;
    line = __LINE__ + 1;  // the kernel's first statement, where it is reported
    single_thread([&] { store_global(global_view(out, {2}), register_tensor<int32_t>({1}, cluster.blockRank), {0}); });
  }
};

TEST(Cluster, AKernelWithClustersForSm80IsRejectedNamingSm90a) {
  Kernel<ClusterForSm80> k(Device::simulator(), KernelOptions{.arch = "sm_80"});
  try {
    k.lowered((int32_t*)nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}:{}: kernel ClusterForSm80 has clusters of 2 x 1 x 1 blocks (attrs.cluster), which need "
                          "sm_90a or newer; the kernel is compiled for sm_80",
                          __FILE__, line));
  }
}

// ---- cluster.sync() ----

TEST(ClusterSync, BlocksSeeTheirPeersWritesAfterItUnderEveryOrder) {
  for (const sim::Options& o : every_order()) testing::check_swap(Device::simulator(), 6, o);
}

// Without it, one block reads the peer's slice before or after the peer writes it: a race on global
// memory, whichever block runs first.
TEST(ClusterSync, WithoutItABlockRacesWithItsPeerOnThePeersSlice) {
  const int blocks = 2;
  const std::vector<float> in = random_floats(size_t(blocks) * 128, 12);
  for (const sim::Options& o : every_order()) {
    Buffer<float> din(Device::simulator(), in), scratch(Device::simulator(), std::vector<float>(in.size(), 0.0f)),
        out(Device::simulator(), std::vector<float>(in.size(), 77.0f));
    const std::string got = testing::simulation_error<SwapsThroughGlobalMemory<false>>(o, blocks, din, scratch, out);
    EXPECT_NE(got.find("cluster_kernels.hpp:"), std::string::npos) << got;
    EXPECT_NE(got.find(": data race on global memory, byte "), std::string::npos) << got;
    EXPECT_NE(got.find("of a 1024-byte allocation"), std::string::npos) << got;
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
  const std::string got = error_of<SyncsTheClusterInAThreadGroup>(out);
  EXPECT_EQ(got, fmt::format(
                     "{}:{}: cluster.sync() is executed by every thread of the block, but it runs in a thread group of "
                     "threads 0..31 (the block has threads 0..63); move it out of the thread group",
                     __FILE__, line));
}

// Rank 1 syncs the cluster before it arrives on rank 0's barrier, which rank 0 waits for first: a
// cluster.sync() waits for every thread that has not exited, so rank 0 never arrives.
struct SyncsTheClusterWhileAPeerWaits : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    allocated = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    if_(cluster.blockRank == 0, [&] {
      line = __LINE__ + 1;
      mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
    }).else_([&] {
      synced = __LINE__ + 1;
      cluster.sync();
      single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
    });
  }
  static inline int allocated = 0, synced = 0;
};

TEST(ClusterSync, ASyncThatAPeerNeverReachesIsADeadlockNamingIt) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  const std::string got = error_of<SyncsTheClusterWhileAPeerWaits>(out);
  const int alloc = SyncsTheClusterWhileAPeerWaits::allocated, sync = SyncsTheClusterWhileAPeerWaits::synced;
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: deadlock in blocks (0, 0, 0), (1, 0, 0) of kernel SyncsTheClusterWhileAPeerWaits: "
                        "block (0, 0, 0) warp 0 (threads 0..31) waits at {0}:{1} for phase 0 (parity 0) of barrier 0 "
                        "of the array allocated at {0}:{2}, which lacks 1 of its 1 arrivals, and nothing in flight and "
                        "no other warp can provide them; what completes phases of its array is an arrive on another "
                        "block's barrier (remote) at {0}:{4} (thread 0).\n"
                        "  every warp is blocked or finished and nothing can release the waiting ones\n"
                        "  block (0, 0, 0) warp 0 (threads 0..31): waiting at {0}:{1} for barrier 0 of the array "
                        "allocated at {0}:{2} to complete its phase of parity 0\n"
                        "  block (1, 0, 0) warp 0 (threads 0..31): waiting at cluster.sync() at {0}:{3} (32 of its 32 "
                        "threads arrived)\n"
                        "  cluster barrier of cluster.sync(): 32 of 64 threads arrived; every thread of every block of "
                        "the cluster must reach cluster.sync() (or cluster.arrive())\n"
                        "  block (0, 0, 0) barrier 0 of the array allocated at {0}:{2}: in phase 0 (parity 0), 1 of 1 "
                        "arrivals pending, tx-count 0\n"
                        "  block (1, 0, 0) barrier 0 of the array allocated at {0}:{2}: in phase 0 (parity 0), 1 of 1 "
                        "arrivals pending, tx-count 0",
                        __FILE__, line, alloc, sync, sync + 1));
}

// Rank 1 waits for an arrival that rank 0 skips (it goes straight to cluster.sync()): the report
// leads with rank 1's wait, the cause, not with rank 0's sync, which comes first in block order.
struct SkipsTheArrivalAPeerWaitsFor : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    allocated = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    cluster.sync();
    if_(cluster.blockRank == 1, [&] {
      line = __LINE__ + 1;
      mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
    });
    if_(cluster.blockRank == 2, [&] {
      arrived = __LINE__ + 1;
      single_thread([&] { mbarrier.arrive(bars[0].remote(1)); });
    });
    cluster.sync();
  }
  static inline int allocated = 0, arrived = 0;
};

TEST(ClusterSync, ADeadlockReportLeadsWithTheWaitNothingCanSatisfy) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  const std::string got = error_of<SkipsTheArrivalAPeerWaitsFor>(out);
  const std::string lead = got.substr(0, got.find('\n'));
  EXPECT_EQ(lead, fmt::format(
                      "{0}:{1}: deadlock in blocks (0, 0, 0), (1, 0, 0) of kernel SkipsTheArrivalAPeerWaitsFor: "
                      "block (1, 0, 0) warp 0 (threads 0..31) waits at {0}:{1} for phase 0 (parity 0) of "
                      "barrier 0 of the array allocated at {0}:{2}, which lacks 1 of its 1 arrivals, and "
                      "nothing in flight and no other warp can provide them; what completes phases of its "
                      "array is an arrive on another block's barrier (remote) at {0}:{3} (thread 0).",
                      __FILE__, line, SkipsTheArrivalAPeerWaitsFor::allocated, SkipsTheArrivalAPeerWaitsFor::arrived));
  EXPECT_NE(got.find("block (0, 0, 0) warp 0 (threads 0..31): waiting at cluster.sync()"), std::string::npos) << got;
}

// Rank 0 ends while rank 1 syncs the cluster: threads that have exited do not count, so rank 1
// passes its second sync and writes its mark.
struct SyncsTheClusterAfterAPeerEnded : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    cluster.sync();
    if_(cluster.blockRank == 1, [&] {
      cluster.sync();
      store_global(global_view(out, {64}), register_tensor<float>({64}, 7.5f), {0});
    });
  }
};

TEST(ClusterSync, ThreadsThatEndedDoNotCount) {
  for (const sim::Options& o : every_order()) {
    Buffer<float> out(Device::simulator(), std::vector<float>(64, 0.0f));
    EXPECT_EQ(testing::simulation_error<SyncsTheClusterAfterAPeerEnded>(o, out), "no error") << sim::schedule_name(o);
    EXPECT_EQ(out.download(), std::vector<float>(64, 7.5f)) << sim::schedule_name(o);
  }
}

// ---- arrivals on another block's mbarrier ----

TEST(RemoteArrive, RankZeroSumsWhatItsClusterWroteUnderEveryOrder) {
  for (const sim::Options& o : every_order()) testing::check_cluster_sums(Device::simulator(), 3, o);
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
              fmt::format("{}:{}: mbarrier.arrive: block rank 2 is outside the cluster of 2 blocks (attrs.cluster = "
                          "{{2, 1, 1}}); ranks run from 0 to 1",
                          __FILE__, line));
  }
  {
    const std::string got = error_of<ArrivesOnTheNextRank>(out);
    EXPECT_EQ(got, fmt::format("{}:{}: mbarrier.arrive_and_expect_tx: block rank 2 is outside the cluster of 2 blocks "
                               "(thread 0 of block (1, 0, 0)); ranks run from 0 to 1",
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
    if_(cluster.blockRank == 0, [&] { single_thread([&] { mbarrier.arrive(bars[0].remote(1)); }); }).else_([&] {
      mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
      line = __LINE__ + 1;
      single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
    });
  }
};

TEST(RemoteArrive, AnArrivalOnABlockThatEndedIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(1, 0.0f));
  const std::string got = error_of<ArrivesOnAnEndedBlock>(out);
  EXPECT_EQ(got,
            fmt::format("{}:{}: mbarrier.arrive: thread 0 of block (1, 0, 0) arrives on a barrier of block (0, 0, 0) "
                        "(cluster rank 0), which has ended; end every block of the cluster with cluster.sync() so that "
                        "none ends while others still arrive on its barriers",
                        __FILE__, line));
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
  const std::string got = error_of<AllocatesBarriersBeforeTheCluster>(out);
  EXPECT_EQ(got,
            fmt::format("{}:{}: kernel AllocatesBarriersBeforeTheCluster: mbarrier.alloc before attrs.cluster is set; "
                        "the barriers of a kernel with clusters are published to the whole cluster (cluster.sync()), "
                        "so set attrs.cluster first",
                        __FILE__, line));
}

// ---- TMA multicast ----

TEST(TmaMulticast, EveryBlockOfTheClusterReceivesEverySliceUnderEveryOrder) {
  const Device& simulator = Device::simulator();
  for (const sim::Options& o : every_order()) {
    testing::check_multicast<2>(simulator, 64, o);
    testing::check_multicast<4>(simulator, 128, o);
    testing::check_multicast<2>(simulator, 40, o);  // the last cluster's tile overhangs the view
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
    if_(cluster.blockRank == 0, [&] { single_thread([&] { mbarrier.arrive(bars[0].remote(1)); }); }).else_([&] {
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
              fmt::format("{}:{}: tma.global_to_shared: the multicast mask 0x0 names no block of the cluster of 2 "
                          "blocks (thread 0 of block (0, 0, 0)); set bit r for each block rank r in 0..1 that receives "
                          "the box",
                          __FILE__, line));
  }
  EXPECT_EQ(error_of<MulticastsOutsideTheCluster>(1, a), "no error");
  {
    const std::string got = error_of<MulticastsToAnEndedBlock>(a);
    EXPECT_EQ(got,
              fmt::format("{}:{}: tma.global_to_shared: multicast to block (0, 0, 0) (cluster rank 0), which has "
                          "ended (thread 0 of block (1, 0, 0)); end every block of the cluster with cluster.sync() so "
                          "that none ends while others still send to it",
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

// ---- distributed shared memory: tile.remote(rank) ----

TEST(DistributedShared, BlocksLoadTheirPeersTilesUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_passed_tiles<2, false>(Device::simulator(), 3, o);
    testing::check_passed_tiles<4, false>(Device::simulator(), 2, o);
  }
}

TEST(DistributedShared, BlocksStoreIntoTheirPeersTilesUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_passed_tiles<2, true>(Device::simulator(), 3, o);
    testing::check_passed_tiles<4, true>(Device::simulator(), 2, o);
  }
}

// Without the cluster.sync() between a block's store and its peer's load, the load finds the bytes
// unwritten or written by an access it is not ordered after, whichever block runs first; pulling,
// nothing orders it after the peer started either.
template <bool Push> void expect_unsynced_handoff_reported() {
  using Passes = PassesTilesAroundTheCluster<2, Push, false>;
  const std::vector<float> in = random_floats(size_t(2 * testing::kTileRows * testing::kTileCols), 5);
  for (const sim::Options& o : every_order()) {
    Buffer<float> din(Device::simulator(), in), out(Device::simulator(), std::vector<float>(in.size(), 77.0f));
    const std::string got = testing::simulation_error<Passes>(o, 1, din, out);
    EXPECT_EQ(got.rfind(fmt::format("{}:{}: ", ReportsClusterValues::file, Passes::handoff_line), 0), 0u)
        << sim::schedule_name(o) << ": " << got;
    const bool unwritten = got.find("read of shared memory that was never written") != std::string::npos &&
                           got.find("is a cluster.sync() or an mbarrier handoff missing") != std::string::npos;
    const bool race = got.find("data race on shared memory") != std::string::npos;
    const bool before_start =
        got.find("before anything ordered the access after that block started") != std::string::npos;
    EXPECT_TRUE(unwritten || race || before_start) << sim::schedule_name(o) << ": " << got;
  }
}

TEST(DistributedShared, AHandoffWithoutClusterSyncIsReportedAtTheRead) {
  expect_unsynced_handoff_reported<false>();
  expect_unsynced_handoff_reported<true>();
}

// A block may use another's shared memory only once that block runs: the push without its first
// cluster.sync() stores into a block that, for all the storing thread knows, has not started.
TEST(DistributedShared, AStoreIntoABlockNotYetKnownToRunIsReported) {
  using Passes = PassesTilesAroundTheCluster<2, true, true, false>;
  const std::vector<float> in = random_floats(size_t(2 * testing::kTileRows * testing::kTileCols), 6);
  Buffer<float> din(Device::simulator(), in), out(Device::simulator(), std::vector<float>(in.size(), 77.0f));
  EXPECT_EQ(error_of<Passes>(1, din, out),
            fmt::format("{}:{}: store_shared: thread 0 of block (0, 0, 0) writes the shared memory of block (1, 0, 0) "
                        "(cluster rank 1) before anything ordered the access after that block started; another "
                        "block's shared memory may be used once that block runs, which a cluster.sync() before the "
                        "first such access guarantees",
                        ReportsClusterValues::file, Passes::push_line));
}

// Rank 0 stores its tile, tells rank 1 and ends; rank 1 then reads rank 0's tile.
struct ReadsAnEndedBlock : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    auto tile = shared_tensor<float>({32});
    if_(cluster.blockRank == 0, [&] {
      store_shared(tile, register_tensor<float>({32}, 1.5f));
      sync();
      single_thread([&] { mbarrier.arrive(bars[0].remote(1)); });
    }).else_([&] {
      mbarrier.wait(bars[0], 0, WaitSemantics::acquire, WaitScope::cluster);
      line = __LINE__ + 1;
      store_global(global_view(out, {32}), load_shared(tile.remote(0)), {0});
    });
  }
};

TEST(DistributedShared, AReadOfABlockThatEndedIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(32, 0.0f));
  const std::string got = error_of<ReadsAnEndedBlock>(out);
  EXPECT_EQ(got,
            fmt::format("{}:{}: load_shared: thread 0 of block (1, 0, 0) reads the shared memory of block (0, 0, 0) "
                        "(cluster rank 0), which has ended; end every block of the cluster with cluster.sync() so that "
                        "none ends while others still use its shared memory",
                        __FILE__, line));
}

struct StoresToRankTwoOfTwo : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<float>({32});
    line = __LINE__ + 1;
    store_shared(tile.remote(2), register_tensor<float>({32}, 1.0f));
    cluster.sync();
  }
};

struct LoadsFromTheNextRank : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<float>({32});
    store_shared(tile, register_tensor<float>({32}, 1.0f));
    cluster.sync();
    line = __LINE__ + 1;
    store_global(global_view(out, {64}), load_shared(tile.remote(cluster.blockRank + 1)), {blockIdx.x * 32});
    cluster.sync();
  }
};

struct LoadsAPeerWithoutClusters : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto tile = shared_tensor<float>({32});
    line = __LINE__ + 1;
    store_global(global_view(out, {64}), load_shared(tile.remote(1)), {blockIdx.x * 32});
  }
};

struct StoresPackedIntoAPeer : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto tile = shared_tensor<i4>({64});
    line = __LINE__ + 1;
    store_shared(tile.remote(1), register_tensor<i4>({64}, 3));
    cluster.sync();
  }
};

TEST(DistributedShared, MisuseIsReportedAtTheUsersLine) {
  Buffer<float> out(Device::simulator(), std::vector<float>(64, 0.0f));
  {
    const std::string got = error_of<StoresToRankTwoOfTwo>(out);
    EXPECT_EQ(got, fmt::format("{}:{}: store_shared: block rank 2 is outside the cluster of 2 blocks (attrs.cluster = "
                               "{{2, 1, 1}}); ranks run from 0 to 1",
                               __FILE__, line));
  }
  {
    const std::string got = error_of<LoadsFromTheNextRank>(out);
    EXPECT_EQ(got, fmt::format(
                       "{}:{}: load_shared: block rank 2 is outside the cluster of 2 blocks (thread 0 of block (1, 0, "
                       "0)); ranks run from 0 to 1",
                       __FILE__, line));
  }
  {
    const std::string got = error_of<LoadsAPeerWithoutClusters>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: load_shared: tile.remote(rank) reaches the shared memory of another block of the "
                          "cluster, and kernel LoadsAPeerWithoutClusters has no clusters; give it some with "
                          "attrs.cluster (sm_90a or newer)",
                          __FILE__, line));
  }
  {
    const std::string got = error_of<StoresPackedIntoAPeer>(out);
    EXPECT_EQ(got,
              fmt::format("{}:{}: store_shared: another block's shared tile of packed i4 elements, which move within "
                          "their own block only; share them through a tile of u8 or wider elements",
                          __FILE__, line));
  }
}

TEST(DistributedShared, AtomicsCountIntoTheClustersBinsUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_cluster_histogram<2>(Device::simulator(), 1000, o);
    testing::check_cluster_histogram<4>(Device::simulator(), 2100, o);
  }
}

// Rank 0 adds into rank 1's counter, at cluster scope (the default) or cta scope, after a
// cluster.sync() or before any.
template <bool CtaScope, bool Synced> struct AddsIntoThePeersCounter : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto counter = shared_tensor<int32_t>({1});
    single_thread([&] { store_shared(counter, register_tensor<int32_t>({1}, 0)); });
    if constexpr (Synced) cluster.sync();
    const std::optional<MemoryScope> scope = CtaScope ? std::optional(MemoryScope::cta) : std::nullopt;
    if_(cluster.blockRank == 0, [&] {
      single_thread([&] {
        line = __LINE__ + 1;
        atomic.add(counter.remote(1), {0}, 5, MemoryOrder::relaxed, scope);
      });
    });
    cluster.sync();
    store_global(global_view(out, {2}), load_shared(counter), {blockIdx.x});
  }
};

TEST(DistributedShared, AtomicsOnAPeerAddAtClusterScopeOnceThePeerRuns) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(2, -1));
  testing::simulate<AddsIntoThePeersCounter<false, true>>({}, out);
  EXPECT_EQ(out.download(), (std::vector<int32_t>{0, 5}));
  {
    const std::string got = error_of<AddsIntoThePeersCounter<true, true>>(out);
    EXPECT_EQ(got, fmt::format("{}:{}: atomic.add: an atomic on another block's shared memory at cta scope is atomic "
                               "only with its own block's, not with the owner's; leave the scope out (cluster, for "
                               "tile.remote(rank)) or give MemoryScope::cluster",
                               __FILE__, line));
  }
  {
    const std::string got = error_of<AddsIntoThePeersCounter<false, false>>(out);
    EXPECT_EQ(got, fmt::format("{}:{}: atomic add: thread 0 of block (0, 0, 0) writes the shared memory of block "
                               "(1, 0, 0) (cluster rank 1) before anything ordered the access after that block "
                               "started; another block's shared memory may be used once that block runs, which a "
                               "cluster.sync() before the first such access guarantees",
                               __FILE__, line));
  }
}

TEST(DistributedShared, ThePrintedKernelNamesThePeerAndTheCodeMapsItsAddress) {
  Kernel<PassesTilesAroundTheCluster<2, false>> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string ir = ir::print(*k.lowered(1, (float*)nullptr, (float*)nullptr));
  EXPECT_NE(ir.find(" of cluster block "), std::string::npos) << ir;
  const std::string src = k.cuda_source(1, (float*)nullptr, (float*)nullptr);
  EXPECT_NE(src.find("mapa.u64"), std::string::npos) << src;
}

// P = A_peer A_own^T for f16 [16, 16] tiles, each block with its own A: the same dot-operand load
// of the block's own tile and of its peer's, and the f16 product stored into the peer's tile and
// into the block's own. Local, the load is an ldmatrix and the store an stmatrix; remote, neither
// can be (they address the block's own shared memory). Each block writes its two tiles' sum.
struct MultipliesByThePeersTile : Script {
  void operator()(Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto s_a = shared_tensor<f16>({16, 16});
    auto from_peer = shared_tensor<f16>({16, 16}), own = shared_tensor<f16>({16, 16});
    store_shared(s_a, load_global(global_view(a, {32, 16}), {blockIdx.x * 16, 0}, {16, 16}));
    cluster.sync();
    Int32 peer = 1 - cluster.blockRank;
    auto product =
        dot(load_shared(s_a.remote(peer)), load_shared(s_a.transpose()), register_tensor<float>({16, 16}, 0.0f))
            .to<f16>();
    store_shared(from_peer.remote(peer), product);
    store_shared(own, product);
    cluster.sync();
    store_global(global_view(c, {32, 16}), load_shared(from_peer) + load_shared(own), {blockIdx.x * 16, 0});
  }
};

// The generated code's section for the statement that maps the peer's address.
std::string peer_sections(const std::string& src) {
  std::string sections;
  for (size_t at = src.find("mapa.u64"); at != std::string::npos; at = src.find("mapa.u64", at + 1)) {
    const size_t begin = src.rfind("\n  // ", at), end = src.find("\n  // ", at);
    sections += src.substr(begin, end - begin);
  }
  return sections;
}

TEST(DistributedShared, AnotherBlocksTileIsNeverMovedByLdmatrixOrStmatrix) {
  const Device dev = Device::simulator();
  std::mt19937 rng(8);
  std::vector<f16> a(32 * 16);
  for (f16& x : a) x = f16(float(int(rng() % 9) - 4));
  Buffer<f16> da(dev, a), dc(dev, std::vector<f16>(32 * 16, f16(-99.0f)));
  for (const sim::Options& o : every_order()) {
    Kernel<MultipliesByThePeersTile>(dev, KernelOptions{.arch = "sm_90a", .sim = o})(da, dc);
    const std::vector<f16> got = dc.download();
    // Block b's sum is its own product, A_{1-b} A_b^T, and its peer's, A_b A_{1-b}^T: small integers, exact.
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          float want = 0;
          for (int k = 0; k < 16; ++k)
            want += float(a[size_t(((1 - b) * 16 + i) * 16 + k)]) * float(a[size_t((b * 16 + j) * 16 + k)]) +
                    float(a[size_t((b * 16 + i) * 16 + k)]) * float(a[size_t(((1 - b) * 16 + j) * 16 + k)]);
          ASSERT_EQ(float(got[size_t((b * 16 + i) * 16 + j)]), want) << sim::schedule_name(o) << " " << b << i << j;
        }
  }
  Kernel<MultipliesByThePeersTile> k(dev, KernelOptions{.arch = "sm_90a"});
  const std::string src = k.cuda_source((f16*)nullptr, (f16*)nullptr);
  EXPECT_NE(src.find("ldmatrix.sync"), std::string::npos) << src;
  EXPECT_NE(src.find("stmatrix.sync"), std::string::npos) << src;
  const std::string remote = peer_sections(src);
  EXPECT_NE(remote.find("tessel_peer_smem"), std::string::npos) << src;
  EXPECT_EQ(remote.find("ldmatrix"), std::string::npos) << remote;
  EXPECT_EQ(remote.find("stmatrix"), std::string::npos) << remote;
}

// ---- bulk copies between the blocks' shared memories ----

TEST(BulkCopy, BlocksPassSlicesAroundTheClusterUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_bulk_copies<2>(Device::simulator(), 256, o);
    testing::check_bulk_copies<4>(Device::simulator(), 512, o);
  }
}

// The sender overwrites its source before anything says the copy is done: reported where the copy
// is still in flight, which some completion orders leave it.
TEST(BulkCopy, OverwritingTheSourceOfACopyInFlightIsReported) {
  using Kernel = PassesSlicesByBulkCopy<2, true>;
  const std::vector<float> x = random_floats(128, 3);
  int reported = 0;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(128, 77.0f));
    const std::string got = testing::simulation_error<Kernel>(o, 128, dx, out);
    if (got == "no error") continue;
    ++reported;
    EXPECT_NE(got.find("cluster_kernels.hpp:" + std::to_string(Kernel::overwrite_line) +
                       ": write of shared memory that a tma.shared_to_cluster issued at "),
              std::string::npos)
        << got;
    EXPECT_NE(got.find("cluster_kernels.hpp:" + std::to_string(Kernel::copy_line) + " may still be reading"),
              std::string::npos)
        << got;
    EXPECT_NE(got.find("; the copy is done when the receiving block's barrier phase completes: reuse the source "
                       "once the receiver says so (an mbarrier arrival after its wait, or a cluster.sync())"),
              std::string::npos)
        << got;
  }
  EXPECT_GT(reported, 0);
}

int mine_line = 0;

// Both blocks copy into block 0's tile: the second copy issued while the first is in flight writes
// bytes the first still owns, reported with the issuing thread's own block.
struct TwoCopiesIntoOneTile : Script {
  static inline int copy_line = 0;
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto mine = shared_tensor<float>({16});
    auto theirs = shared_tensor<float>({16});
    auto bars = mbarrier.alloc({1});
    store_shared(mine, register_tensor<float>({16}, 1.0f));
    fence.proxy_async();
    sync();
    single_thread([&] {
      if_(cluster.blockRank == 0, [&] { mbarrier.arrive_and_expect_tx(bars[0], 2 * 16 * int(sizeof(float))); });
      copy_line = __LINE__ + 1;
      tma.shared_to_cluster(mine, theirs.remote(0), bars[0]);
    });
    if_(cluster.blockRank == 0,
        [&] { mbarrier.wait(bars[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster); });
    cluster.sync();
  }
};

TEST(BulkCopy, TwoCopiesInFlightToOneTileNameTheSecondsIssuer) {
  std::set<std::string> issuers;
  for (const sim::Options& o : every_order()) {
    Buffer<float> out(Device::simulator(), std::vector<float>(16, 0.0f));
    const std::string got = testing::simulation_error<TwoCopiesIntoOneTile>(o, out);
    if (got == "no error") continue;
    const std::string copy = "cluster_test.cpp:" + std::to_string(TwoCopiesIntoOneTile::copy_line);
    EXPECT_NE(got.find(copy + ": write of shared memory that a tma.shared_to_cluster issued at "), std::string::npos)
        << got;
    EXPECT_NE(got.find(copy + " may still be writing (thread 0 of block ("), std::string::npos) << got;
    issuers.insert(got.substr(got.find("(thread 0 of block (") + 20, 1));
  }
  EXPECT_TRUE(issuers.count("1")) << "no order named block 1, the issuer of the second copy in some orders";
}

// The sender's stores into its source were not fenced: the copy reads through the async proxy.
TEST(BulkCopy, AnUnfencedSourceIsReported) {
  using Kernel = PassesSlicesByBulkCopy<2, false, false>;
  const std::vector<float> x = random_floats(128, 4);
  Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(128, 77.0f));
  const std::string got = testing::simulation_error<Kernel>(sim::Options{}, 128, dx, out);
  EXPECT_NE(got.find("reads through the async proxy what "), std::string::npos) << got;
  EXPECT_NE(got.find("and no fence.proxy_async() (or ProxySpace::all) lies between them"), std::string::npos) << got;
}

// Without the final cluster.sync(), a block may end while its slice is still in flight, which the
// orders that complete the copy late expose.
TEST(BulkCopy, ABlockThatEndsWhileItsCopyIsInFlightIsReported) {
  using Kernel = PassesSlicesByBulkCopy<2, false, true, false>;
  const std::vector<float> x = random_floats(128, 5);
  int reported = 0;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(128, 77.0f));
    const std::string got = testing::simulation_error<Kernel>(o, 128, dx, out);
    if (got.find("tma.shared_to_cluster: block ") == std::string::npos) continue;
    ++reported;
    EXPECT_NE(got.find("cluster_kernels.hpp:" + std::to_string(Kernel::copy_line) + ": "), std::string::npos) << got;
    EXPECT_NE(got.find("end the cluster's blocks with cluster.sync() after the receiver's wait"), std::string::npos)
        << got;
  }
  EXPECT_GT(reported, 0);
}

struct CopiesIntoATileOfAnotherShape : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    mine_line = __LINE__ + 1;
    auto mine = shared_tensor<float>({64});
    auto theirs = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      line = __LINE__ + 1;
      tma.shared_to_cluster(mine, theirs.remote(1 - cluster.blockRank), bars[0]);
    });
  }
};

TEST(BulkCopy, TilesOfAnotherShapeAreRefusedAtTheUsersLine) {
  Kernel<CopiesIntoATileOfAnotherShape> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string got = testing::error_of_call([&] { k((float*)nullptr); });
  const auto at = [](int l) { return std::string(__FILE__) + ":" + std::to_string(l); };
  EXPECT_EQ(got, at(line) + ": tma.shared_to_cluster: copies a shared tile of f32 [64] (allocated at " + at(mine_line) +
                     ") into one of f32 [32] (allocated at " + at(mine_line + 1) +
                     "); a bulk copy moves bytes unchanged, so the tiles must have one type and shape");
}

TEST(BulkCopy, TheGeneratedCodeMapsTheTileAndTheBarrierToThePeer) {
  Kernel<PassesSlicesByBulkCopy<2>> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string ir = ir::print(*k.lowered(256, (float*)nullptr, (float*)nullptr));
  EXPECT_NE(ir.find("tma.shared_to_cluster "), std::string::npos) << ir;
  EXPECT_NE(ir.find(" of cluster block "), std::string::npos) << ir;
  const std::string src = k.cuda_source(256, (float*)nullptr, (float*)nullptr);
  EXPECT_NE(src.find("mapa.shared::cluster.u32 tessel_dst_%=, %0, %4; mapa.shared::cluster.u32 tessel_bar_%=, %3, %4; "
                     "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [tessel_dst_%=], [%1], "
                     "%2, [tessel_bar_%=];"),
            std::string::npos)
      << src;
  expect_compiles_for_sm90a<PassesSlicesByBulkCopy<2>>("PassesSlicesByBulkCopy", 256, (float*)nullptr, (float*)nullptr);
}

TEST(Cluster, GeneratedCodeCompilesForSm90a) {
  expect_compiles_for_sm90a<SumsRowsOfTheCluster>("SumsRowsOfTheCluster", 2, (float*)nullptr, (float*)nullptr,
                                                  (float*)nullptr);
  expect_compiles_for_sm90a<SharesATileByMulticast<2>>("SharesATileByMulticast", 64, 32, (float*)nullptr,
                                                       (float*)nullptr);
  expect_compiles_for_sm90a<ArrivesOnTheNextRank>("ArrivesOnTheNextRank", (float*)nullptr);
  expect_compiles_for_sm90a<PassesTilesAroundTheCluster<4, false>>("PassesTilesAroundTheCluster", 2, (float*)nullptr,
                                                                   (float*)nullptr);
  expect_compiles_for_sm90a<PassesTilesAroundTheCluster<2, true>>("PassesTilesAroundTheCluster", 2, (float*)nullptr,
                                                                  (float*)nullptr);
  expect_compiles_for_sm90a<testing::CountsIntoTheClustersBins<4>>("CountsIntoTheClustersBins", 4096, (int32_t*)nullptr,
                                                                   (int32_t*)nullptr);
  expect_compiles_for_sm90a<AddsIntoThePeersCounter<false, true>>("AddsIntoThePeersCounter", (int32_t*)nullptr);
}

}  // namespace
}  // namespace tessel
