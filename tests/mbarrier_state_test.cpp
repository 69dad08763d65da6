// The simulator's mbarrier state machine on its own (PTX ISA 9.7.13.15), including the
// transaction side that asynchronous engines drive through complete_tx: phases complete when the
// arrivals are in and the bytes landed, in either order, and bytes beyond what a phase expects
// are reported at the line that issued them.
#include <gtest/gtest.h>

#include "sim/mbarriers.hpp"

namespace tessel::sim {
namespace {

const SourceLoc kInit{"k.cpp", 10}, kArrive{"k.cpp", 11}, kCopy{"k.cpp", 12};

struct MbarrierStateTest : ::testing::Test {
  ir::SharedTensorNode array{DType::U64, {2}, {1}, nullptr, nullptr, "bars", kInit, 0};
  Mbarriers bars;
  const Mbarriers::Origin by_init{&kInit, 0, "(0, 0, 0)"}, by_arrive{&kArrive, 0, "(0, 0, 0)"};
  void SetUp() override { bars.init(8, array, 1, 2, 1, 1, by_init); }
  const MbarrierState& state() { return bars.all().at(8); }
};

TEST_F(MbarrierStateTest, APhaseCompletesOnceArrivalsAndBytesAreIn) {
  EXPECT_FALSE(bars.phase_completed(8, 0));
  EXPECT_TRUE(bars.phase_completed(8, 1));
  EXPECT_FALSE(bars.arrive(8, 1, 64, VectorClock{}, false, "mbarrier.arrive_and_expect_tx", by_arrive));
  EXPECT_FALSE(bars.arrive(8, 1, 0, VectorClock{}, false, "mbarrier.arrive", by_arrive));
  EXPECT_EQ(state().pending, 0);
  EXPECT_EQ(state().tx, 64);
  bars.complete_tx(8, 32, kCopy);
  EXPECT_FALSE(bars.phase_completed(8, 0));
  bars.complete_tx(8, 32, kCopy);
  EXPECT_TRUE(bars.phase_completed(8, 0));
  EXPECT_FALSE(bars.phase_completed(8, 1));
  EXPECT_EQ(state().phase, 1);
  EXPECT_EQ(state().pending, 2);
  EXPECT_EQ(state().tx, 0);
}

TEST_F(MbarrierStateTest, BytesMayLandBeforeTheyAreExpected) {
  bars.complete_tx(8, 16, kCopy);
  EXPECT_EQ(state().tx, -16);
  EXPECT_FALSE(bars.arrive(8, 1, 0, VectorClock{}, false, "mbarrier.arrive", by_arrive));
  EXPECT_TRUE(bars.arrive(8, 1, 16, VectorClock{}, false, "mbarrier.arrive_and_expect_tx", by_arrive));
  EXPECT_EQ(state().phase, 1);
}

TEST_F(MbarrierStateTest, ExpectTxWithoutArrivalHoldsThePhaseForTheBytes) {
  bars.expect_tx(8, 48, by_arrive);
  EXPECT_FALSE(bars.arrive(8, 2, 0, VectorClock{}, false, "mbarrier.arrive", by_arrive));
  EXPECT_FALSE(bars.phase_completed(8, 0));
  bars.complete_tx(8, 48, kCopy);
  EXPECT_TRUE(bars.phase_completed(8, 0));
}

TEST_F(MbarrierStateTest, BytesBeyondWhatAPhaseExpectsAreReportedWhereTheyWereIssued) {
  bars.arrive(8, 2, 32, VectorClock{}, false, "mbarrier.arrive_and_expect_tx", by_arrive);
  try {
    bars.complete_tx(8, 48, kCopy);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:12: 48 transaction bytes landed on barrier 1 of the array allocated at k.cpp:10, whose phase 0 "
              "has all its arrivals and expects only 32 more bytes: the bytes announced with arrive_and_expect_tx / "
              "expect_tx are fewer than the bytes of the copies that signal the barrier");
  }
}

TEST_F(MbarrierStateTest, APhaseThatCompletesBeforeOneOfItsCopiesLandedIsReportedAtThatCopy) {
  const SourceLoc kSecondCopy{"k.cpp", 13};
  bars.expect_load(8, kCopy, true);
  bars.expect_load(8, kSecondCopy, true);
  bars.arrive(8, 2, 64, VectorClock{}, false, "mbarrier.arrive_and_expect_tx", by_arrive);
  bars.complete_tx(8, 32, kSecondCopy);
  bars.complete_tx(8, 32, kCopy);
  EXPECT_EQ(state().phase, 1) << "both copies announced";
  bars.expect_load(8, kCopy, true);
  bars.expect_load(8, kSecondCopy, true);
  bars.arrive(8, 2, 32, VectorClock{}, false, "mbarrier.arrive_and_expect_tx", by_arrive);
  try {
    bars.complete_tx(8, 32, kCopy);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:13: phase 1 of barrier 1 of the array allocated at k.cpp:10 completed while this copy, issued in "
              "that phase to signal it, was still in flight, so its bytes would count towards phase 2: the "
              "transaction bytes announced for phase 1 (32, by the arrive_and_expect_tx / expect_tx at k.cpp:11) are "
              "fewer than those of the copies that signal it; announce every copy's bytes (a shared tile's nbytes())");
  }
}

TEST_F(MbarrierStateTest, UseBeforeInitAndInitTwiceAreReported) {
  try {
    bars.at(16, array, 0, "mbarrier.wait", by_arrive);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:11: mbarrier.wait on barrier 0 of the array allocated at k.cpp:10 before "
              "it was initialized (thread 0 of block (0, 0, 0))");
  }
  try {
    bars.init(8, array, 1, 2, 1, 1, by_init);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:10: mbarrier.alloc: barrier 1 of the array allocated at k.cpp:10 is "
              "initialized a second time (thread 0 of block (0, 0, 0)) while it is live since "
              "k.cpp:10; allocate barriers once, outside loops");
  }
}

}  // namespace
}  // namespace tessel::sim
