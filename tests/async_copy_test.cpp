// cp.async on the simulator: copies with zero fill, a multi-stage pipeline under several
// interleavings, the misuse the simulator reports, and the PTX the code generator emits.
#include "async_copy_kernels.hpp"
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(AsyncCopy, CopiesATileAndZeroFillsBeyondTheView) {
  for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{1, 3}}) {
    check_copy_tile<float>(Device::simulator(), m, n);
    check_copy_tile<f16>(Device::simulator(), m, n);
  }
}

TEST(AsyncCopy, ATileOfFewFactorsOfTwoIsCopiedByEveryThreadInTurn) {
  check_copies_taken_in_turn(Device::simulator());
  for (uint64_t seed : {1, 2}) {
    using HaloCopy = CopyTileThroughShared<float, 2, 130>;
    check_copy_tile<float, 2, 130>(Device::simulator(), 5, 300, [&](int m, int n, auto& in, auto& out) {
      simulate<HaloCopy>(sim::Options{.seed = seed}, m, n, in, out);
    });
  }
  Kernel<CopyTileThroughShared<float, 2, 130>> k(Device::simulator(), KernelOptions{.arch = "sm_80"});
  EXPECT_TRUE(file_check(ir::print(*k.lowered(5, 300, (float*)nullptr, (float*)nullptr)), R"(
    CHECK: to %s by runs of 2 in turn
  )"));
  EXPECT_TRUE(file_check(k.cuda_source(5, 300, (float*)nullptr, (float*)nullptr), R"(
    CHECK: for (int r = t; r < 130; r += 128)
    CHECK: const int c1 = rest % 65 * 2; rest /= 65;
    CHECK: const int c0 = rest;
    CHECK: cp.async.ca.shared.global [%0], [%1], 8;
  )"));
  using HaloCopy = CopyTileThroughShared<f16, 2, 130>;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_FALSE(
        Kernel<HaloCopy>(Device::simulator(), KernelOptions{arch}).cubin(5, 300, (f16*)nullptr, (f16*)nullptr).empty());
}

TEST(AsyncCopy, MultiStagePipelineUnderSeveralInterleavings) {
  for (uint64_t seed : {0, 1, 2, 99}) check_pipelined_row_sum(Device::simulator(), 70, 300, seed);
}

int line = 0;

struct ReadsBeforeTheWait : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({64});
    line = __LINE__ + 1;
    copy_async(global_view(x, {n}), s, {0});
    copy_async_commit_group();
    // a wait the run never takes: check_async_copy_waits cannot rule the read out, the simulator can
    if_(n < 0, [&] { copy_async_wait_all(); });
    sync();
    auto t = load_shared(s);
  }
};

TEST(AsyncCopy, ReadingAStageBeforeItsWaitIsReported) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
  const std::string got = error_of<ReadsBeforeTheWait>(64, x);
  EXPECT_EQ(got, fmt::format("{0}:{1}: read of shared memory that a copy_async issued at {0}:{2} may still be writing "
                             "(thread 0 of block (0, 0, 0)); wait for the copy (copy_async_wait_group / "
                             "copy_async_wait_all) and sync() first",
                             __FILE__, line + 5, line));
}

// Warp 0 reads its part of the stage and refills all of it while warp 1 has yet to read its own:
// the read does not follow the refill's issue, so it may want the earlier bytes, and the message
// names that way out too.
struct RefillsAStageItsReaderIsStillReading : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({64});
    copy_async(global_view(x, {n}), s, {0});
    copy_async_commit_group();
    copy_async_wait_all();
    sync();
    auto t = load_shared(s);
    single_warp([&] {
      line = __LINE__ + 1;
      copy_async(global_view(x, {n}), s, {64});
      copy_async_commit_group();
    });
    store_global(global_view(out, {64}), t, {0});
    copy_async_wait_all();
    sync();
  }
};

TEST(AsyncCopy, AStageRefilledBeforeItsReaderIsDoneNamesBothWaysOut) {
  Buffer<float> x(Device::simulator(), std::vector<float>(128, 1.0f)), out(Device::simulator(), 64);
  sim::Options lazy;
  lazy.completion = sim::CompletionOrder::Lazy;
  const std::string got = error_of_call([&] {
    Kernel<RefillsAStageItsReaderIsStillReading>(Device::simulator(), KernelOptions{.sim = lazy})(64, x, out);
  });
  EXPECT_EQ(got, fmt::format("{0}:{1}: read of shared memory that a copy_async issued at {0}:{2} may still be writing "
                             "(thread 32 of block (0, 0, 0)); wait for the copy (copy_async_wait_group / "
                             "copy_async_wait_all) and sync() first; or, if this read wants what the bytes held "
                             "before the copy_async, the copy_async was issued too early: issue it once this read is "
                             "ordered before it (a sync(), or the release of its stage, after the read)",
                             __FILE__, line - 3, line));
}

struct OverwritesAStageInFlight : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 32});
    copy_async(global_view(x, {n}), s[0], {0});
    copy_async_commit_group();
    line = __LINE__ + 1;
    copy_async(global_view(x, {n}), s[0], {32});
    copy_async_wait_all();
  }
};

TEST(AsyncCopy, TwoCopiesInFlightIntoOneStageAreReported) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
  const std::string got = error_of<OverwritesAStageInFlight>(64, x);
  EXPECT_EQ(got, fmt::format("{0}:{1}: write of shared memory that a copy_async issued at {0}:{2} may still be writing "
                             "(thread 0 of block (0, 0, 0)); two asynchronous writes in flight may not share bytes: "
                             "issue this one after a wait that sees that one complete, or give each its own bytes",
                             __FILE__, line, line - 3));
}

TEST(AsyncCopy, EmitsCpAsyncWithZeroFillAndGroupBookkeeping) {
  Kernel<PipelinedRowSum> k(Device::simulator(), KernelOptions{"sm_80"});
  const std::string src = k.cuda_source(70, 300, (float*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // copy_async global -> shared
    CHECK: const int inside =
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(uint32_t(__cvta_generic_to_shared(s))), "l"(inside > 0 ? g : a), "r"(inside * 4) : "memory");
    CHECK: asm volatile("cp.async.commit_group;" ::: "memory");
    CHECK: asm volatile("cp.async.wait_group %0;" :: "n"(2) : "memory");
    CHECK: __syncthreads();
  )"));
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    EXPECT_FALSE(Kernel<PipelinedRowSum>(Device::simulator(), KernelOptions{arch})
                     .cubin(70, 300, (float*)nullptr, (float*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<CopyTileThroughShared<f16>>(Device::simulator(), KernelOptions{arch})
                     .cubin(70, 300, (f16*)nullptr, (f16*)nullptr)
                     .empty());
  }
}

}  // namespace
}  // namespace tessel::testing
