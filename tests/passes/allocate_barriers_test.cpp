// allocate_barriers: numbers the named barrier of each thread group that calls sync(), one per
// distinct range of threads in order of first use, from 1 (the block's sync() keeps barrier 0),
// and reports the sync() that would need a 16th one.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

ir::Kernel before_pass(ir::Kernel k) { return lowered_before(std::move(k), "allocate_barriers"); }

// Two roles of two warps each, one of them twice and one with a nested group of its second warp.
struct RolesSync : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    sync();
    thread_group(0, 64, [&] {
      sync();
      sync();
    });
    thread_group(64, 64, [&] {
      sync();
      thread_group(32, 32, [&] { sync(); });
    });
    thread_group(0, 64, [&] { sync(); });
  }
};

TEST(AllocateBarriers, NumbersEachThreadGroupsSyncOnce) {
  const ir::Kernel k = before_pass(Kernel<RolesSync>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1));
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: kernel RolesSync(
    CHECK-NEXT: sync
    CHECK-NEXT: thread_group(begin=0, count=64) {
    CHECK-NEXT: sync group
    CHECK-NEXT: sync group
    CHECK-NEXT: }
    CHECK-NEXT: thread_group(begin=64, count=64) {
    CHECK-NEXT: sync group
    CHECK-NEXT: thread_group(begin=96, count=32) {
    CHECK-NEXT: sync group
    CHECK-NEXT: }
    CHECK-NEXT: }
    CHECK-NEXT: thread_group(begin=0, count=64) {
    CHECK-NEXT: sync group
    CHECK-NEXT: }
    CHECK-NEXT: }
  )"));
  const ir::Kernel out = passes::allocate_barriers(k, {});
  ASSERT_NE(out, k);
  // Barrier 0 stays the block's; the first role's barrier is reused when the role comes back.
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: kernel RolesSync(
    CHECK-NEXT: sync
    CHECK-NEXT: thread_group(begin=0, count=64) {
    CHECK-NEXT: sync barrier=1
    CHECK-NEXT: sync barrier=1
    CHECK-NEXT: }
    CHECK-NEXT: thread_group(begin=64, count=64) {
    CHECK-NEXT: sync barrier=2
    CHECK-NEXT: thread_group(begin=96, count=32) {
    CHECK-NEXT: sync barrier=3
    CHECK-NEXT: }
    CHECK-NEXT: }
    CHECK-NEXT: thread_group(begin=0, count=64) {
    CHECK-NEXT: sync barrier=1
    CHECK-NEXT: }
    CHECK-NEXT: }
  )"));
  // Everything but the syncs is what it was.
  std::string expected = ir::print(*k);
  for (const char* barrier : {"barrier=1", "barrier=1", "barrier=2", "barrier=3", "barrier=1"})
    expected.replace(expected.find("sync group"), 10, std::string("sync ") + barrier);
  EXPECT_EQ(ir::print(*out), expected);
  EXPECT_EQ(passes::allocate_barriers(out, {}), out) << "allocated barriers are left as they are";
}

struct BlockSyncs : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    sync();
    thread_group(0, 64, [&] { sync(); });  // the whole block: barrier 0 too
  }
};

TEST(AllocateBarriers, LeavesAKernelWithOnlyBlockSyncsAlone) {
  const ir::Kernel k = before_pass(Kernel<BlockSyncs>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1));
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: sync
    CHECK-NOT: sync group
    CHECK-NOT: barrier=
  )"));
  EXPECT_EQ(passes::allocate_barriers(k, {}), k);
}

int sync_line = 0;

// One-warp groups that each call sync(): Groups of them need barriers 1..Groups.
template <int Groups> struct WarpsSyncApart : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 16;
    sync();
    for (int w = 0; w < Groups; ++w)
      thread_group(32 * w, 32, [&] {
        sync_line = __LINE__ + 1;
        sync();
      });
  }
};

TEST(AllocateBarriers, FifteenGroupsTakeTheLastBarrier) {
  const ir::Kernel k = before_pass(Kernel<WarpsSyncApart<15>>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1));
  EXPECT_TRUE(file_check(ir::print(*passes::allocate_barriers(k, {})), R"(
    CHECK: thread_group(begin=0, count=32) {
    CHECK-NEXT: sync barrier=1
    CHECK: thread_group(begin=448, count=32) {
    CHECK-NEXT: sync barrier=15
  )"));
}

TEST(AllocateBarriers, ASixteenthGroupIsReportedAtItsSync) {
  const ir::Kernel k = before_pass(Kernel<WarpsSyncApart<16>>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1));
  const std::string got = error_of_call([&] { passes::allocate_barriers(k, {}); });
  EXPECT_EQ(got, at(sync_line) +
                     ": sync() in the thread group of threads 480..511 needs a named barrier, but the 16 of a "
                     "block are taken: barrier 0 by the block's sync() and one by each of 15 other thread "
                     "groups that call sync(); synchronize fewer distinct groups");
}

}  // namespace
}  // namespace tessel::testing
