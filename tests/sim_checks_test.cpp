// What the simulator finds instead of hanging or silently misbehaving: deadlocks, out-of-bounds
// global accesses, reads of never-written shared memory; each reported at the user's line.
#include <gtest/gtest.h>

#include "expect_error.hpp"

namespace tessel {
namespace {

int line = 0;

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

// sync() behind a run-time condition that only warp 0 meets: the language cannot see it.
struct SyncInABranchOfOneWarp : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    Int32 first_warp = 0;
    thread_group(0, 32, [&] { first_warp = 1; });
    if_(first_warp == 1, [&] {
      line = __LINE__ + 1;
      sync();
    });
  }
};

TEST(SimulatorChecks, SyncInABranchOfOneWarpIsReportedAsADeadlock) {
  const std::string got = testing::error_of<SyncInABranchOfOneWarp>(1);
  EXPECT_EQ(got, loc(line) +
                     ": deadlock in block (0, 0, 0) of kernel SyncInABranchOfOneWarp: every warp is blocked or "
                     "finished and nothing can release the waiting ones\n"
                     "  warp 0 (threads 0..31): waiting at sync() at " +
                     loc(line) +
                     " (32 of its 32 threads arrived)\n"
                     "  warp 1 (threads 32..63): finished\n"
                     "  warp 2 (threads 64..95): finished\n"
                     "  warp 3 (threads 96..127): finished\n"
                     "  barrier of sync(): 32 of 128 threads arrived; a sync() must be reached by every thread of the "
                     "block (is it inside a thread group or a branch that only some threads take?)");
}

struct SyncInABranchOfOneThread : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 chosen = 0;
    single_thread([&] { chosen = 1; });
    if_(chosen == 1, [&] {
      line = __LINE__ + 1;
      sync();
    });
  }
};

TEST(SimulatorChecks, SyncReachedByPartOfAWarpDeadlocks) {
  const std::string got = testing::error_of<SyncInABranchOfOneThread>(1);
  EXPECT_NE(got.find(loc(line) + ": deadlock in block (0, 0, 0)"), std::string::npos) << got;
  EXPECT_NE(got.find("(1 of its 32 threads arrived)"), std::string::npos) << got;
}

// Warp 1 leaves the loop by break_ after its first pass; warp 0 meets the loop's sync() alone.
struct SyncInALoopThatOneWarpLeft : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    for (Int32 i : range(0, n)) {
      thread_group(32, 32, [&] { if_(i == 1, [&] { break_(); }); });
      line = __LINE__ + 1;
      sync();
    }
  }
};

TEST(SimulatorChecks, ASyncThatABreakLeavesBehindIsReportedAsADeadlock) {
  const std::string got = testing::error_of<SyncInALoopThatOneWarpLeft>(4);
  EXPECT_EQ(got, loc(line) +
                     ": deadlock in block (0, 0, 0) of kernel SyncInALoopThatOneWarpLeft: every warp is blocked or "
                     "finished and nothing can release the waiting ones\n"
                     "  warp 0 (threads 0..31): waiting at sync() at " +
                     loc(line) +
                     " (32 of its 32 threads arrived)\n"
                     "  warp 1 (threads 32..63): finished\n"
                     "  barrier of sync(): 32 of 64 threads arrived; a sync() must be reached by every thread of the "
                     "block (is it inside a thread group or a branch that only some threads take?)");
}

struct ViewLargerThanBuffer : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(x, {n + 64});
    line = __LINE__ + 1;
    auto t = load_global(g, {0}, {128});
  }
};

// A raw pointer carries no extent, so the launch cannot check the view; the access is caught.
TEST(SimulatorChecks, OutOfBoundsGlobalAccess) {
  Buffer<float> x(Device::simulator(), 64);
  const std::string got = testing::error_of<ViewLargerThanBuffer>(64, x.data());
  EXPECT_EQ(got, loc(line) +
                     ": out-of-bounds global read of 4 bytes at byte 256 of a 256-byte allocation (index past "
                     "its end), through the global_view of arg1; check the global_view's shape and strides against "
                     "the buffer");
}

struct ReadBeforeWrite : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32});
    line = __LINE__ + 1;
    auto t = load_shared(s);
    store_global(global_view(x, {n}), t, {0});
  }
};

TEST(SimulatorChecks, ReadOfNeverWrittenSharedMemory) {
  Buffer<float> x(Device::simulator(), 32);
  const std::string got = testing::error_of<ReadBeforeWrite>(32, x);
  EXPECT_EQ(got, loc(line) + ": read of shared memory that was never written: the allocation at " + loc(line - 2) +
                     ", byte 0 of the allocation, read by thread 0 of block (0, 0, 0); store to it (and sync()) before "
                     "loading");
}

struct DivisionByZero : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    Int32 q = 10 / (n - n);
  }
};

TEST(SimulatorChecks, IntegerDivisionByZero) {
  Buffer<float> x(Device::simulator(), 1);
  const std::string got = testing::error_of<DivisionByZero>(3, x);
  EXPECT_EQ(got, loc(line) + ": integer division by zero in thread 0 of block (0, 0, 0)");
}

struct PointerFromElsewhere : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    store_global(global_view(x, {n}), register_tensor<float>({32}, 1.0f), {0});
  }
};

TEST(SimulatorChecks, PointerOutsideEveryAllocation) {
  std::vector<float> host(32);
  const std::string got = testing::error_of<PointerFromElsewhere>(32, host.data());
  EXPECT_NE(got.find(loc(line) + ": out-of-bounds global write of 4 bytes at address 0x"), std::string::npos) << got;
  EXPECT_NE(got.find("which is in no allocation made through tessel::Device"), std::string::npos) << got;
}

// A correct kernel with warps that race ahead: the interleaving must not matter.
struct SharedExchange : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 8;
    Int32 offset = blockIdx.x * 256;
    auto s = shared_tensor<float>({256});
    store_shared(s, load_global(global_view(x, {n}), {offset}, {256}, Layout::spatial({256})));
    sync();
    // Each thread reads the element another warp wrote.
    auto rev = load_shared(s, {0}, {256}, Layout::spatial({256}));
    store_global(global_view(y, {n}), rev * 2.0f, {offset});
  }
};

TEST(SimulatorChecks, SeededInterleavingsAgree) {
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float(i % 97) - 40.5f;
  for (uint64_t seed : {0, 1, 7, 12345}) {
    Buffer<float> x(Device::simulator(), host), y(Device::simulator(), std::vector<float>(n, -1));
    Kernel<SharedExchange> k(Device::simulator(), KernelOptions{.sim = {.seed = seed}});
    k(n, x, y);
    const auto out = y.download();
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] * 2.0f) << "seed " << seed << " element " << i;
  }
}

// Warp 1 writes a tile in four stores that C++ unrolls from one line, and warp 0 reads it with no
// sync() between them that the block takes: the report names the writing line once.
int unrolled_writer_line = 0;
struct ReadsATileWrittenByAnUnrolledLoop : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({4, 2, 32}, Swizzle::none);
    thread_group(32, 32, [&] {
      unrolled_writer_line = __LINE__ + 1;
      for (int quarter = 0; quarter < 4; ++quarter) store_shared(s[quarter], register_tensor<float>({2, 32}, 1.0f));
    });
    if_(n < 0, [&] { sync(); });
    thread_group(0, 32, [&] { store_global(global_view(out, {n, 32}), load_shared(s[0]), {0, 0}); });
  }
};

TEST(SimulatorChecks, AWriteUnrolledByCppIsNamedOnceAsTheCauseOfAnUnwrittenRead) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  const std::string got = testing::error_of<ReadsATileWrittenByAnUnrolledLoop>(8, out);
  const size_t cause = got.find("; store_shared at");
  ASSERT_NE(cause, std::string::npos) << got;
  EXPECT_EQ(got.substr(cause),
            fmt::format("; store_shared at {0}:{1} (threads 32..63) writes this tile, and nothing ordered that write "
                        "before this read: is a sync() or an mbarrier handoff missing between them?",
                        __FILE__, unrolled_writer_line));
}

}  // namespace
}  // namespace tessel
