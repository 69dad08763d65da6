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
  EXPECT_EQ(got, at(alloc_line, "block (0, 0, 0) ended holding the 32 columns of tensor memory allocated "
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
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.dealloc of tensor memory tmem (allocated at {}), which was already "
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
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.load of tensor memory tmem (allocated at {}), which was deallocated at {} "
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
  EXPECT_EQ(got, at(line, fmt::format("tcgen05.load of columns 24..39 of tensor memory tmem (allocated at {}), which "
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

TEST(Tcgen05Misuse, ReadingTheAccumulatorBeforeTheCommitsPhaseCompletedIsReported) {
  const std::string got = error_of<LoadsBeforeTheCommitCompletes>(kLazy);
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.load of tensor memory that the tcgen05.mma issued at {} may still be "
                                 "writing (warp W of block (0, 0, 0)); wait for the phase of the mbarrier its "
                                 "tcgen05.commit arrives on (mbarrier.wait) first",
                                 here(mma_line))));
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
                                   "writing (warp W of block (0, 0, 0)); the mma was never committed: tcgen05.commit "
                                   "it to an mbarrier and wait for that phase first",
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
  EXPECT_NE(got.find("deadlock"), std::string::npos) << got;
  EXPECT_NE(got.find(fmt::format("waiting at {} (tcgen05.alloc) for 512 free columns of tensor memory (0 of 512 are "
                                 "free, not in one aligned run of 512)",
                                 here(line))),
            std::string::npos)
      << got;
}

}  // namespace
}  // namespace tessel::testing
