// Where a proxy fence may stand (the PTX model's proxy-preserved base causality order): a generic
// write is visible to an async-proxy read when a fence of the written memory lies on a path from
// the write to the read: the writer's after the write, the reading thread's after it acquired the
// write, or a warp's in between. A fence off that path, or of another memory (another block's
// shared memory, global memory), is reported at the read's line under every order.
#include <random>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kFile = "tests/proxy_fence_paths_test.cpp";
constexpr const char* kRemedy =
    "call it after the writes, in the threads that wrote, before the sync(), arrival or release that hands the "
    "memory over (or in the reading thread, after what orders the writes before it)";

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen{seed};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

enum class FencedBy { writers, issuer_after_the_sync, issuer_before_the_sync };

// Four warps store a tile to shared memory; after a sync() one thread stores it to `out` by TMA.
template <FencedBy By> struct StoresTheWarpsTileByTma : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto tile = shared_tensor<float>({8, 32});
    store_shared(tile, load_global(global_view(in, {8, 32}), {0, 0}, {8, 32}));
    if constexpr (By == FencedBy::writers) fence.proxy_async();
    if constexpr (By == FencedBy::issuer_before_the_sync) single_thread([&] { fence.proxy_async(); });
    sync();
    single_thread([&] {
      if constexpr (By == FencedBy::issuer_after_the_sync) fence.proxy_async();
      tma.shared_to_global(tile, global_view(out, {8, 32}), {0, 0});
      tma.commit_group();
      tma.wait_group(0, true);
    });
    sync();
  }
};

TEST(ProxyFencePaths, TheIssuersFenceAfterTheSyncCoversEveryWarpsWrites) {
  const std::vector<float> x = random_floats(256, 5);
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), x), out(Device::simulator(), std::vector<float>(256, -1.0f));
    simulate<StoresTheWarpsTileByTma<FencedBy::issuer_after_the_sync>>(o, in, out);
    EXPECT_EQ(out.download(), x) << sim::schedule_name(o);
    out.upload(std::vector<float>(256, -1.0f));
    simulate<StoresTheWarpsTileByTma<FencedBy::writers>>(o, in, out);
    EXPECT_EQ(out.download(), x) << sim::schedule_name(o);
  }
}

// The issuer's fence before the sync() follows its own warp's writes only.
TEST(ProxyFencePaths, TheIssuersFenceBeforeTheSyncLeavesTheOtherWarpsWritesUnfenced) {
  const std::string tma = source_at(kFile, "tma.shared_to_global(tile, global_view(out, {8, 32}), {0, 0});");
  const std::string store = source_at(kFile, "store_shared(tile, load_global(global_view(in, {8, 32}), {0, 0}");
  const std::string alloc = source_at(kFile, "auto tile = shared_tensor<float>({8, 32});");
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), random_floats(256, 6)), out(Device::simulator(), std::vector<float>(256));
    EXPECT_EQ(simulation_error<StoresTheWarpsTileByTma<FencedBy::issuer_before_the_sync>>(o, in, out),
              tma + ": shared memory allocated at " + alloc +
                  ", byte 256 of the allocation, in block (0, 0, 0): the tma.shared_to_global at " + tma +
                  " by warp 0 of block (0, 0, 0) reads through the async proxy what the store_shared at " + store +
                  " by warp 1 of block (0, 0, 0) wrote through the generic proxy, and no fence.proxy_async() (or "
                  "ProxySpace::all) lies between them; " +
                  kRemedy)
        << sim::schedule_name(o);
  }
}

// Warp 1 stores a tile and arrives; warp 2 waits for it and arrives on a second barrier, with a
// fence between its wait and its arrival (on the path from the stores to the copy), before its wait
// or after its arrival (off the path); warp 0 waits for warp 2 and stores the tile to `out` by TMA.
enum class MiddleFence { between_wait_and_arrival, before_the_wait, after_the_arrival };

template <MiddleFence At> struct HandsATileThroughAFencingWarp : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 3;
    auto handed = shared_tensor<float>({8, 32});
    auto bars = mbarrier.alloc({32, 32});
    thread_group(32, 32, [&] {
      auto rows = load_global(global_view(in, {8, 32}), {0, 0}, {8, 32});
      store_shared(handed, rows);
      mbarrier.arrive(bars[0]);
    });
    thread_group(64, 32, [&] {
      if constexpr (At == MiddleFence::before_the_wait) fence.proxy_async();
      mbarrier.wait(bars[0], 0u);
      if constexpr (At == MiddleFence::between_wait_and_arrival) fence.proxy_async();
      mbarrier.arrive(bars[1]);
      if constexpr (At == MiddleFence::after_the_arrival) fence.proxy_async();
    });
    thread_group(0, 32, [&] {
      mbarrier.wait(bars[1], 0u);
      single_thread([&] {
        tma.shared_to_global(handed, global_view(out, {8, 32}), {0, 0});
        tma.commit_group();
        tma.wait_group(0, true);
      });
    });
  }
};

TEST(ProxyFencePaths, AFenceByAWarpBetweenTheWriterAndTheReaderCounts) {
  const std::vector<float> x = random_floats(256, 7);
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), x), out(Device::simulator(), std::vector<float>(256, -1.0f));
    simulate<HandsATileThroughAFencingWarp<MiddleFence::between_wait_and_arrival>>(o, in, out);
    EXPECT_EQ(out.download(), x) << sim::schedule_name(o);
  }
}

// A fence before the wait that acquires the writes does not follow them; one after the arrival
// that hands them on does not precede the read.
TEST(ProxyFencePaths, AFenceOffThePathFromTheWritesToTheReadIsReported) {
  const std::string tma = source_at(kFile, "tma.shared_to_global(handed, global_view(out, {8, 32}), {0, 0});");
  const std::string store = source_at(kFile, "store_shared(handed, rows);");
  const std::string alloc = source_at(kFile, "auto handed = shared_tensor<float>({8, 32});");
  const std::string expected = tma + ": shared memory allocated at " + alloc +
                               ", byte 0 of the allocation, in block (0, 0, 0): the "
                               "tma.shared_to_global at " +
                               tma +
                               " by warp 0 of block (0, 0, 0) reads through the async proxy what the "
                               "store_shared at " +
                               store +
                               " by warp 1 of block (0, 0, 0) wrote through the generic proxy, and no "
                               "fence.proxy_async() (or ProxySpace::all) lies between them; " +
                               kRemedy;
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), random_floats(256, 8)), out(Device::simulator(), std::vector<float>(256));
    EXPECT_EQ(simulation_error<HandsATileThroughAFencingWarp<MiddleFence::before_the_wait>>(o, in, out), expected)
        << sim::schedule_name(o);
    EXPECT_EQ(simulation_error<HandsATileThroughAFencingWarp<MiddleFence::after_the_arrival>>(o, in, out), expected)
        << sim::schedule_name(o);
  }
}

// Warp 1 stores a tile and commits (a tcgen05.commit, which arrives on the barrier once the warp's
// mma, none here, are done), with its fence before the commit or after it; warp 0 waits for the
// commit's phase and stores the tile by TMA. A fence after the commit's release is off the path.
template <bool FenceBeforeTheCommit> struct CommitsAStoredTile : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto committed = shared_tensor<float>({8, 32});
    auto commits = mbarrier.alloc({1});
    thread_group(32, 32, [&] {
      store_shared(committed, load_global(global_view(in, {8, 32}), {0, 0}, {8, 32}));
      if constexpr (FenceBeforeTheCommit) fence.proxy_async();
      tcgen05.commit(commits[0]);
      if constexpr (!FenceBeforeTheCommit) fence.proxy_async();
    });
    thread_group(0, 32, [&] {
      mbarrier.wait(commits[0], 0u);
      single_thread([&] {
        tma.shared_to_global(committed, global_view(out, {8, 32}), {0, 0});
        tma.commit_group();
        tma.wait_group(0, true);
      });
    });
  }
};

TEST(ProxyFencePaths, AFenceAfterACommitThatHandsTheTileOverIsReported) {
  const std::string tma = source_at(kFile, "tma.shared_to_global(committed, global_view(out, {8, 32}), {0, 0});");
  const std::string store = source_at(kFile, "store_shared(committed, load_global(global_view(in, {8, 32}),");
  const std::string alloc = source_at(kFile, "auto committed = shared_tensor<float>({8, 32});");
  const std::vector<float> x = random_floats(256, 14);
  for (const sim::Options& o : every_order()) {
    const KernelOptions sm100{.arch = "sm_100a", .sim = o};
    Buffer<float> in(Device::simulator(), x), out(Device::simulator(), std::vector<float>(256, -1.0f));
    Kernel<CommitsAStoredTile<true>>(Device::simulator(), sm100)(in, out);
    EXPECT_EQ(out.download(), x) << sim::schedule_name(o);
    EXPECT_EQ(error_of_call([&] { Kernel<CommitsAStoredTile<false>>(Device::simulator(), sm100)(in, out); }),
              tma + ": shared memory allocated at " + alloc +
                  ", byte 0 of the allocation, in block (0, 0, 0): the tma.shared_to_global at " + tma +
                  " by warp 0 of block (0, 0, 0) reads through the async proxy what the store_shared at " + store +
                  " by warp 1 of block (0, 0, 0) wrote through the generic proxy, and no fence.proxy_async() (or "
                  "ProxySpace::all) lies between them; " +
                  kRemedy)
        << sim::schedule_name(o);
  }
}

enum class MailboxFence { writer_of_its_block, writer_of_the_cluster, receiver_of_its_block };

// Each block of a cluster of two stores its rows of `in` into its peer's mailbox; after a
// cluster.sync() each stores its mailbox to its rows of `out` by TMA, so that the blocks' rows
// trade places. The writer's fence of its own block's shared memory does not cover the peer's.
template <MailboxFence Fence> struct TradesRowsThroughThePeersMailbox : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto mailbox = shared_tensor<float>({8, 32});
    auto rows = load_global(global_view(in, {16, 32}), {blockIdx.x * 8, 0}, {8, 32});
    cluster.sync();
    store_shared(mailbox.remote(1 - cluster.blockRank), rows);
    if constexpr (Fence == MailboxFence::writer_of_its_block) fence.proxy_async();
    if constexpr (Fence == MailboxFence::writer_of_the_cluster) fence.proxy_async(ProxySpace::shared_cluster);
    cluster.sync();
    single_thread([&] {
      if constexpr (Fence == MailboxFence::receiver_of_its_block) fence.proxy_async();
      tma.shared_to_global(mailbox, global_view(out, {16, 32}), {blockIdx.x * 8, 0});
      tma.commit_group();
      tma.wait_group(0, true);
    });
  }
};

TEST(ProxyFencePaths, AWriteIntoThePeersSharedMemoryIsFencedForTheClusterOrByTheReceiver) {
  const std::vector<float> x = random_floats(512, 9);
  std::vector<float> traded(x.begin() + 256, x.end());
  traded.insert(traded.end(), x.begin(), x.begin() + 256);
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), x), out(Device::simulator(), std::vector<float>(512, -1.0f));
    simulate<TradesRowsThroughThePeersMailbox<MailboxFence::writer_of_the_cluster>>(o, in, out);
    EXPECT_EQ(out.download(), traded) << sim::schedule_name(o);
    out.upload(std::vector<float>(512, -1.0f));
    simulate<TradesRowsThroughThePeersMailbox<MailboxFence::receiver_of_its_block>>(o, in, out);
    EXPECT_EQ(out.download(), traded) << sim::schedule_name(o);
  }
}

TEST(ProxyFencePaths, AWriteIntoThePeersSharedMemoryFencedForTheWritersBlockIsReported) {
  const std::string tma =
      source_at(kFile, "tma.shared_to_global(mailbox, global_view(out, {16, 32}), {blockIdx.x * 8, 0});");
  const std::string store = source_at(kFile, "store_shared(mailbox.remote(1 - cluster.blockRank), rows);");
  const std::string alloc = source_at(kFile, "auto mailbox = shared_tensor<float>({8, 32});");
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), random_floats(512, 10)), out(Device::simulator(), std::vector<float>(512));
    const std::string error =
        simulation_error<TradesRowsThroughThePeersMailbox<MailboxFence::writer_of_its_block>>(o, in, out);
    const auto expected = [&](int reader, int writer) {
      return fmt::format(
          "{0}: shared memory allocated at {1}, byte 0 of the allocation, in block ({2}, 0, 0): the "
          "tma.shared_to_global at {0} by warp 0 of block ({2}, 0, 0) reads through the async proxy "
          "what the store_shared at {3} by warp 0 of block ({4}, 0, 0) wrote through the generic "
          "proxy, and no fence.proxy_async(ProxySpace::shared_cluster) (or ProxySpace::all) lies "
          "between them; {5}",
          tma, alloc, reader, store, writer, kRemedy);
    };
    EXPECT_TRUE(error == expected(0, 1) || error == expected(1, 0)) << error;
  }
}

// Block 0 writes `data`, fences it for the async proxy (or not) and releases a flag; block 1
// acquires the flag and loads `data` by TMA into shared memory, then copies it to `copy`. Without
// the writer's fence, the reading thread's fence of global memory after its acquire orders them.
template <bool ReaderFencesAfterTheAcquire> struct LoadsAnotherBlocksWritesByTma : Script {
  void operator()(Ptr<float> x, Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto flag_view = global_view(flag, {1});
    if_(blockIdx.x == 0, [&] {
      store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) * 2.0f, {0, 0});
      sync();
      single_thread([&] { atomic.store(flag_view, {0}, 1, MemoryOrder::release); });
    }).else_([&] {
      auto s = shared_tensor<float>({8, 32});
      auto bars = mbarrier.alloc({1});
      single_thread([&] {
        if constexpr (!ReaderFencesAfterTheAcquire) fence.proxy_async(ProxySpace::global);
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, MemoryOrder::acquire); });
        if constexpr (ReaderFencesAfterTheAcquire) fence.proxy_async(ProxySpace::global);
        mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * int(sizeof(float)));
        tma.global_to_shared(global_view(data, {8, 32}), s, {0, 0}, bars[0]);
      });
      mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
      store_global(global_view(copy, {8, 32}), load_shared(s), {0, 0});
    });
  }
};

TEST(ProxyFencePaths, TheReadersFenceOfGlobalMemoryAfterItsAcquireCoversAnotherBlocksWrites) {
  const std::vector<float> x = random_floats(256, 11);
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), data(Device::simulator(), std::vector<float>(256, -1.0f)),
        copy(Device::simulator(), std::vector<float>(256, -1.0f));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    simulate<LoadsAnotherBlocksWritesByTma<true>>(o, dx, data, flag, copy);
    const auto got = copy.download();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] * 2.0f) << i << " " << sim::schedule_name(o);
  }
}

TEST(ProxyFencePaths, TheReadersFenceBeforeItsAcquireIsReported) {
  const std::string load = source_at(kFile, "tma.global_to_shared(global_view(data, {8, 32}), s, {0, 0}, bars[0]);");
  const std::string store = source_at(kFile, "store_global(global_view(data, {8, 32}), load_global(");
  const std::string barrier = source_at(kFile, "auto bars = mbarrier.alloc({1});");
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), random_floats(256, 12)), data(Device::simulator(), std::vector<float>(256)),
        copy(Device::simulator(), std::vector<float>(256));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    EXPECT_EQ(simulation_error<LoadsAnotherBlocksWritesByTma<false>>(o, dx, data, flag, copy),
              load + ": global memory, byte 0 of a 1024-byte allocation: the tma.global_to_shared at " + load +
                  ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                  " in block (1, 0, 0) reads through the async proxy what the store_global at " + store +
                  " by warp 0 of block (0, 0, 0) wrote through the generic proxy, and no "
                  "fence.proxy_async(ProxySpace::global) (or ProxySpace::all) lies between them; " +
                  kRemedy)
        << sim::schedule_name(o);
  }
}

}  // namespace
}  // namespace tessel::testing
