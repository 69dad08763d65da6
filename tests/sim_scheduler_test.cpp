// The simulator's scheduler: completion orders of asynchronous work, deadlock reports built from
// the waits, and blocks scheduled together.
#include <gtest/gtest.h>

#include <set>

#include "async_copy_kernels.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

using sim::CompletionOrder;

int line = 0, other_line = 0;

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

// The report of thread 0 reading at line `read` shared memory that the copy issued at line
// `issued` may still be writing.
std::string read_in_flight(int read, int issued) {
  return fmt::format(
      "{}: read of shared memory that a copy_async issued at {} may still be writing (thread 0 of block "
      "(0, 0, 0)); wait for the copy (copy_async_wait_group / copy_async_wait_all) and sync() first",
      loc(read), loc(issued));
}

struct Order {
  std::string label;
  sim::Options options;
};

std::vector<Order> every_order() {
  return {
      {"eager", {.completion = CompletionOrder::Eager}},
      {"lazy", {.completion = CompletionOrder::Lazy}},
      {"seed 1", {.seed = 1}},
      {"seed 2", {.seed = 2}},
      {"seed 3", {.seed = 3}},
  };
}

TEST(SimulatorScheduler, AnUnsetCompletionOrderFollowsTheSeed) {
  EXPECT_EQ(sim::Options{}.completion_order(), CompletionOrder::Lazy);
  EXPECT_EQ(sim::Options{.seed = 5}.completion_order(), CompletionOrder::Seeded);
  EXPECT_EQ((sim::Options{.seed = 5, .completion = CompletionOrder::Eager}.completion_order()), CompletionOrder::Eager);
}

TEST(SimulatorScheduler, CpAsyncKernelsAreRightUnderEveryCompletionOrder) {
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    check_pipelined_row_sum(Device::simulator(), 70, 200, order.label, [&](int m, int k, auto& a, auto& out) {
      simulate<PipelinedRowSum>(order.options, m, k, a, out);
    });
    check_copy_tile<f16>(Device::simulator(), 45, 100, [&](int m, int n, auto& in, auto& out) {
      simulate<CopyTileThroughShared<f16>>(order.options, m, n, in, out);
    });
  }
}

struct ReadsWithoutWaiting : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({64});
    other_line = __LINE__ + 1;
    copy_async(global_view(x, {n}), s, {0});
    copy_async_commit_group();
    // a wait the run never takes: check_async_copy_waits cannot rule the read out, the simulator can
    if_(n < 0, [&] { copy_async_wait_all(); });
    sync();
    line = __LINE__ + 1;
    store_global(global_view(x, {n}), load_shared(s) + 1.0f, {0});
  }
};

// Lazily the copy is still in flight when it is read; eagerly it landed, but nothing waited for
// its group, which race detection reports.
TEST(SimulatorScheduler, AMissingWaitIsReportedUnderLazyAndEagerCompletion) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
  const std::string got = simulation_error<ReadsWithoutWaiting>({.completion = CompletionOrder::Lazy}, 64, x);
  EXPECT_EQ(got, read_in_flight(line, other_line));
  const std::string eager = simulation_error<ReadsWithoutWaiting>({.completion = CompletionOrder::Eager}, 64, x);
  EXPECT_EQ(eager, fmt::format("{0}: data race on shared memory allocated at {1}, byte 0 of the allocation, in "
                               "block (0, 0, 0): the load_shared at {0} by warp 0 of block (0, 0, 0) is not ordered "
                               "after the copy_async at {2}, in group 0 of the cp.async groups of warp 0 of block (0, "
                               "0, 0); order them with a sync(), an mbarrier arrival and a wait on its phase, or the "
                               "wait that retires the asynchronous operation",
                               loc(line), loc(other_line - 2), loc(other_line)));
  // With race detection off, the eagerly landed copy is read as it happens to be.
  EXPECT_EQ(simulation_error<ReadsWithoutWaiting>({.completion = CompletionOrder::Eager, .check_races = false}, 64, x),
            "no error");
  EXPECT_EQ(x.download(), std::vector<float>(64, 2.0f));
}

TEST(SimulatorScheduler, ASeedGivesOneRunAndSeedsDiffer) {
  std::set<std::string> outcomes;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::string runs[2];
    for (std::string& run : runs) {
      Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
      run = simulation_error<ReadsWithoutWaiting>({.seed = seed}, 64, x);
    }
    EXPECT_EQ(runs[0], runs[1]) << "seed " << seed;
    outcomes.insert(runs[0]);
  }
  EXPECT_GT(outcomes.size(), 1u) << fmt::format("{}", fmt::join(outcomes, "\n"));
}

struct ReadsAStageItDidNotWaitFor : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 32});
    copy_async(global_view(x, {n}), s[0], {0});
    copy_async_commit_group();
    other_line = __LINE__ + 1;
    copy_async(global_view(x, {n}), s[1], {32});
    copy_async_commit_group();
    copy_async_wait_group(1);  // the first stage only
    sync();
    line = __LINE__ + 1;
    store_global(global_view(x, {n}), load_shared(s[1]), {0});
  }
};

TEST(SimulatorScheduler, LazyCompletionCompletesOnlyTheGroupsAWaitNeeds) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
  const std::string got = simulation_error<ReadsAStageItDidNotWaitFor>({.completion = CompletionOrder::Lazy}, 64, x);
  EXPECT_EQ(got, read_in_flight(line, other_line));
}

// Scalars are per thread: `role` differs between the warps, so each if_ is taken by some threads
// only, and their sync()s never gather the whole block (which the language cannot see).
struct TwoGroupsSyncApart : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    Int32 role = 0;
    thread_group(0, 64, [&] { role = 1; });
    thread_group(64, 32, [&] { role = 2; });
    if_(role == 1, [&] {
      line = __LINE__ + 1;
      sync();
    });
    if_(role == 2, [&] {
      other_line = __LINE__ + 1;
      sync();
    });
  }
};

TEST(SimulatorScheduler, DeadlockReportListsEveryWarpWithItsLineAndTheBarrier) {
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    const std::string got = simulation_error<TwoGroupsSyncApart>(order.options, 1);
    EXPECT_EQ(got,
              loc(line) +
                  ": deadlock in block (0, 0, 0) of kernel TwoGroupsSyncApart: every warp is blocked or "
                  "finished and nothing can release the waiting ones\n"
                  "  warp 0 (threads 0..31): waiting at sync() at " +
                  loc(line) +
                  " (32 of its 32 threads arrived)\n"
                  "  warp 1 (threads 32..63): waiting at sync() at " +
                  loc(line) +
                  " (32 of its 32 threads arrived)\n"
                  "  warp 2 (threads 64..95): waiting at sync() at " +
                  loc(other_line) +
                  " (32 of its 32 threads arrived)\n"
                  "  warp 3 (threads 96..127): finished\n"
                  "  barrier of sync(): 96 of 128 threads arrived; a sync() must be reached by every thread of the "
                  "block (is it inside a thread group or a branch that only some threads take?)");
  }
}

// Warps that wait for their copies while the others wait at the barrier: nothing is ready, but the
// copies in flight can release them, so this is no deadlock under any order.
struct WaitsForCopiesWhileOthersWaitAtTheBarrier : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s = shared_tensor<float>({128});
    thread_group(0, 32, [&] {
      copy_async(global_view(x, {n}), s, {0});
      copy_async_wait_all();
    });
    sync();
    store_global(global_view(y, {n}), load_shared(s) * 3.0f, {0});
  }
};

TEST(SimulatorScheduler, WorkInFlightThatCanReleaseAWarpIsNoDeadlock) {
  std::vector<float> host(128);
  for (int i = 0; i < 128; ++i) host[size_t(i)] = float(i) - 50.0f;
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    Buffer<float> x(Device::simulator(), host), y(Device::simulator(), std::vector<float>(128, 0.0f));
    simulate<WaitsForCopiesWhileOthersWaitAtTheBarrier>(order.options, 128, x, y);
    const auto out = y.download();
    for (int i = 0; i < 128; ++i) ASSERT_EQ(out[size_t(i)], host[size_t(i)] * 3.0f) << i;
  }
}

TEST(SimulatorScheduler, BlocksRunTogetherEachWithItsOwnSharedMemory) {
  std::vector<Order> runs = every_order();
  runs.push_back({"seed 4, four blocks together", {.seed = 4, .blocks_per_group = {4, 1, 1}}});
  for (Order& run : runs) {
    SCOPED_TRACE(run.label);
    if (run.options.blocks_per_group[0] == 1) run.options.blocks_per_group = {2, 1, 1};
    check_pipelined_row_sum(Device::simulator(), 128, 200, run.label, [&](int m, int k, auto& a, auto& out) {
      simulate<PipelinedRowSum>(run.options, m, k, a, out);
    });
  }
}

struct SyncInOneWarpOfEachBlock : Script {
  void operator()(Int32 n) {
    attrs.blocks = 2;
    attrs.warps = 2;
    Int32 first_warp = 0;
    single_warp([&] { first_warp = 1; });
    if_(first_warp == 1, [&] {
      line = __LINE__ + 1;
      sync();
    });
  }
};

TEST(SimulatorScheduler, DeadlockReportCoversEveryBlockRunTogether) {
  const std::string got = simulation_error<SyncInOneWarpOfEachBlock>({.blocks_per_group = {2, 1, 1}}, 1);
  const std::string waiting = ": waiting at sync() at " + loc(line) + " (32 of its 32 threads arrived)\n";
  const std::string barrier =
      " barrier of sync(): 32 of 64 threads arrived; a sync() must be reached by every thread "
      "of the block (is it inside a thread group or a branch that only some threads take?)";
  EXPECT_EQ(got, loc(line) +
                     ": deadlock in blocks (0, 0, 0), (1, 0, 0) of kernel SyncInOneWarpOfEachBlock: "
                     "every warp is blocked or finished and nothing can release the waiting ones\n"
                     "  block (0, 0, 0) warp 0 (threads 0..31)" +
                     waiting +
                     "  block (0, 0, 0) warp 1 (threads 32..63): finished\n"
                     "  block (1, 0, 0) warp 0 (threads 0..31)" +
                     waiting +
                     "  block (1, 0, 0) warp 1 (threads 32..63): finished\n"
                     "  block (0, 0, 0)" +
                     barrier +
                     "\n"
                     "  block (1, 0, 0)" +
                     barrier);
}

TEST(SimulatorScheduler, AGridThatDoesNotDivideIntoGroupsIsReported) {
  EXPECT_EQ(simulation_error<SyncInOneWarpOfEachBlock>({.blocks_per_group = {3, 1, 1}}, 1),
            "simulator: the grid (2, 1, 1) of kernel SyncInOneWarpOfEachBlock does not divide into groups of "
            "(3, 1, 1) blocks");
}

// Each block b > 0 copies block b - 1's value, which b - 1 writes and then flags (release/acquire:
// no race). With `Waits`, b spins until the flag is up; without, it looks once and, finding it
// down, writes -7: wrong once blocks run side by side (a look-back's path for a predecessor not yet
// done, say, that only such runs take), and wrong even group after group, since nothing orders the
// look after the flag's store and it may read the flag as it was before.
template <bool Waits> struct HandsOnAValue : Script {
  void operator()(Ptr<int32_t> values, Ptr<int32_t> flags, Ptr<int32_t> out) {
    attrs.blocks = 8;
    attrs.warps = 1;
    auto v = global_view(values, {8}), f = global_view(flags, {8}), o = global_view(out, {8});
    single_thread([&] {
      if_(blockIdx.x > 0, [&] {
        Var<int32_t> seen = atomic.load<int32_t>(f, {blockIdx.x - 1}, MemoryOrder::acquire);
        if (Waits)
          while_([&] { return seen == 0; },
                 [&] { seen = atomic.load<int32_t>(f, {blockIdx.x - 1}, MemoryOrder::acquire); });
        if_(seen == 1, [&] { store_global(o, load_global(v, {blockIdx.x - 1}, {1}), {blockIdx.x}); }).else_([&] {
          store_global(o, register_tensor<int32_t>({1}, -7), {blockIdx.x});
        });
      });
      store_global(v, register_tensor<int32_t>({1}, blockIdx.x + 100), {blockIdx.x});
      atomic.store(f, {blockIdx.x}, 1, MemoryOrder::release);
    });
  }
};

template <bool Waits> std::string hand_on(const sim::Options& options) {
  Buffer<int32_t> values(Device::simulator(), std::vector<int32_t>(8, -1)),
      flags(Device::simulator(), std::vector<int32_t>(8, 0)), out(Device::simulator(), std::vector<int32_t>(8, -1));
  const std::string error = simulation_error<HandsOnAValue<Waits>>(options, values, flags, out);
  if (error != "no error") return error;
  const auto got = out.download();
  for (int b = 1; b < 8; ++b)
    if (got[size_t(b)] != b + 99) return fmt::format("block {} wrote {}", b, got[size_t(b)]);
  return "right";
}

// A schedule's name says everything that makes it: an eager or lazy completion with a seed
// interleaves the warps by it.
TEST(SimulatorScheduler, AScheduleIsNamedByEverythingThatMakesIt) {
  using sim::CompletionOrder;
  EXPECT_EQ(sim::schedule_name({.completion = CompletionOrder::Eager}), "eager");
  EXPECT_EQ(sim::schedule_name({.seed = 5, .completion = CompletionOrder::Lazy}), "lazy, warps interleaved by seed 5");
  EXPECT_EQ(sim::schedule_name({.seed = 2, .completion = CompletionOrder::Eager, .resident_groups = 3}),
            "eager, warps interleaved by seed 2, 3 groups at once");
  EXPECT_EQ(sim::schedule_name({.seed = 7}), "seed 7");
}

TEST(SimulatorScheduler, GroupsResidentAtOnceOrAnOldFlagRevealAPathThatTheNewestFlagGroupAfterGroupNeverTakes) {
  using sim::CompletionOrder;
  EXPECT_EQ(hand_on<false>({.completion = CompletionOrder::Eager}), "right");
  EXPECT_EQ(hand_on<false>({.seed = 1, .completion = CompletionOrder::Eager, .resident_groups = 4}),
            "block 2 wrote -7");
  EXPECT_EQ(hand_on<false>({.completion = CompletionOrder::Lazy}), "block 1 wrote -7");
  for (const sim::Options& o : sim::adversarial_schedules())
    EXPECT_EQ(hand_on<true>(o), "right") << sim::schedule_name(o);
}

TEST(SimulatorScheduler, NoGroupResidentIsRefused) {
  Buffer<int32_t> b(Device::simulator(), 8);
  EXPECT_EQ(simulation_error<HandsOnAValue<false>>({.resident_groups = 0}, b, b, b),
            "simulator: resident_groups is 0; at least one group must be resident");
}

}  // namespace
}  // namespace tessel::testing
