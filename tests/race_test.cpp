// Race detection in the simulator: two accesses of one byte, one a write, that nothing orders are
// reported at the later one's line, naming both accesses, their warps and the memory; the same
// kernels with the missing sync(), wait or barrier pass under every order.
#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

int store_line = 0, load_line = 0, alloc_line = 0, tma_line = 0, bar_line = 0;

// The ordered version of each kernel below copies `in` to its output under every order.
template <class S> void expect_copies_under_every_order(const Buffer<float>& in) {
  for (const sim::Options& o : every_order()) {
    Buffer<float> result(Device::simulator(), std::vector<float>(in.size(), -1.0f));
    simulate<S>(o, in, result);
    EXPECT_EQ(result.download(), in.download());
  }
}

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Warp 0 stores a tile to shared memory, warp 1 loads it and writes it out; `Sync` puts the
// sync() between them that orders the two.
template <bool Sync> struct HandsATileBetweenWarps : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({32});
    thread_group(0, 32, [&] {
      store_line = __LINE__ + 1;
      store_shared(tile, load_global(global_view(in, {32}), {0}, {32}));
    });
    // Without `Sync`, a sync() the one block never reaches: check_shared_handoffs cannot rule the
    // race out before running, and the simulator reports it.
    if (Sync)
      sync();
    else
      if_(blockIdx.x != 0, [&] { sync(); });
    thread_group(32, 32, [&] {
      load_line = __LINE__ + 1;
      store_global(global_view(out, {32}), load_shared(tile), {0});
    });
  }
};

TEST(Races, ATileStoredByOneWarpAndLoadedByAnotherWithoutSyncIsReported) {
  Buffer<float> in(Device::simulator(), random_floats(32)), out(Device::simulator(), std::vector<float>(32));
  // Warp 0 runs first in the default order: warp 1's load is the later access.
  const std::string got = simulation_error<HandsATileBetweenWarps<false>>(sim::Options{}, in, out);
  EXPECT_EQ(
      got, fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the "
                       "allocation, in block (0, 0, 0): the load_shared at {0}:{1} by warp 1 of block (0, 0, 0) is "
                       "not ordered after the store_shared at {0}:{3} by warp 0 of block (0, 0, 0); order them with a "
                       "sync(), an mbarrier arrival and a wait on its phase, or the wait that retires the asynchronous "
                       "operation",
                       __FILE__, load_line, alloc_line, store_line));
  expect_copies_under_every_order<HandsATileBetweenWarps<true>>(in);
}

// Every block adds its row of `x` to row 0 of `y` in place, y[0] += x[b], and reads y[0] that the
// other blocks write: blocks are not ordered.
struct AccumulatesAcrossBlocks : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto gx = global_view(x, {64}), gy = global_view(y, {32});
    auto t = load_global(gx, {blockIdx.x * 32}, {32});
    load_line = __LINE__ + 1;
    auto acc = load_global(gy, {0}, {32});
    store_line = __LINE__ + 1;
    store_global(gy, acc + t, {0});
  }
};

// What a race between two blocks asks for.
constexpr const char* kBlocksShareNoSync =
    "the two blocks share no sync(): combine into one place with atomics (atomic.add), or hand the data over with "
    "an atomic release that the other block acquires (MemoryOrder::release and MemoryOrder::acquire, or "
    "fence.acq_rel() around relaxed atomics)";

TEST(Races, BlocksThatReadWhatOtherBlocksWriteInPlaceAreReported) {
  Buffer<float> x(Device::simulator(), random_floats(64)), y(Device::simulator(), std::vector<float>(32, 1.0f));
  const std::string got = simulation_error<AccumulatesAcrossBlocks>(sim::Options{}, x, y);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: data race on global memory, byte 0 of a 128-byte allocation: the load_global at "
                        "{0}:{1} by warp 0 of block (1, 0, 0) is not ordered after the store_global at {0}:{2} by warp "
                        "0 of block (0, 0, 0); {3}",
                        __FILE__, load_line, store_line, kBlocksShareNoSync));
}

// Both blocks store the same 32 values to y, with nothing ordering the two stores: a race whatever
// the values, so that a test finds it whether or not its data make the writes agree.
struct StoresTheSameValuesFromTwoBlocks : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_line = __LINE__ + 1;
    store_global(global_view(y, {32}), t, {0});
  }
};

TEST(Races, TwoBlocksWritingTheSameValuesAreReported) {
  Buffer<float> x(Device::simulator(), random_floats(32)), y(Device::simulator(), std::vector<float>(32, 1.0f));
  const std::string got = simulation_error<StoresTheSameValuesFromTwoBlocks>(sim::Options{}, x, y);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: data race on global memory, byte 0 of a 128-byte allocation: the store_global at "
                        "{0}:{1} by warp 0 of block (1, 0, 0) is not ordered after the store_global at {0}:{1} by warp "
                        "0 of block (0, 0, 0); {2}",
                        __FILE__, store_line, kBlocksShareNoSync));
}

// 8 warps add 1 to i32 in place. 64 of them are fewer than the threads: the default layout gives
// each of 16 threads 16 bytes and copies the tile in every warp, each of which loads and stores its
// copy. 256 of them (`OwnCopy`) take one a thread, and have none.
template <bool OwnCopy> struct IncrementsInPlace : Script {
  void operator()(Ptr<int32_t> y) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto g = global_view(y, {256});
    store_line = __LINE__ + 1;
    store_global(g, load_global(g, {0}, {OwnCopy ? 256 : 64}) + 1, {0});
  }
};

TEST(Races, AnInPlaceUpdateOfATileCopiedInSeveralWarpsNamesTheCopies) {
  std::vector<int32_t> values(256);
  for (size_t i = 0; i < values.size(); ++i) values[i] = int32_t(i * 7 % 31) - 15;
  Buffer<int32_t> y(Device::simulator(), values);
  const std::string got = simulation_error<IncrementsInPlace<false>>(sim::Options{}, y);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: data race on global memory, byte 0 of a 1024-byte allocation: the load_global "
                        "at {0}:{1} by warp 2 of block (0, 0, 0) is not ordered after the store_global at {0}:{1} "
                        "by warp 0 of block (0, 0, 0); the store_global at {0}:{1} moves a tile whose layout keeps "
                        "a copy of each element in 8 warps, and each warp loads or stores its own copy: give the "
                        "tile a layout without copies across warps (Layout::spatial over its shape where the tile "
                        "has an element for each thread, or a thread group of no more threads than the tile has "
                        "elements; docs/layouts.md), or order the accesses with a sync()",
                        __FILE__, store_line));
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> own(Device::simulator(), values);
    simulate<IncrementsInPlace<true>>(o, own);
    std::vector<int32_t> want = values;
    for (int32_t& v : want) ++v;
    EXPECT_EQ(own.download(), want);
  }
}

// 8 warps count 1024 positions into 32 bins of shared memory with atomics, then load the bins, in a
// layout that copies them in several warps, and write them out. Without `Sync` the load is not
// ordered with other warps' atomics: the copies have no part in that race, and the report says
// only what orders the two.
template <bool Sync> struct CountsIntoSharedBins : Script {
  void operator()(Ptr<int32_t> positions, Ptr<int32_t> bins) {
    attrs.blocks = 1;
    attrs.warps = 8;
    alloc_line = __LINE__ + 1;
    auto counts = shared_tensor<int32_t>({32});
    store_shared(counts, register_tensor<int32_t>({32}, 0));
    sync();
    auto p = load_global(global_view(positions, {1024}), {0}, {1024});
    store_line = __LINE__ + 1;
    atomic.scatter_add(counts, p, register_tensor<int32_t>({1024}, 1));
    if (Sync)
      sync();
    else
      if_(blockIdx.x != 0, [&] { sync(); });
    load_line = __LINE__ + 1;
    store_global(global_view(bins, {32}), load_shared(counts), {0});
  }
};

TEST(Races, SharedAtomicsReadWithoutSyncAreReportedWithTheSyncAlone) {
  std::vector<int32_t> positions(1024), want(32, 0);
  std::mt19937 rng(5);
  for (int32_t& p : positions) ++want[size_t(p = int32_t(rng() % 32))];
  Buffer<int32_t> in(Device::simulator(), positions), bins(Device::simulator(), std::vector<int32_t>(32, -1));
  // Warp 0 runs first in the default order: warp 3's atomic is the later access.
  const std::string got = simulation_error<CountsIntoSharedBins<false>>(sim::Options{}, in, bins);
  EXPECT_EQ(got, fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 100 of the "
                             "allocation, in block (0, 0, 0): the atomic add at {0}:{1} by warp 3 of block (0, 0, 0) "
                             "is not ordered after the load_shared at {0}:{3} by warp 0 of block (0, 0, 0); order "
                             "them with a sync(), an mbarrier arrival and a wait on its phase, or the wait that "
                             "retires the asynchronous operation",
                             __FILE__, store_line, alloc_line, load_line));
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(32, -1));
    simulate<CountsIntoSharedBins<true>>(o, in, out);
    EXPECT_EQ(out.download(), want);
  }
}

// One thread loads a tile with TMA onto a barrier; warp 1 waits on the phase (`Wait`) or not, and
// reads the tile.
template <bool Wait> struct ReadsATmaTile : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({8, 32});
    bar_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    thread_group(0, 32, [&] {
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
        tma_line = __LINE__ + 1;
        tma.global_to_shared(global_view(in, {8, 32}), tile, {0, 0}, bars[0]);
      });
      mbarrier.wait(bars[0], 0u);
    });
    thread_group(32, 32, [&] {
      if (Wait) mbarrier.wait(bars[0], 0u);
      load_line = __LINE__ + 1;
      store_global(global_view(out, {8, 32}), load_shared(tile), {0, 0});
    });
  }
};

TEST(Races, ATileReadBeforeTheBarrierThatGuardsItIsReported) {
  Buffer<float> in(Device::simulator(), random_floats(256)), out(Device::simulator(), std::vector<float>(256));
  // Eagerly the load lands at once, and warp 1 reads what it did not wait for.
  const sim::Options eager{.completion = sim::CompletionOrder::Eager};
  const std::string got = simulation_error<ReadsATmaTile<false>>(eager, in, out);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the "
                        "allocation, in block (0, 0, 0): the load_shared at {0}:{1} by warp 1 of block (0, 0, 0) is "
                        "not ordered after the tma.global_to_shared at {0}:{3}, landed in phase 0 of barrier 0 of the "
                        "array allocated at {0}:{4} in block (0, 0, 0); order them with a sync(), an mbarrier arrival "
                        "and a wait on its phase, or the wait that retires the asynchronous operation",
                        __FILE__, load_line, alloc_line, tma_line, bar_line));
  expect_copies_under_every_order<ReadsATmaTile<true>>(in);
}

// A producer warp refills a shared tile with TMA after the consumer warp announced, on an empty
// barrier, that it was done with it; `ReadFirst` reads before announcing, as it must.
template <bool ReadFirst> struct RefillsAStage : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({8, 32});
    bar_line = __LINE__ + 1;
    auto full = mbarrier.alloc({1, 1});
    auto empty = mbarrier.alloc({1});
    auto g_in = global_view(in, {16, 32}), g_out = global_view(out, {16, 32});
    thread_group(0, 32, [&] {
      for (int round = 0; round < 2; ++round) {
        if (round == 1) mbarrier.wait(empty[0], 0u);
        single_thread([&] {
          mbarrier.arrive_and_expect_tx(full[round], 8 * 32 * 4);
          tma_line = __LINE__ + 1;
          tma.global_to_shared(g_in, tile, {round * 8, 0}, full[round]);
        });
      }
    });
    thread_group(32, 32, [&] {
      for (int round = 0; round < 2; ++round) {
        mbarrier.wait(full[round], 0u);
        if (!ReadFirst && round == 0) single_thread([&] { mbarrier.arrive(empty[0]); });
        load_line = __LINE__ + 1;
        auto t = load_shared(tile);
        if (ReadFirst && round == 0) single_thread([&] { mbarrier.arrive(empty[0]); });
        store_global(g_out, t, {round * 8, 0});
      }
    });
  }
};

TEST(Races, AStageRefilledWhileItsConsumerMayStillReadItIsReported) {
  Buffer<float> in(Device::simulator(), random_floats(512)), out(Device::simulator(), std::vector<float>(512));
  const sim::Options lazy{.completion = sim::CompletionOrder::Lazy};
  const std::string got = simulation_error<RefillsAStage<false>>(lazy, in, out);
  EXPECT_EQ(got, fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the "
                             "allocation, in block (0, 0, 0): the tma.global_to_shared at {0}:{1}, landed in phase 0 "
                             "of barrier 1 of the array allocated at {0}:{3} in block (0, 0, 0) is not ordered after "
                             "the load_shared at {0}:{4} by warp 1 of block (0, 0, 0); order them with a sync(), an "
                             "mbarrier arrival and a wait on its phase, or the wait that retires the asynchronous "
                             "operation",
                             __FILE__, tma_line, alloc_line, bar_line, load_line));
  expect_copies_under_every_order<RefillsAStage<true>>(in);
}

// Every warp stores a tile to shared memory and TMA stores it to global memory: the generic
// proxy wrote what the async proxy reads, so `Fence` puts the fence.proxy_async between them.
template <bool Fence> struct StoresATileWithTma : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({8, 32});
    store_line = __LINE__ + 1;
    store_shared(tile, load_global(global_view(in, {8, 32}), {0, 0}, {8, 32}));
    if (Fence) fence.proxy_async();
    sync();
    single_thread([&] {
      tma_line = __LINE__ + 1;
      tma.shared_to_global(tile, global_view(out, {8, 32}), {0, 0});
      tma.commit_group();
      tma.wait_group(0, true);
    });
    sync();
  }
};

TEST(Races, AGenericWriteReadByTheAsyncProxyWithoutAFenceIsReported) {
  Buffer<float> in(Device::simulator(), random_floats(256)), out(Device::simulator(), std::vector<float>(256));
  const std::string got = simulation_error<StoresATileWithTma<false>>(sim::Options{}, in, out);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: shared memory allocated at {0}:{2}, byte 0 of the allocation, in block (0, "
                        "0, 0): the tma.shared_to_global at {0}:{1} by warp 0 of block (0, 0, 0) reads through the "
                        "async proxy what the store_shared at {0}:{3} by warp 0 of block (0, 0, 0) wrote through "
                        "the generic proxy, and no fence.proxy_async() (or ProxySpace::all) lies between them; "
                        "call it after the writes, in the threads that wrote, before the sync(), arrival or "
                        "release that hands the memory over (or in the reading thread, after what orders the "
                        "writes before it)",
                        __FILE__, tma_line, alloc_line, store_line));
  expect_copies_under_every_order<StoresATileWithTma<true>>(in);
}

int first_box_line = 0, second_box_line = 0, stages_line = 0, phase_line = 0;

// One thread loads two boxes of `in` by TMA on one mbarrier phase, the second into stage
// `SecondStage` of a two-stage tile: into stage 0, both land on the same bytes in either order.
template <int SecondStage> struct LoadsTwoBoxesOnOnePhase : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    stages_line = __LINE__ + 1;
    auto stages = shared_tensor<float>({2, 8, 32}, Swizzle::none);
    phase_line = __LINE__ + 1;
    auto bar = mbarrier.alloc({1});
    auto g_in = global_view(in, {16, 32});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bar[0], 2 * 8 * 32 * 4);
      first_box_line = __LINE__ + 1;
      tma.global_to_shared(g_in, stages[0], {0, 0}, bar[0]);
      second_box_line = __LINE__ + 1;
      tma.global_to_shared(g_in, stages[SecondStage], {8, 0}, bar[0]);
    });
    mbarrier.wait(bar[0], 0u);
    store_global(global_view(out, {16, 32}), load_shared(stages.reshape({16, 32})), {0, 0});
  }
};

TEST(Races, TwoLoadsOfOnePhaseIntoTheSameBytesAreReportedUnderEveryOrder) {
  Buffer<float> in(Device::simulator(), random_floats(512)), out(Device::simulator(), std::vector<float>(512));
  // The kernel's lines are known once it has been traced.
  const auto landed = [] {
    return fmt::format(
        "{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the allocation, in block (0, 0, 0): the "
        "tma.global_to_shared at {0}:{1}, landed in phase 0 of barrier 0 of the array allocated at {0}:{3} in block "
        "(0, "
        "0, 0) is not ordered after the tma.global_to_shared at {0}:{4}, landed in phase 0 of barrier 0 of the array "
        "allocated at {0}:{3} in block (0, 0, 0); the asynchronous writes that complete one mbarrier phase (or belong "
        "to one cp.async group) land in any order, so no byte may be written by two of them: give each copy its own "
        "bytes",
        __FILE__, second_box_line, stages_line, phase_line, first_box_line);
  };
  // Where the first load is still in flight when the second is issued, the issue is reported.
  const auto in_flight = [] {
    return fmt::format(
        "{0}:{1}: write of shared memory that a tma.global_to_shared issued at {0}:{2} may still be writing (thread 0 "
        "of block (0, 0, 0)); two asynchronous writes in flight may not share bytes: issue this one after a wait that "
        "sees that one complete, or give each its own bytes",
        __FILE__, second_box_line, first_box_line);
  };
  for (const sim::Options& o : every_order()) {
    const std::string got = simulation_error<LoadsTwoBoxesOnOnePhase<0>>(o, in, out);
    if (o.completion_order() == sim::CompletionOrder::Eager)
      EXPECT_EQ(got, landed());
    else
      EXPECT_TRUE(got == landed() || got == in_flight()) << sim::schedule_name(o) << ": " << got;
  }
  expect_copies_under_every_order<LoadsTwoBoxesOnOnePhase<1>>(in);
}

// The producer refills one stage from the same rows on the same barrier for a second round
// without waiting for the consumer to release it: the second load brings the same bytes, and may
// land while the consumer still reads the first.
int refill_line = 0, refill_tile_line = 0, refill_barrier_line = 0;

struct RefillsAStageWithTheSameBytesTooEarly : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    refill_tile_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({8, 32});
    refill_barrier_line = __LINE__ + 1;
    auto full = mbarrier.alloc({1});
    auto g_in = global_view(in, {8, 32});
    // Kernel loops: each round's load is the same instruction, so its bytes are no replica's.
    thread_group(0, 32, [&] {
      for (Int32 round : range(0, 2)) {
        (void)round;
        single_thread([&] {
          mbarrier.arrive_and_expect_tx(full[0], 8 * 32 * 4);
          refill_line = __LINE__ + 1;
          tma.global_to_shared(g_in, tile, {0, 0}, full[0]);
        });
      }
    });
    thread_group(32, 32, [&] {
      UInt32 phase = mbarrier.consumer_initial_phase;
      for (Int32 round : range(0, 2)) {
        mbarrier.wait(full[0], phase);
        phase ^= 1u;
        store_global(global_view(out, {16, 32}), load_shared(tile), {round * 8, 0});
      }
    });
  }
};

TEST(Races, AStageRefilledWithTheSameBytesBeforeItsReleaseIsReported) {
  Buffer<float> in(Device::simulator(), random_floats(256)), out(Device::simulator(), std::vector<float>(512));
  for (const sim::Options& o : every_order()) {
    const std::string got = simulation_error<RefillsAStageWithTheSameBytesTooEarly>(o, in, out);
    const std::string load = fmt::format("{}:{}", __FILE__, refill_line);
    const std::string alloc = fmt::format("{}:{}", __FILE__, refill_tile_line);
    const std::string barrier = fmt::format("{}:{}", __FILE__, refill_barrier_line);
    // Eager completion lands the first load before the second is issued: the second's landing
    // races with it (identical bytes from the same line are no replica across phases). Other orders
    // report the second arrival or a read of bytes in flight.
    if (o.completion_order() == sim::CompletionOrder::Eager)
      EXPECT_EQ(got, load + ": data race on shared memory allocated at " + alloc +
                         ", byte 0 of the allocation, in block (0, 0, 0): the tma.global_to_shared at " + load +
                         ", landed in phase 1 of barrier 0 of the array allocated at " + barrier +
                         " in block (0, 0, 0) is not ordered after the tma.global_to_shared at " + load +
                         ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                         " in block (0, 0, 0); order them with a sync(), an mbarrier arrival and a wait on its phase, "
                         "or the wait that retires the asynchronous operation");
    else
      EXPECT_NE(got, "no error") << sim::schedule_name(o);
  }
}

int relaxed_wait_line = 0, refill_after_wait_line = 0, stage_line = 0, stage_barriers_line = 0;

// The producer refills a stage after a relaxed wait for the consumer's release: the wait orders no
// memory, so the refill may land while the consumer still reads the stage.
struct RefillsAfterARelaxedWait : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    stage_line = __LINE__ + 1;
    auto stage = shared_tensor<float>({8, 32});
    stage_barriers_line = __LINE__ + 1;
    auto loaded = mbarrier.alloc({1, 1});
    auto released = mbarrier.alloc({1});
    auto g_in = global_view(in, {16, 32});
    thread_group(0, 32, [&] {
      for (int round = 0; round < 2; ++round) {
        relaxed_wait_line = __LINE__ + 1;
        if (round == 1) mbarrier.wait(released[0], 0u, WaitSemantics::relaxed);
        single_thread([&] {
          mbarrier.arrive_and_expect_tx(loaded[round], 8 * 32 * 4);
          refill_after_wait_line = __LINE__ + 1;
          tma.global_to_shared(g_in, stage, {round * 8, 0}, loaded[round]);
        });
      }
    });
    thread_group(32, 32, [&] {
      for (int round = 0; round < 2; ++round) {
        mbarrier.wait(loaded[round], 0u);
        auto rows = load_shared(stage);
        if (round == 0) single_thread([&] { mbarrier.arrive(released[0]); });
        store_global(global_view(out, {16, 32}), rows, {round * 8, 0});
      }
    });
  }
};

// The refill's landing is ordered neither after the first load's landing nor after the consumer's
// read: the report of a landing names the weak wait of the warp that issued it.
TEST(Races, ARefillAfterARelaxedWaitNamesTheWait) {
  Buffer<float> in(Device::simulator(), random_floats(512)), out(Device::simulator(), std::vector<float>(512));
  for (const sim::Options& o : every_order()) {
    const std::string got = simulation_error<RefillsAfterARelaxedWait>(o, in, out);
    EXPECT_EQ(got,
              fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the allocation, in "
                          "block (0, 0, 0): the tma.global_to_shared at {0}:{1}, landed in phase 0 of barrier 1 of "
                          "the array allocated at {0}:{3} in block (0, 0, 0) is not ordered after the "
                          "tma.global_to_shared at {0}:{1}, landed in phase 0 of barrier 0 of the array allocated "
                          "at {0}:{3} in block (0, 0, 0); the mbarrier wait at {0}:{4} saw the phase that "
                          "publishes it, but a relaxed wait orders no memory: wait with WaitSemantics::acquire",
                          __FILE__, refill_after_wait_line, stage_line, stage_barriers_line, relaxed_wait_line))
        << sim::schedule_name(o);
  }
}

int first_copy_line = 0, second_copy_line = 0, halves_line = 0;

// A warp copies two halves of `in` by cp.async in one group, the second into half `SecondHalf`.
template <int SecondHalf> struct CopiesTwoHalvesInOneGroup : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    halves_line = __LINE__ + 1;
    auto halves = shared_tensor<float>({2, 1, 32});
    auto g_in = global_view(in, {2, 32});
    first_copy_line = __LINE__ + 1;
    copy_async(g_in, halves[0], {0, 0});
    second_copy_line = __LINE__ + 1;
    copy_async(g_in, halves[SecondHalf], {1, 0});
    copy_async_commit_group();
    copy_async_wait_all();
    sync();
    store_global(global_view(out, {2, 1, 32}), load_shared(halves), {0, 0, 0});
  }
};

TEST(Races, TwoCopiesOfOneGroupIntoTheSameBytesAreReportedUnderEveryOrder) {
  Buffer<float> in(Device::simulator(), random_floats(64)), out(Device::simulator(), std::vector<float>(64));
  const auto landed = [] {
    return fmt::format(
        "{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the allocation, in block (0, 0, 0): the "
        "copy_async at {0}:{1}, in group 0 of the cp.async groups of warp 0 of block (0, 0, 0) is not ordered after "
        "the copy_async at {0}:{3}, in group 0 of the cp.async groups of warp 0 of block (0, 0, 0); the asynchronous "
        "writes that complete one mbarrier phase (or belong to one cp.async group) land in any order, so no byte may "
        "be written by two of them: give each copy its own bytes",
        __FILE__, second_copy_line, halves_line, first_copy_line);
  };
  for (const sim::Options& o : every_order()) {
    const std::string got = simulation_error<CopiesTwoHalvesInOneGroup<0>>(o, in, out);
    const std::string in_flight =
        fmt::format("{0}:{1}: write of shared memory that a copy_async issued at {0}:{2} may still be writing (thread ",
                    __FILE__, second_copy_line, first_copy_line);
    // Where the first copy is still in flight at the second's issue, the issue is reported, by
    // whichever thread of the warp the order lets go first.
    if (o.completion_order() == sim::CompletionOrder::Eager)
      EXPECT_EQ(got, landed());
    else
      EXPECT_TRUE(got == landed() || got.starts_with(in_flight)) << sim::schedule_name(o) << ": " << got;
  }
  expect_copies_under_every_order<CopiesTwoHalvesInOneGroup<1>>(in);
}

}  // namespace
}  // namespace tessel::testing
