// return_ on the simulator: threads that end early under every order, and the misuse it finds at
// the user's line (a barrier that waits for a thread that has returned, a warp instruction some of
// whose lanes returned, code after a return_).
#include "expect_error.hpp"
#include "return_kernels.hpp"
#include "simulate.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

int line = 0, return_line = 0, alloc_line = 0;

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

TEST(Return, EndsTheThreadsThatRunItUnderEveryOrder) {
  for (const KernelOptions& options : every_order_options()) check_returns_early(Device::simulator(), options);
}

TEST(Return, PrintsAndCompilesForEveryTarget) {
  Kernel<ReturnsEarly> k(Device::simulator());
  EXPECT_NE(ir::print(*k.traced(2, 4, (int32_t*)nullptr)).find(" return\n"), std::string::npos);
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    Kernel<ReturnsEarly> for_arch(Device::simulator(), KernelOptions{.arch = arch});
    EXPECT_NE(for_arch.cuda_source(2, 4, (int32_t*)nullptr).find("return;"), std::string::npos) << arch;
    EXPECT_GT(for_arch.cubin(2, 4, (int32_t*)nullptr).size(), 0u) << arch;
  }
}

// Thread 0 returns; the rest of its warp then meets a barrier that waits for it.
struct SyncAfterAThreadReturned : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    single_thread([&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
    });
    line = __LINE__ + 1;
    sync();
  }
};

TEST(Return, ABarrierThatWaitsForAReturnedThreadIsReportedAtBothLines) {
  const std::string got = error_of<SyncAfterAThreadReturned>(1);
  EXPECT_EQ(got,
            loc(line) + ": sync() in block (0, 0, 0) waits for threads 0..31, but thread 0 returned at " +
                loc(return_line) +
                ": a barrier waits for every thread of its group, and one that has returned never arrives; return_ "
                "after the group's last barrier, or skip the work with if_ instead");
  EXPECT_EQ(error_of<SyncAfterAThreadReturned>(0), "no error");
}

// Warp 0 waits at the block's barrier while warp 1 returns.
struct ReturnWhileTheBlockWaits : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    thread_group(32, 32, [&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
    });
    line = __LINE__ + 1;
    sync();
  }
};

// Whichever comes first, the return or warp 0's arrival, the run names both lines.
TEST(Return, AReturnWhileItsGroupWaitsAtABarrierIsReportedUnderEveryOrder) {
  const std::string first = error_of<ReturnWhileTheBlockWaits>(1);
  const std::string at_return = loc(return_line) +
                                ": return_ by thread 32 of block (0, 0, 0) while threads of its group (threads 0..63) "
                                "wait at the barrier at " +
                                loc(line) +
                                ", which waits for every thread of the group: a thread that has returned never "
                                "arrives; return_ after the group's last barrier, or skip the work with if_ instead";
  for (const sim::Options& order : every_order()) {
    const std::string got = simulation_error<ReturnWhileTheBlockWaits>(order, 1);
    const std::string at_barrier = loc(line) +
                                   ": sync() in block (0, 0, 0) waits for threads 0..63, but thread 32 returned at " +
                                   loc(return_line) +
                                   ": a barrier waits for every thread of its group, and one that has returned never "
                                   "arrives; return_ after the group's last barrier, or skip the work with if_ instead";
    EXPECT_TRUE(got == at_return || got == at_barrier) << got;
  }
  EXPECT_EQ(first, at_return);
}

// Lanes 16..31 return; the warp's shuffle then lacks them.
struct ShuffleAfterLanesReturned : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    thread_group(16, 16, [&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
    });
    line = __LINE__ + 1;
    Int32 got = warp.shuffle_xor(n, 1);
    store_global(global_view(out, {32}), register_tensor<int32_t>({32}, got, Layout::spatial({32})), {0});
  }
};

TEST(Return, AWarpInstructionSomeOfWhoseLanesReturnedNamesTheReturn) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(32, -1));
  const std::string got = error_of<ShuffleAfterLanesReturned>(1, out);
  EXPECT_EQ(got, loc(line) +
                     ": warp.shuffle_xor in warp 0 of block (0, 0, 0): threads 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, "
                     "26, 27, 28, 29, 30, 31 did not reach it, since it runs inside control flow that splits the warp; "
                     "every thread of the warp must execute it together; thread 16 returned at " +
                     loc(return_line));
}

// Warp 1, which should arrive on the mbarrier, returns; warp 0 waits for the arrival forever.
struct ArriverReturns : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({32});
    thread_group(32, 32, [&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
      mbarrier.arrive(bars[0]);
    });
    thread_group(0, 32, [&] {
      line = __LINE__ + 1;
      mbarrier.wait(bars[0], 0u);
    });
  }
};

TEST(Return, ADeadlockNamesTheReturnOfTheThreadsItWaitsFor) {
  const std::string got = error_of<ArriverReturns>(1);
  const std::string array = "barrier 0 of the array allocated at " + loc(alloc_line);
  EXPECT_EQ(got,
            loc(line) + ": deadlock in block (0, 0, 0) of kernel ArriverReturns: warp 0 (threads 0..31) waits at " +
                loc(line) + " for phase 0 (parity 0) of " + array +
                ", which lacks 32 of its 32 arrivals, and nothing in flight and no other warp can provide them; "
                "what completes phases of its array is mbarrier.arrive at " +
                loc(return_line + 1) + " (threads 32..63, finished; returned at " + loc(return_line) +
                ").\n"
                "  every warp is blocked or finished and nothing can release the waiting ones\n"
                "  warp 0 (threads 0..31): waiting at " +
                loc(line) + " for " + array +
                " to complete its phase of parity 0\n"
                "  warp 1 (threads 32..63): finished (32 of its threads returned at " +
                loc(return_line) + ")\n  " + array + ": in phase 0 (parity 0), 32 of 32 arrivals pending, tx-count 0");
  EXPECT_EQ(error_of<ArriverReturns>(0), "no error");
}

TEST(Return, AClusterBarrierWaitsOnlyForThreadsThatHaveNotReturned) {
  for (const KernelOptions& options : every_order_options(KernelOptions{.arch = "sm_90a"}))
    check_cluster_sync_after_returns(Device::simulator(), options);
}

struct StatementAfterReturn : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(out, {1});
    auto t = register_tensor<int32_t>({1}, n);
    if_(n > 0, [&] {
      return_line = __LINE__ + 1;
      return_();
      line = __LINE__ + 1;
      store_global(g, t, {0});
    });
  }
};

TEST(Return, CodeAfterAReturnInTheSameBodyIsRefusedAtItsLine) {
  const std::string got = error_of<StatementAfterReturn>(1, (int32_t*)nullptr);
  EXPECT_EQ(got, loc(line) + ": store_global is never reached: the return_() at " + loc(return_line) +
                     " before it in the same body ends every thread that comes this way");
}

struct PartOfAWarpAtAClusterBarrier : Script {
  void operator()(Int32 n) {
    attrs.blocks = 2;
    attrs.warps = 1;
    attrs.cluster = {2, 1, 1};
    if_(lane_index() < n, [&] {
      line = __LINE__ + 1;
      cluster.sync();
    });
  }
};

TEST(Return, AClusterBarrierReachedByPartOfAWarpIsRefused) {
  Kernel<PartOfAWarpAtAClusterBarrier> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string got = error_of_call([&] { k(16); });
  EXPECT_EQ(got, loc(line) +
                     ": cluster.sync() is executed by whole warps, but only 16 lanes of warp 0 of block (0, 0, 0) "
                     "reach it (is it inside an if_ that part of the warp takes?)");
}

// A return_ traced in a while_ condition would run at the start of each pass.
struct ReturnInAWhileCondition : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 i = 0;
    while_(
        [&] {
          line = __LINE__ + 1;
          if_(i > n, [&] { return_(); });
          return i < 10;
        },
        [&] { i += 1; });
  }
};

TEST(Return, AReturnInAWhileConditionIsRefusedAtItsLine) {
  const std::string got = error_of<ReturnInAWhileCondition>(3);
  EXPECT_EQ(got, loc(line) +
                     ": return_() in a while_ condition: the condition is computed at the start of each pass of its "
                     "loop, before the body; call return_() in the body");
}

// Lanes 16..31 return; the warpgroup's wgmma.fence then lacks them.
struct WgmmaFenceAfterLanesReturned : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    thread_group(16, 16, [&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
    });
    line = __LINE__ + 1;
    wgmma.fence();
  }
};

TEST(Return, AWgmmaFenceSomeOfWhoseLanesReturnedNamesTheReturn) {
  Kernel<WgmmaFenceAfterLanesReturned> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string got = error_of_call([&] { k(1); });
  EXPECT_EQ(got, loc(line) +
                     ": wgmma.fence is executed by whole warps, but only 16 lanes of warp 0 of block (0, 0, 0) reach "
                     "it (is it inside an if_ that part of the warp takes?); thread 16 returned at " +
                     loc(return_line));
  EXPECT_EQ(error_of_call([&] { k(0); }), "no error");
}

// Lanes 16..31 return; the fragment load that select_instructions makes an ldmatrix then lacks them.
struct LdmatrixAfterLanesReturned : Script {
  void operator()(Int32 n, Ptr<f16> a, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({16, 16});
    store_shared(s, load_global(global_view(a, {16, 16}), {0, 0}, {16, 16}));
    sync();
    thread_group(16, 16, [&] {
      return_line = __LINE__ + 1;
      if_(n > 0, [&] { return_(); });
    });
    line = __LINE__ + 1;
    auto fragment = load_shared(s, {0, 0}, {16, 16}, mma_layouts(16, 8, 16, 1, 1).a);
    store_global(global_view(out, {16, 16}), fragment.to<float>(), {0, 0});
  }
};

TEST(Return, AnLdmatrixSomeOfWhoseLanesReturnedNamesTheReturn) {
  Kernel<LdmatrixAfterLanesReturned> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  Buffer<f16> a(Device::simulator(), std::vector<f16>(256, f16(1.5f)));
  Buffer<float> out(Device::simulator(), std::vector<float>(256, -1.0f));
  const std::string got = error_of_call([&] { k(1, a, out); });
  EXPECT_EQ(got, loc(line) +
                     ": load_shared (as ldmatrix A over 1x1 warps) is executed by whole warps, but only 16 lanes of "
                     "warp 0 of block (0, 0, 0) reach it (is it inside an if_ that part of the warp takes?); thread "
                     "16 returned at " +
                     loc(return_line));
  EXPECT_EQ(error_of_call([&] { k(0, a, out); }), "no error");
  EXPECT_EQ(out.download(), std::vector<float>(256, 1.5f));
}

// The region's end mark follows the return_ in the same body.
struct ReturnAtTheEndOfARegion : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    trace_region("work", [&] {
      return_line = __LINE__ + 1;
      return_();
    });
  }
};

TEST(Return, AReturnThatEndsATraceRegionsBodyNamesTheRegion) {
  const std::string got = error_of<ReturnAtTheEndOfARegion>(1);
  EXPECT_EQ(got, loc(return_line) + ": return_() at the end of trace_region \"work\" (at " + loc(line) +
                     "): the threads that return leave before the region's end is recorded, so their region never "
                     "ends; return_ after the trace_region");
}

}  // namespace
}  // namespace tessel::testing
