// cluster.arrive() and cluster.wait(): the cluster barrier in two halves. A release arrival orders
// the warp's accesses before the others' wait, a relaxed one orders nothing (the race report names
// it), each thread arrives once a phase, and a warp that arrived and finished no longer counts.
#include <random>

#include "cluster_barrier_halves_kernels.hpp"
#include "expect_error.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kFile = "tests/cluster_barrier_halves_test.cpp";
constexpr const char* kKernels = "tests/cluster_barrier_halves_kernels.hpp";

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen{seed};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

TEST(ClusterBarrierHalves, AReleaseArrivalOrdersTheTileBeforeThePeersRead) {
  for (const sim::Options& o : every_order()) {
    check_traded_rows(Device::simulator(), 1, o);
    check_traded_rows(Device::simulator(), 2, two_blocks_together(o));
  }
}

TEST(ClusterBarrierHalves, ARelaxedArrivalOrdersNothingAndTheReportNamesIt) {
  const std::string read = source_at(kKernels, "store_global(g_out, load_shared(mine.remote(1 - cluster.blockRank))");
  const std::string store = source_at(kKernels, "store_shared(mine, load_global(g_in, {blockIdx.x * 8, 0}, {8, 32}));");
  const std::string wait = source_at(kKernels, "cluster.wait();");
  const std::string arrive = source_at(kKernels, "cluster.arrive(Order);");
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), random_floats(512, 4)), out(Device::simulator(), std::vector<float>(1024));
    const std::string got = simulation_error<TradesRowsAfterAnArrival<MemoryOrder::relaxed>>(o, 1, in, out);
    EXPECT_TRUE(got.starts_with(read + ": data race on shared memory allocated at ")) << got;
    EXPECT_NE(got.find(" is not ordered after the store_shared at " + store + " by warp "), std::string::npos) << got;
    EXPECT_TRUE(got.ends_with("; the cluster.wait at " + wait + " passed the phase of a relaxed cluster.arrive (at " +
                              arrive +
                              ") that came after it, but a relaxed arrival releases nothing: arrive with "
                              "MemoryOrder::release (the default)"))
        << got;
  }
}

// Warp 0 of each block arrives and finishes; warp 1 stores the block's tile, arrives and waits,
// then reads its peer's tile: the phase waits for warp 1 of both blocks, whatever warp 0 did.
struct ArrivesAndFinishes : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    auto mine = shared_tensor<float>({8, 32});
    thread_group(0, 32, [&] { cluster.arrive(); });
    thread_group(32, 32, [&] {
      store_shared(mine, load_global(global_view(in, {16, 32}), {blockIdx.x * 8, 0}, {8, 32}));
      cluster.arrive();
      cluster.wait();
      store_global(global_view(out, {16, 32}), load_shared(mine.remote(1 - cluster.blockRank)), {blockIdx.x * 8, 0});
      cluster.arrive();
      cluster.wait();
    });
  }
};

TEST(ClusterBarrierHalves, AWarpThatArrivedAndFinishedCountsNoMore) {
  const std::vector<float> x = random_floats(512, 5);
  std::vector<float> traded(x.begin() + 256, x.end());
  traded.insert(traded.end(), x.begin(), x.begin() + 256);
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), x), out(Device::simulator(), std::vector<float>(512, -1.0f));
    simulate<ArrivesAndFinishes>(o, in, out);
    EXPECT_EQ(out.download(), traded) << sim::schedule_name(o);
  }
}

enum class Misuse { arrives_twice, waits_without_arriving, syncs_after_arriving, allocates_after_arriving };

template <Misuse M> struct MisusesTheClusterBarrier : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    if constexpr (M != Misuse::waits_without_arriving) cluster.arrive();       // first arrival
    if constexpr (M == Misuse::arrives_twice) cluster.arrive();                // second arrival
    if constexpr (M == Misuse::syncs_after_arriving) cluster.sync();           // sync after arriving
    if constexpr (M == Misuse::allocates_after_arriving) mbarrier.alloc({1});  // alloc after arriving
    cluster.wait();                                                            // the wait
    store_global(global_view(out, {2}), register_tensor<float>({1}, 1.0f), {blockIdx.x});
  }
};

TEST(ClusterBarrierHalves, ASecondArrivalBeforeTheWaitIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string first = source_at(kFile, "// first arrival");
  const std::string second = source_at(kFile, "// second arrival");
  const std::string got = simulation_error<MisusesTheClusterBarrier<Misuse::arrives_twice>>(sim::Options{}, out);
  EXPECT_EQ(got, second + ": cluster.arrive() by warp 0 of block (0, 0, 0), which arrived at the cluster barrier at " +
                     first +
                     " and has not waited since: a thread arrives once a phase, so call cluster.wait() in "
                     "between");
}

TEST(ClusterBarrierHalves, ASyncAfterAnArrivalIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string first = source_at(kFile, "// first arrival");
  const std::string sync = source_at(kFile, "// sync after arriving");
  const std::string got = simulation_error<MisusesTheClusterBarrier<Misuse::syncs_after_arriving>>(sim::Options{}, out);
  EXPECT_EQ(got, sync + ": cluster.sync() by warp 0 of block (0, 0, 0), which arrived at the cluster barrier at " +
                     first +
                     " and has not waited since: a thread arrives once a phase, so call cluster.wait() in "
                     "between");
}

// In a kernel with clusters mbarrier.alloc ends with a cluster.sync(), which the message names.
TEST(ClusterBarrierHalves, AnAllocationAfterAnArrivalIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string first = source_at(kFile, "// first arrival");
  const std::string alloc = source_at(kFile, "// alloc after arriving");
  const std::string got =
      simulation_error<MisusesTheClusterBarrier<Misuse::allocates_after_arriving>>(sim::Options{}, out);
  EXPECT_EQ(got, alloc +
                     ": mbarrier.alloc (whose cluster.sync() publishes the barriers to the cluster) by warp 0 of "
                     "block (0, 0, 0), which arrived at the cluster barrier at " +
                     first +
                     " and has not waited since: a thread arrives once a phase, so call cluster.wait() in "
                     "between");
}

TEST(ClusterBarrierHalves, AWaitWithoutAnArrivalIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string wait = source_at(kFile, "// the wait");
  const std::string got =
      simulation_error<MisusesTheClusterBarrier<Misuse::waits_without_arriving>>(sim::Options{}, out);
  EXPECT_EQ(got, wait +
                     ": cluster.wait() by warp 0 of block (0, 0, 0), which has not arrived at the cluster barrier "
                     "since its last wait: call cluster.arrive() before it");
}

TEST(ClusterBarrierHalves, AnArrivalIsReleaseOrRelaxed) {
  struct ArrivesWithAcquire : Script {
    void operator()(Ptr<float> out) {
      attrs.blocks = 2;
      attrs.cluster = {2};
      cluster.arrive(MemoryOrder::acquire);
      cluster.wait();
      store_global(global_view(out, {2}), register_tensor<float>({1}, 1.0f), {blockIdx.x});
    }
  };
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string got = simulation_error<ArrivesWithAcquire>(sim::Options{}, out);
  EXPECT_TRUE(
      got.ends_with(": cluster.arrive: an arrival is release (the default) or relaxed, not acquire; the wait "
                    "that follows it acquires"))
      << got;
}

// Warp 0 arrives and waits for warp 1's arrival, which comes after warp 1's wait for an mbarrier
// that warp 0 arrives on only after its cluster wait: neither goes on.
struct WaitsInACycle : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 2;
    auto bars = mbarrier.alloc({32});
    thread_group(0, 32, [&] {
      cluster.arrive();  // warp 0 arrives
      cluster.wait();    // warp 0 waits
      mbarrier.arrive(bars[0]);
    });
    thread_group(32, 32, [&] {
      mbarrier.wait(bars[0], 0u);
      cluster.arrive();
      cluster.wait();
      store_global(global_view(out, {2}), register_tensor<float>({1}, 1.0f), {blockIdx.x});
    });
  }
};

TEST(ClusterBarrierHalves, AWaitThatNoArrivalCanCompleteIsADeadlock) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2));
  const std::string arrive = source_at(kFile, "// warp 0 arrives");
  const std::string wait = source_at(kFile, "// warp 0 waits");
  const std::string got = simulation_error<WaitsInACycle>(sim::Options{}, out);
  EXPECT_NE(got.find("deadlock"), std::string::npos) << got;
  EXPECT_NE(got.find("warp 0 (threads 0..31): waiting at cluster.wait() at " + wait +
                     " (32 of its 32 threads arrived at " + arrive + ")"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("cluster barrier of cluster.sync(): 64 of 128 threads arrived; every thread of every block of "
                     "the cluster must reach cluster.sync() (or cluster.arrive())"),
            std::string::npos)
      << got;
}

}  // namespace
}  // namespace tessel::testing
