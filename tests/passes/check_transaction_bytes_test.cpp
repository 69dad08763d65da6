// check_transaction_bytes: where one thread announces a constant number of transaction bytes and it
// or its group issues, in straight-line code, every operation that completes bytes on that
// barrier, the bytes announced must be the bytes those operations bring (whole TMA boxes, 16 per
// try_cancel); the pass reports the announcement otherwise, and never changes the kernel.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

int expect_line = 0, first_line = 0, second_line = 0;

// Two TMA loads onto one barrier: a [32, 64] box of f16 (4096 bytes) and a [16, 64] one (2048
// bytes) that reaches past the view's 40 rows, whose missing rows count too.
template <int Announced> struct LoadsTwoBoxes : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(a, {40, 64});
    auto s = shared_tensor<f16>({32, 64});
    auto s2 = shared_tensor<f16>({16, 64});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      expect_line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bars[0], Announced);
      first_line = __LINE__ + 1;
      tma.global_to_shared(g, s, {0, 0}, bars[0]);
      second_line = __LINE__ + 1;
      tma.global_to_shared(g, s2, {32, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], 0);
  }
};

template <class S> ir::Kernel traced(const char* arch = "sm_90a") {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{arch}).traced(1, (f16*)nullptr),
                        "check_transaction_bytes", ir::parse_arch(arch));
}

template <class S> std::string check_error(const char* arch = "sm_90a") {
  const ir::Kernel k = traced<S>(arch);
  return error_of_call([&] { passes::check_transaction_bytes(k, {ir::parse_arch(arch)}); });
}

TEST(CheckTransactionBytes, AcceptsTheBytesOfWholeBoxesAndChangesNothing) {
  const ir::Kernel k = traced<LoadsTwoBoxes<6144>>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: sync
    CHECK-NEXT: thread_group(begin=0, count=1) {
    CHECK-NEXT: mbarrier.arrive_and_expect_tx %bars[0] bytes=6144
    CHECK-NEXT: tma.global_to_shared global<f16>(%arg1, shape=[40, 64], strides=[64, 1]) at [0, 0] to %s dims [0, 1] on %bars[0]
    CHECK-NEXT: tma.global_to_shared global<f16>(%arg1, shape=[40, 64], strides=[64, 1]) at [32, 0] to %s.1 dims [0, 1] on %bars[0]
    CHECK-NEXT: }
  )"));
  EXPECT_EQ(passes::check_transaction_bytes(k, {}), k);
}

TEST(CheckTransactionBytes, ReportsFewerBytesThanTheBoxesBring) {
  const std::string got = check_error<LoadsTwoBoxes<4096>>();
  EXPECT_EQ(got, at(expect_line) +
                     ": mbarrier.arrive_and_expect_tx: announces 4096 transaction bytes, but the operations "
                     "that complete bytes on this barrier (tma.global_to_shared " +
                     at(first_line) + ", tma.global_to_shared " + at(second_line) +
                     ") bring 6144 bytes, every byte of the TMA loads' boxes; the phase "
                     "would receive more bytes than it expects. Announce exactly the bytes they bring");
}

TEST(CheckTransactionBytes, ReportsMoreBytesThanTheBoxesBring) {
  const std::string got = check_error<LoadsTwoBoxes<8192>>();
  EXPECT_EQ(got, at(expect_line) +
                     ": mbarrier.arrive_and_expect_tx: announces 8192 transaction bytes, but the operations "
                     "that complete bytes on this barrier (tma.global_to_shared " +
                     at(first_line) + ", tma.global_to_shared " + at(second_line) +
                     ") bring 6144 bytes, every byte of the TMA loads' boxes; the phase "
                     "would never complete. Announce exactly the bytes they bring");
}

// A ring's producer whose whole loop runs in one thread: each iteration announces the bytes of
// its stage and loads a [32, 64] f16 box (4096 bytes) onto that stage's barrier.
template <int Announced> struct ProducerLoopInOneThread : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(a, {n * 32, 64});
    auto s = shared_tensor<f16>({2, 32, 64});
    auto full = mbarrier.alloc({1, 1});
    single_thread([&] {
      for (Int32 k : range(0, n)) {
        Int32 stage = k % 2;
        expect_line = __LINE__ + 1;
        mbarrier.arrive_and_expect_tx(full[stage], Announced);
        first_line = __LINE__ + 1;
        tma.global_to_shared(g, s[stage], {k * 32, 0}, full[stage]);
      }
    });
  }
};

TEST(CheckTransactionBytes, ChecksAProducerLoopThatRunsInOneThread) {
  EXPECT_EQ(check_error<ProducerLoopInOneThread<4096>>(), "no error");
  EXPECT_EQ(check_error<ProducerLoopInOneThread<4096 + 16>>(),
            at(expect_line) +
                ": mbarrier.arrive_and_expect_tx: announces 4112 transaction bytes, but the operations that complete "
                "bytes on this barrier (tma.global_to_shared " +
                at(first_line) +
                ") bring 4096 bytes, every byte of the TMA loads' boxes; the phase would never complete. Announce "
                "exactly the bytes they bring");
}

// A producer warp, as the Hopper ladder writes one: one thread announces each stage's bytes, and the
// warp issues the stage's [32, 64] f16 box (4096 bytes), which its first thread loads.
template <int Announced> struct ProducerWarpAnnouncingInOneThread : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto g = global_view(a, {n * 32, 64});
    auto s = shared_tensor<f16>({2, 32, 64});
    auto full = mbarrier.alloc({1, 1});
    thread_group(32, 32, [&] {
      for (Int32 k : range(0, n)) {
        Int32 stage = k % 2;
        single_thread([&] {
          expect_line = __LINE__ + 1;
          mbarrier.arrive_and_expect_tx(full[stage], Announced);
        });
        first_line = __LINE__ + 1;
        tma.global_to_shared(g, s[stage], {k * 32, 0}, full[stage]);
      }
    });
  }
};

TEST(CheckTransactionBytes, ChecksAProducerWarpWhoseOneThreadAnnounces) {
  EXPECT_EQ(check_error<ProducerWarpAnnouncingInOneThread<4096>>(), "no error");
  EXPECT_EQ(check_error<ProducerWarpAnnouncingInOneThread<2048>>(),
            at(expect_line) +
                ": mbarrier.arrive_and_expect_tx: announces 2048 transaction bytes, but the operations that complete "
                "bytes on this barrier (tma.global_to_shared " +
                at(first_line) +
                ") bring 4096 bytes, every byte of the TMA loads' boxes; the phase would receive more bytes than it "
                "expects. Announce exactly the bytes they bring");
}

// A ring's stage index known only at run time, written anew at each use as a helper class writes
// `full[stage]`: the same barrier while `SameStage`, else each load on a stage of its own.
template <bool SameStage> struct RingStageIndexedAtEachUse : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(a, {64, 64});
    auto s = shared_tensor<f16>({32, 64});
    auto full = mbarrier.alloc({2});
    const auto stage = [&](int ahead) { return full[(n + ahead) % 2]; };
    single_thread([&] {
      expect_line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(stage(0), 4096);
      first_line = __LINE__ + 1;
      tma.global_to_shared(g, s, {0, 0}, stage(0));
      second_line = __LINE__ + 1;
      tma.global_to_shared(g, s, {32, 0}, stage(SameStage ? 0 : 1));
    });
  }
};

TEST(CheckTransactionBytes, ARingStageWrittenAtEachUseIsOneBarrier) {
  const std::string got = check_error<RingStageIndexedAtEachUse<true>>();
  EXPECT_EQ(got, at(expect_line) +
                     ": mbarrier.arrive_and_expect_tx: announces 4096 transaction bytes, but the operations "
                     "that complete bytes on this barrier (tma.global_to_shared " +
                     at(first_line) + ", tma.global_to_shared " + at(second_line) +
                     ") bring 8192 bytes, every byte of the TMA loads' boxes; the phase "
                     "would receive more bytes than it expects. Announce exactly the bytes they bring");
  const ir::Kernel k = traced<RingStageIndexedAtEachUse<false>>();
  EXPECT_EQ(passes::check_transaction_bytes(k, {}), k);
}

// A try_cancel response is 16 bytes (sm_100a).
struct CancelAnnouncesThirtyTwoBytes : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto response = shared_tensor<uint32_t>({4});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      expect_line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bars[0], 32);
      first_line = __LINE__ + 1;
      clc.try_cancel(response, bars[0]);
    });
    mbarrier.wait(bars[0], 0);
  }
};

TEST(CheckTransactionBytes, CountsSixteenBytesPerTryCancelResponse) {
  const std::string got = check_error<CancelAnnouncesThirtyTwoBytes>("sm_100a");
  EXPECT_EQ(got, at(expect_line) +
                     ": mbarrier.arrive_and_expect_tx: announces 32 transaction bytes, but the operations "
                     "that complete bytes on this barrier (clc.try_cancel " +
                     at(first_line) +
                     ") bring 16 bytes, 16 of each try_cancel "
                     "response; the phase would never complete. Announce exactly the bytes they bring");
}

// Wrong counts the pass cannot decide: bytes known only at run time, and an announcement by a
// warp rather than one thread.
struct UndecidedAnnouncements : Script {
  void operator()(Int32 n, Ptr<f16> a) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(a, {32, 64});
    auto s = shared_tensor<f16>({32, 64});
    auto by_thread = mbarrier.alloc({1});
    auto by_warp = mbarrier.alloc({32});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(by_thread[0], n * 16);
      tma.global_to_shared(g, s, {0, 0}, by_thread[0]);
    });
    single_warp([&] {
      mbarrier.arrive_and_expect_tx(by_warp[0], 16);
      tma.global_to_shared(g, s, {0, 0}, by_warp[0]);
    });
  }
};

TEST(CheckTransactionBytes, LeavesAnnouncementsItCannotCountAlone) {
  const ir::Kernel k = traced<UndecidedAnnouncements>();
  EXPECT_EQ(passes::check_transaction_bytes(k, {}), k);
}

}  // namespace
}  // namespace tessel::testing
