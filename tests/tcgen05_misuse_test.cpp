// The tcgen05 and tensor-memory misuse that tracing, the passes, the verifier and the simulator
// report, each at the user's line with its exact message.
#include <cmath>
#include <regex>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

int line = 0, alloc_line = 0, mma_line = 0, dealloc_line = 0;

KernelOptions on(sim::CompletionOrder order) { return KernelOptions{.arch = "sm_100a", .sim = {.completion = order}}; }
const KernelOptions kEager = on(sim::CompletionOrder::Eager), kLazy = on(sim::CompletionOrder::Lazy);

template <class S> std::string error_of(const KernelOptions& o = kEager) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(128 * 16, f16(1.0f))), b(dev, std::vector<f16>(16 * 16, f16(1.0f)));
  Buffer<float> c(dev, std::vector<float>(128 * 16, 0.0f));
  try {
    Kernel<S>(dev, o)(a, b, c);
  } catch (const Error& e) {
    // Which warp or thread gets there first depends on the order.
    return std::regex_replace(std::regex_replace(e.what(), std::regex("warp [0-9] of"), "warp W of"),
                              std::regex("thread [0-9]+ of"), "thread T of");
  }
  return "no error";
}

std::string at(int l, const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, l, message); }
std::string here(int l) { return fmt::format("{}:{}", __FILE__, l); }

// A [128, 16] and B [16, 16] in shared tiles, an mbarrier and a [128, 16] accumulator in tensor
// memory; the misuse follows.
struct Setup {
  SharedTensor s_a, s_b;
  MbarrierArray bars;
  TMemoryTensor t_acc;
};

struct Tcgen05Setup : Script {
  Setup setup(Ptr<f16> a, Ptr<f16> b) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({128, 16});
    auto s_b = shared_tensor<f16>({16, 16});
    store_shared(s_a, load_global(global_view(a, {128, 16}), {0, 0}, {128, 16}));
    store_shared(s_b, load_global(global_view(b, {16, 16}), {0, 0}, {16, 16}));
    fence.proxy_async();
    auto bars = mbarrier.alloc({1});
    alloc_line = __LINE__ + 1;
    auto t_acc = tcgen05.alloc<float>({128, 16});
    return Setup{s_a, s_b, bars, t_acc};
  }
  // The mma and its commit by warp 0, waiting for it when `wait`.
  void mma(const Setup& s, bool wait) {
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, false);
      tcgen05.commit(s.bars[0]);
      if (wait) mbarrier.wait(s.bars[0], 0u);
    });
    sync();
  }
};

struct Correct : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    mma(s, true);
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, TheCorrectKernelPassesUnderEveryOrder) {
  for (const sim::Options& o : every_order())
    EXPECT_EQ(error_of<Correct>(KernelOptions{.arch = "sm_100a", .sim = o}), "no error");
}

struct Leaks : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    mma(s, true);
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
  }
};

TEST(Tcgen05Misuse, ALeakAtKernelExitIsReported) {
  const std::string got = error_of<Leaks>();
  EXPECT_EQ(got, at(alloc_line,
                    "block (0, 0, 0) ended holding the 32 columns of tensor memory allocated "
                    "here; call tcgen05.dealloc before the kernel ends"));
}

struct FreesTwice : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float>) {
    auto s = setup(a, b);
    dealloc_line = __LINE__ + 1;
    tcgen05.dealloc(s.t_acc);
    line = __LINE__ + 1;
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, ADoubleFreeIsReported) {
  const std::string got = error_of<FreesTwice>();
  EXPECT_EQ(got, at(line, fmt::format("tcgen05.dealloc of tensor memory allocated at {}, which was already "
                                      "deallocated at {} (warp W of block (0, 0, 0))",
                                      here(alloc_line), here(dealloc_line))));
}

struct LoadsAfterDealloc : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    mma(s, true);
    dealloc_line = __LINE__ + 1;
    tcgen05.dealloc(s.t_acc);
    sync();
    line = __LINE__ + 1;
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
  }
};

TEST(Tcgen05Misuse, UseAfterDeallocIsReported) {
  const std::string got = error_of<LoadsAfterDealloc>();
  EXPECT_EQ(got, at(line, fmt::format("tcgen05.load of tensor memory allocated at {}, which was deallocated at {} "
                                      "(warp W of block (0, 0, 0))",
                                      here(alloc_line), here(dealloc_line))));
}

struct LoadsPastTheAllocation : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c, Int32 column) {
    auto s = setup(a, b);
    mma(s, true);
    line = __LINE__ + 1;
    auto r = tcgen05.load(tcgen05.slice(s.t_acc, {0, column}, {128, 16}, {0, 1}));
    store_global(global_view(c, {128, 16}), r, {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, AccessToColumnsNotAllocatedIsReported) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(128 * 16, f16(1.0f))), b(dev, std::vector<f16>(16 * 16, f16(1.0f)));
  Buffer<float> c(dev, std::vector<float>(128 * 16, 0.0f));
  Kernel<LoadsPastTheAllocation> k(dev, kEager);
  k(a, b, c, 16);  // columns 16..31: allocated (32 columns), so legal
  std::string got = "no error";
  try {
    k(a, b, c, 24);
  } catch (const Error& e) {
    got = std::regex_replace(e.what(), std::regex("warp [0-9] of"), "warp W of");
  }
  EXPECT_EQ(got, at(line, fmt::format("tcgen05.load of columns 24..39 of tensor memory allocated at {}, which "
                                      "has 32 columns allocated (warp W of block (0, 0, 0))",
                                      here(alloc_line))));
}

struct LoadsBeforeTheCommitCompletes : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    mma(s, false);
    line = __LINE__ + 1;
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

// What a load of the accumulator at `line` that no wait orders after the commit of the mma at
// `mma_line` reports.
std::string unwaited_load_report() {
  return at(line, fmt::format("tcgen05.load of tensor memory that the tcgen05.mma issued at {} may still be writing "
                              "(warp W of block (0, 0, 0)); wait for the phase of the mbarrier its tcgen05.commit "
                              "arrives on (mbarrier.wait) first",
                              here(mma_line)));
}

// Under every order: an mma that completed at issue (eager) is still observed only through its
// commit's phase, which the loading warps never waited for.
TEST(Tcgen05Misuse, ReadingTheAccumulatorBeforeTheCommitsPhaseCompletedIsReportedUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    const std::string got = error_of<LoadsBeforeTheCommitCompletes>(KernelOptions{.arch = "sm_100a", .sim = o});
    EXPECT_EQ(got, unwaited_load_report());
  }
}

// The commit's phase completed, and warp 0 waited for it, but the other warps are ordered after
// that wait by nothing: the sync() that would order them comes after their loads.
struct OneWarpWaitsForTheCommit : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, false);
      tcgen05.commit(s.bars[0]);
      mbarrier.wait(s.bars[0], 0u);
    });
    line = __LINE__ + 1;
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, ReadingTheAccumulatorUnorderedAfterTheWaitIsReportedUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    const std::string got = error_of<OneWarpWaitsForTheCommit>(KernelOptions{.arch = "sm_100a", .sim = o});
    EXPECT_EQ(got, unwaited_load_report());
  }
}

struct NeverCommits : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, false);
    });
    sync();
    line = __LINE__ + 1;
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, ReadingTheAccumulatorOfAnMmaNeverCommittedIsReportedUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    const std::string got = error_of<NeverCommits>(KernelOptions{.arch = "sm_100a", .sim = o});
    EXPECT_EQ(got,
              at(line, fmt::format("tcgen05.load of tensor memory that the tcgen05.mma issued at {} may still be "
                                   "writing (warp W of block (0, 0, 0)); the mma was never committed (a tcgen05.commit "
                                   "covers only the operations its own warp issued): commit it to an mbarrier from "
                                   "the warp that issued it and wait for that phase first",
                                   here(mma_line))));
  }
}

// The commit of warp 2 covers nothing of warp 1's mma: its arrival completes the phase at once.
struct CommitsFromAnotherWarp : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    thread_group(32, 32, [&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, false);
    });
    thread_group(64, 32, [&] {
      tcgen05.commit(s.bars[0]);
      mbarrier.wait(s.bars[0], 0u);
    });
    sync();
    line = __LINE__ + 1;
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, ACommitFromAnotherWarpThanTheMmasIsReportedUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    const std::string got = error_of<CommitsFromAnotherWarp>(KernelOptions{.arch = "sm_100a", .sim = o});
    EXPECT_EQ(got, at(line, fmt::format("tcgen05.load of tensor memory that the tcgen05.mma issued at {} may still be "
                                        "writing (warp W of block (0, 0, 0)); the mma was never committed (a "
                                        "tcgen05.commit covers only the operations its own warp issued): commit it "
                                        "to an mbarrier from the warp that issued it and wait for that phase first",
                                        here(mma_line))));
  }
}

struct OverwritesAnOperandEarly : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, false);
      tcgen05.commit(s.bars[0]);
    });
    line = __LINE__ + 1;
    store_shared(s.s_b, load_global(global_view(b, {16, 16}), {0, 0}, {16, 16}));
    single_warp([&] { mbarrier.wait(s.bars[0], 0u); });
    sync();
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, OverwritingAnOperandTheMmaMayStillReadIsReported) {
  const std::string got = error_of<OverwritesAnOperandEarly>(kLazy);
  EXPECT_EQ(got,
            at(line, fmt::format("write of shared memory that a tcgen05.mma issued at {} may still be reading (thread "
                                 "T of block (0, 0, 0)); wait for the phase of the mbarrier its tcgen05.commit arrives "
                                 "on (mbarrier.wait) first",
                                 here(mma_line))));
}

struct AccumulatesOnTheFirstStep : Tcgen05Setup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto s = setup(a, b);
    single_warp([&] {
      tcgen05.mma(s.s_a, s.s_b.transpose(), s.t_acc, true);
      tcgen05.commit(s.bars[0]);
      mbarrier.wait(s.bars[0], 0u);
    });
    sync();
    store_global(global_view(c, {128, 16}), tcgen05.load(s.t_acc), {0, 0});
    sync();
    tcgen05.dealloc(s.t_acc);
  }
};

TEST(Tcgen05Misuse, AFirstStepThatAccumulatesReadsThePoisonOfAFreshAllocation) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(128 * 16, f16(1.0f))), b(dev, std::vector<f16>(16 * 16, f16(1.0f)));
  Buffer<float> c(dev, std::vector<float>(128 * 16, 0.0f));
  Kernel<AccumulatesOnTheFirstStep>(dev, kEager)(a, b, c);
  for (float x : c.download()) ASSERT_TRUE(std::isnan(x));
  Kernel<Correct>(dev, kEager)(a, b, c);
  for (float x : c.download()) ASSERT_EQ(x, 16.0f);
}

struct AllocatesInALoop : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    for (Int32 i : range(0, 2)) {
      line = __LINE__ + 1;
      auto t = tcgen05.alloc<float>({128, 512});
    }
  }
};

TEST(Tcgen05Misuse, AnAllocationThatCanNeverBeSatisfiedDeadlocks) {
  const std::string got = error_of<AllocatesInALoop>();
  const std::string sync_wait = fmt::format("waiting at sync() at {} (32 of its 32 threads arrived)", here(line));
  EXPECT_EQ(got, at(line, fmt::format(
                              "deadlock in block (0, 0, 0) of kernel AllocatesInALoop: every warp is blocked or "
                              "finished and nothing can release the waiting ones\n"
                              "  warp 0 (threads 0..31): waiting at {} (tcgen05.alloc) for 512 free columns of tensor "
                              "memory (0 of 512 are free)\n"
                              "  warp 1 (threads 32..63): {}\n  warp 2 (threads 64..95): {}\n"
                              "  warp 3 (threads 96..127): {}\n"
                              "  barrier of sync(): 96 of 128 threads arrived; a sync() must be reached by every "
                              "thread of the block (is it inside a thread group or a branch that only some threads "
                              "take?)",
                              here(line), sync_wait, sync_wait, sync_wait)));
}

}  // namespace
}  // namespace tessel::testing

namespace tessel::testing {
namespace {

// The message of the error tracing, lowering or the verifier raises for `S` compiled for `arch`.
template <class S> std::string compile_error(const char* arch = "sm_100a") {
  try {
    Kernel<S>(Device::simulator(), KernelOptions{arch}).cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

struct CorrectForTargets : Correct {};

TEST(Tcgen05Diagnostics, CompilingForAnOlderTargetNamesTheLineAndSm100a) {
  const std::string hopper = compile_error<CorrectForTargets>("sm_90a");
  EXPECT_EQ(hopper, at(alloc_line, "tcgen05.alloc needs sm_100a or newer; the kernel is compiled for sm_90a"));
  EXPECT_EQ(compile_error<CorrectForTargets>("sm_100a"), "no error");
}

struct TooManyColumns : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    tcgen05.alloc<float>({128, 1024});
  }
};

struct HalfElements : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    tcgen05.alloc<f16>({128, 64});
  }
};

struct ThirtyTwoLanes : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    tcgen05.alloc<float>({32, 64});
  }
};

struct AllocatesInAThreadGroup : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    single_warp([&] {
      line = __LINE__ + 1;
      tcgen05.alloc<float>({128, 64});
    });
  }
};

struct HoldsMoreThan512Columns : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto first = tcgen05.alloc<float>({128, 256});
    line = __LINE__ + 1;
    auto second = tcgen05.alloc<float>({128, 257});
    tcgen05.dealloc(second);
    tcgen05.dealloc(first);
  }
};

TEST(Tcgen05Diagnostics, AllocationsAreCheckedAtTheUsersLine) {
  std::string got = compile_error<TooManyColumns>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.alloc: [128, 1024] needs 1024 columns of tensor memory; a block has 512 (from 1 to "
                    "512 columns per allocation)"));
  got = compile_error<HalfElements>();
  EXPECT_EQ(got, at(line, "tcgen05.alloc<f16>: tensor memory holds 32-bit elements (f32, i32, u32), one per column"));
  got = compile_error<ThirtyTwoLanes>();
  EXPECT_EQ(got, at(line, "tcgen05.alloc: the shape [32, 64] must be [lanes, columns] with 64 or 128 lanes"));
  got = compile_error<AllocatesInAThreadGroup>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.alloc inside a thread group of threads 0..31: tessel allocates with one warp and "
                    "then syncs the whole block, which the threads outside the group never reach; call it "
                    "outside the thread group"));
  got = compile_error<HoldsMoreThan512Columns>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.alloc: this allocation of 512 columns brings the tensor memory the block holds at "
                    "once to 768 columns; a block has 512: deallocate earlier allocations first or allocate "
                    "fewer columns"));
}

// Loads of a 128-lane tile by warps 1..4: warp 4 would need lanes 96..127 but may access 0..31.
struct LoadsFromTheWrongQuadrants : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto t = tcgen05.alloc<float>({128, 32});
    thread_group(32, 128, [&] {
      line = __LINE__ + 1;
      auto r = tcgen05.load(t);
    });
    tcgen05.dealloc(t);
  }
};

// Lanes 32..63 stored by warp 0, which may access lanes 0..31 only.
struct StoresFromTheWrongWarp : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = tcgen05.alloc<float>({128, 32});
    single_warp([&] {
      auto r = register_tensor<float>({32, 32}, 0.0f);
      line = __LINE__ + 1;
      tcgen05.store(tcgen05.slice(t, {32, 0}, {32, 32}, {0, 1}), r);
    });
    tcgen05.dealloc(t);
  }
};

TEST(Tcgen05Diagnostics, TheLaneQuadrantRuleIsCheckedAtTheUsersLine) {
  std::string got = compile_error<LoadsFromTheWrongQuadrants>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.load: warp w may access only tensor-memory lanes 32*(w mod 4) to 32*(w mod 4)+31, "
                    "so lanes 0..127 need a thread group of 128 threads (one warp per 32 lanes) whose first warp "
                    "w has w mod 4 = 0; this thread group is threads 32..159 (its first warp is warp 1)"));
  got = compile_error<StoresFromTheWrongWarp>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.store: warp w may access only tensor-memory lanes 32*(w mod 4) to 32*(w mod 4)+31, "
                    "so lanes 32..63 need a thread group of 32 threads (one warp per 32 lanes) whose first warp w "
                    "has w mod 4 = 1; this thread group is threads 0..31 (its first warp is warp 0)"));
}

template <int M, int N, int K, int GroupThreads = 32> struct MmaShape : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({M, K});
    auto s_b = shared_tensor<f16>({N, K});
    auto t = tcgen05.alloc<float>({M, N});
    thread_group(0, GroupThreads, [&] {
      line = __LINE__ + 1;
      tcgen05.mma(s_a, s_b.transpose(), t, false);
    });
    tcgen05.dealloc(t);
  }
};

TEST(Tcgen05Diagnostics, MmaShapesAndIssuersAreCheckedAtTheUsersLine) {
  std::string got = compile_error<MmaShape<128, 64, 16, 128>>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.mma is issued by one warp (single_warp(), or a thread_group of 32 threads starting "
                    "at a multiple of 32), but it runs in a thread group of threads 0..127"));
  got = compile_error<MmaShape<64, 64, 16>>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.mma: m = 64: tessel issues the M = 128 shape, whose row i is lane i of the "
                    "accumulator; use an accumulator of 128 lanes"));
  got = compile_error<MmaShape<128, 40, 16>>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.mma: n = 40 is not a tcgen05.mma shape; with m = 128, n must be a multiple of 16 "
                    "from 16 to 256"));
  got = compile_error<MmaShape<128, 64, 128>>();
  EXPECT_EQ(
      got,
      at(line,
         "tcgen05.mma: k = 128 does not fit; with f16 operands k must be 16, 32 or 64 (one instruction per 16, and "
         "shared rows of 32, 64 or 128 bytes, one swizzle span)"));
  EXPECT_EQ((compile_error<MmaShape<128, 256, 64>>()), "no error");
}

}  // namespace
}  // namespace tessel::testing
