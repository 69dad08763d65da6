// check_arrival_counts: where one unconditional statement with a constant count is all that arrives
// on an array of barriers of one count, the threads arriving per execution must be that count; the
// pass reports the arrival otherwise, and never changes the kernel.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

ir::Kernel before_pass(ir::Kernel k) { return lowered_before(std::move(k), "check_arrival_counts"); }

template <class S> ir::Kernel traced() {
  return before_pass(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1));
}

template <class S> std::string check_error() {
  const ir::Kernel k = traced<S>();
  return error_of_call([&] { passes::check_arrival_counts(k, {}); });
}

// Each arrival matches its barriers: one thread on a count of 1, a warp on a count of 32, a
// thread arriving 4 times on a count of 4.
struct ArrivalsMatchTheirCounts : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto one = mbarrier.alloc({1});
    auto warp = mbarrier.alloc({32, 32});
    auto four = mbarrier.alloc({4});
    single_thread([&] { mbarrier.arrive(one[0]); });
    single_warp([&] { mbarrier.arrive(warp[1]); });
    single_thread([&] { mbarrier.arrive(four[0], 4); });
  }
};

TEST(CheckArrivalCounts, AcceptsArrivalsThatMatchTheirCountsAndChangesNothing) {
  const ir::Kernel k = traced<ArrivalsMatchTheirCounts>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: mbarrier.alloc %bars counts=[1]
    CHECK: mbarrier.alloc %bars.1 counts=[32, 32]
    CHECK: mbarrier.alloc %bars.2 counts=[4]
    CHECK: thread_group(begin=0, count=1) {
    CHECK-NEXT: mbarrier.arrive %bars[0] count=1
    CHECK: thread_group(begin=0, count=32) {
    CHECK-NEXT: mbarrier.arrive %bars.1[1] count=1
    CHECK: thread_group(begin=0, count=1) {
    CHECK-NEXT: mbarrier.arrive %bars.2[0] count=4
  )"));
  EXPECT_EQ(passes::check_arrival_counts(k, {}), k);
}

// Wrong counts the pass cannot decide: an arrival behind an if_ (some threads may skip it), an
// array that two statements arrive on, one with a count known only at run time.
struct UndecidedArrivals : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto branched = mbarrier.alloc({1});
    auto twice = mbarrier.alloc({1});
    auto counted = mbarrier.alloc({1});
    single_warp([&] {
      if_(n > 0, [&] { mbarrier.arrive(branched[0]); });
      mbarrier.arrive(twice[0]);
      mbarrier.arrive(counted[0], n);
    });
    single_warp([&] { mbarrier.arrive(twice[0]); });
  }
};

TEST(CheckArrivalCounts, LeavesArrivalsItCannotCountAlone) {
  const ir::Kernel k = traced<UndecidedArrivals>();
  EXPECT_EQ(passes::check_arrival_counts(k, {}), k);
}

struct AWarpArrivesOnACountOfOne : Script {
  static inline int alloc_line = 0, arrive_line = 0;
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1, 1});
    single_warp([&] {
      arrive_line = __LINE__ + 1;
      mbarrier.arrive(bars[1]);
    });
  }
};

TEST(CheckArrivalCounts, ReportsAWarpArrivingOnABarrierOfOneArrival) {
  using S = AWarpArrivesOnACountOfOne;
  const std::string got = check_error<S>();
  EXPECT_EQ(got, at(S::arrive_line) +
                     ": mbarrier.arrive: each time it runs, the 32 threads of its thread group arrive "
                     "(32 arrivals in all), but the barriers it arrives on (allocated at " +
                     at(S::alloc_line) +
                     ") expect 1 per phase, and no other statement arrives on them; allocate the barriers with "
                     "the count of every arrival, or, where fewer threads stand for all of them (a producer's one "
                     "thread), run it in single_thread() or a smaller thread group; a release of data that every "
                     "thread of the group read needs every thread's arrival");
}

struct TwoWarpsArriveTwiceOnACountOfTwoHundredFiftySix : Script {
  static inline int alloc_line = 0, arrive_line = 0;
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({256});
    thread_group(64, 64, [&] {
      arrive_line = __LINE__ + 1;
      mbarrier.arrive(bars[0], 2);
    });
  }
};

TEST(CheckArrivalCounts, ReportsTooFewArrivalsCountingEachThreadsCount) {
  using S = TwoWarpsArriveTwiceOnACountOfTwoHundredFiftySix;
  const std::string got = check_error<S>();
  EXPECT_EQ(got, at(S::arrive_line) +
                     ": mbarrier.arrive: each time it runs, the 64 threads of its thread group arrive "
                     "2 times each (128 arrivals in all), but the barriers it arrives on (allocated at " +
                     at(S::alloc_line) +
                     ") expect 256 per phase, and no other statement arrives on them; allocate the "
                     "barriers with the count of the arrivals");
}

struct OneThreadExpectsBytesOnACountOfTwo : Script {
  static inline int alloc_line = 0, arrive_line = 0;
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({2});
    single_thread([&] {
      arrive_line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bars[0], 16);
    });
  }
};

TEST(CheckArrivalCounts, ReportsAnArriveAndExpectTxByOneThreadOnACountOfTwo) {
  using S = OneThreadExpectsBytesOnACountOfTwo;
  const std::string got = check_error<S>();
  EXPECT_EQ(got, at(S::arrive_line) +
                     ": mbarrier.arrive_and_expect_tx: each time it runs, the 1 thread of its thread "
                     "group arrives (1 arrival in all), but the barriers it arrives on (allocated at " +
                     at(S::alloc_line) +
                     ") expect 2 per phase, and no other statement arrives on them; allocate the "
                     "barriers with the count of the arrivals");
}

}  // namespace
}  // namespace tessel::testing
