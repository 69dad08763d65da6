// mbarriers and proxy fences: a producer/consumer ring synchronized by mbarriers alone on the
// simulator under several orders, the misuse reported at trace time and at run time, the
// deadlock report with every barrier's state, and the PTX the code generator emits.
#include <random>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

std::string loc(int line) { return fmt::format("{}:{}", __FILE__, line); }
int line_a = 0, line_b = 0, line_c = 0, line_d = 0;  // lines of the kernels below, recorded as they trace

// Warp 0 fills a ring of `stages` shared chunks; warps 1 and 2 each read every chunk and write it,
// scaled by 1 and by 2, to their own output. `full[s]` (one arrival: the producer's) says chunk s
// holds data, `empty[s]` (one arrival per consumer warp) that both consumers are done with it. The
// producer starts at parity 1, so it passes its first wait on every fresh empty barrier.
struct MbarrierRing : Script {
  int stages = 2, chunk = 32;
  void operator()(Int32 chunks, Ptr<float> in, Ptr<float> out1, Ptr<float> out2) {
    attrs.blocks = 1;
    attrs.warps = 3;
    auto ring = shared_tensor<float>({stages, chunk});
    auto full = mbarrier.alloc(std::vector<int>(size_t(stages), 1));
    auto empty = mbarrier.alloc(std::vector<int>(size_t(stages), 2));
    thread_group(0, 32, [&] {
      Int32 stage = 0;
      UInt32 phase = mbarrier.producer_initial_phase;
      for (Int32 k : range(0, chunks)) {
        mbarrier.wait(empty[stage], phase);
        auto t = load_global(global_view(in, {chunks * chunk}), {k * chunk}, {chunk});
        store_shared(ring[stage], t);
        single_thread([&] { mbarrier.arrive(full[stage]); });
        stage = (stage + 1) % stages;
        phase ^= stage == 0;
      }
    });
    for (int consumer = 1; consumer <= 2; ++consumer) {
      thread_group(32 * consumer, 32, [&] {
        Int32 stage = 0;
        UInt32 phase = mbarrier.consumer_initial_phase;
        for (Int32 k : range(0, chunks)) {
          mbarrier.wait(full[stage], phase);
          auto t = load_shared(ring[stage]);
          store_global(global_view(consumer == 1 ? out1 : out2, {chunks * chunk}), t * float(consumer), {k * chunk});
          single_thread([&] { mbarrier.arrive(empty[stage]); });
          stage = (stage + 1) % stages;
          phase ^= stage == 0;
        }
      });
    }
  }
};

void check_ring(const sim::Options& options, int chunks) {
  std::mt19937 rng{uint32_t(chunks)};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> in(size_t(chunks) * 32);
  for (float& x : in) x = dist(rng);
  Buffer<float> din(Device::simulator(), in), out1(Device::simulator(), std::vector<float>(in.size(), 0.0f)),
      out2(Device::simulator(), std::vector<float>(in.size(), 0.0f));
  simulate<MbarrierRing>(options, chunks, din, out1, out2);
  const auto got1 = out1.download(), got2 = out2.download();
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(got1[i], in[i]) << i;
    ASSERT_EQ(got2[i], 2 * in[i]) << i;
  }
}

TEST(Mbarrier, ProducerConsumerRingUnderEveryOrder) {
  for (int chunks : {1, 2, 7}) {
    check_ring(sim::Options{.completion = sim::CompletionOrder::Eager}, chunks);
    check_ring(sim::Options{.completion = sim::CompletionOrder::Lazy}, chunks);
    for (uint64_t seed : {1, 2, 3, 41}) check_ring(sim::Options{.seed = seed}, chunks);
  }
}

// A consumer that starts at the producer's parity on a fresh "full" barrier: if it runs first it
// passes at once and reads the stage before the producer filled it; if the producer arrives first,
// the phase of parity 1 is the one in progress and the consumer waits forever.
struct ConsumerStartsAtTheProducersParity : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({32});
    auto full = mbarrier.alloc({1});
    thread_group(32, 32, [&] {
      mbarrier.wait(full[0], mbarrier.producer_initial_phase);
      store_global(global_view(out, {32}), load_shared(s), {0});
    });
    thread_group(0, 32, [&] {
      store_shared(s, register_tensor<float>({32}, 1.0f));
      single_thread([&] { mbarrier.arrive(full[0]); });
    });
  }
};

TEST(Mbarrier, AWaitOnTheWrongParityPassesEarlyOrHangs) {
  auto error_under = [](uint64_t seed) {
    try {
      Buffer<float> out(Device::simulator(), 32);
      simulate<ConsumerStartsAtTheProducersParity>(sim::Options{.seed = seed}, out);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string early = error_under(2), hang = error_under(0);
  EXPECT_NE(early.find("read of shared memory that was never written"), std::string::npos) << early;
  EXPECT_NE(hang.find("to complete its phase of parity 1\n  barrier 0 of the array allocated at"), std::string::npos)
      << hang;
}

// The exact parity rule: a fresh barrier is in phase 0, so a wait on parity 1 passes at once and a
// wait on parity 0 waits for phase 0 to complete; try_wait reads the same without blocking.
struct ParityOfAFreshBarrier : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({2});
    mbarrier.wait(bars[0], 1);
    Int32 flags = 0;
    flags += cast<int32_t>(mbarrier.try_wait(bars[0], 0));
    flags += 2 * cast<int32_t>(mbarrier.try_wait(bars[0], 1));
    single_thread([&] { mbarrier.arrive(bars[0]); });
    flags += 4 * cast<int32_t>(mbarrier.try_wait(bars[0], 0));
    single_thread([&] { mbarrier.arrive(bars[0]); });
    flags += 8 * cast<int32_t>(mbarrier.try_wait(bars[0], 0));
    flags += 16 * cast<int32_t>(mbarrier.try_wait(bars[0], 1));
    mbarrier.wait(bars[0], 0);
    store_global(global_view(out, {32}), register_tensor<int32_t>({32}, flags), {0});
  }
};

TEST(Mbarrier, AFreshBarrierCountsThePhaseBeforePhaseZeroAsCompleted) {
  for (uint64_t seed : {0, 5}) {
    Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(32, -1));
    simulate<ParityOfAFreshBarrier>(sim::Options{.seed = seed}, out);
    EXPECT_EQ(out.download(), std::vector<int32_t>(32, 2 + 8));
  }
}

// A try_wait loop written as the hardware needs it: the result is read inside the loop body.
struct TryWaitLoop : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({1});
    thread_group(0, 32, [&] {
      store_shared(s, register_tensor<float>({32}, 3.0f));
      single_thread([&] { mbarrier.arrive(bars[0]); });
    });
    thread_group(32, 32, [&] {
      Var<bool> done = false;
      while_([&] { return !done; }, [&] { done = mbarrier.try_wait(bars[0], mbarrier.consumer_initial_phase); });
      store_global(global_view(out, {32}), load_shared(s), {0});
    });
  }
};

TEST(Mbarrier, TryWaitLoopsUntilThePhaseCompletes) {
  for (uint64_t seed : {0, 1, 2, 3}) {
    Buffer<float> out(Device::simulator(), std::vector<float>(32, 0.0f));
    simulate<TryWaitLoop>(sim::Options{.seed = seed}, out);
    EXPECT_EQ(out.download(), std::vector<float>(32, 3.0f));
  }
}

// ---- misuse visible at trace time ----

float* no_data = nullptr;

template <class S> std::string trace_error(const char* arch) {
  try {
    Kernel<S>(Device::simulator(), KernelOptions{arch}).cuda_source(no_data);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

struct IndexOutOfRange : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_a = __LINE__ + 1;
    auto bars = mbarrier.alloc({1, 1});
    line_b = __LINE__ + 1;
    mbarrier.wait(bars[2], 0);
  }
};

TEST(Mbarrier, ATraceTimeIndexOutOfRangeIsReportedWhereItIsIndexed) {
  const std::string got = trace_error<IndexOutOfRange>("sm_90a");
  EXPECT_EQ(got, fmt::format("{}: barrier index 2 is out of range: the barrier array allocated at {} has 2 barriers",
                             loc(line_b), loc(line_a)));
}

struct ArriveCountZero : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line_a = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive(bars[0], 0); });
  }
};

TEST(Mbarrier, AnArrivalCountBelowOneIsReported) {
  const std::string got = trace_error<ArriveCountZero>("sm_90a");
  EXPECT_EQ(got, loc(line_a) + ": mbarrier.arrive: an arrival count of 0; it must be between 1 and 1048575");
}

struct ArriveCountTwo : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({2});
    line_a = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive(bars[0], 2); });
  }
};

TEST(Mbarrier, ACountedArrivalNeedsSm90a) {
  {
    const std::string got = trace_error<ArriveCountTwo>("sm_80");
    EXPECT_EQ(got, loc(line_a) +
                       ": mbarrier.arrive with a count other than 1 needs sm_90a or newer; the kernel is compiled "
                       "for sm_80");
  }
  {
    const std::string got = trace_error<ArriveCountTwo>("sm_90a");
    EXPECT_EQ(got, "no error");
  }
}

struct ExpectTxNotAMultipleOf16 : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line_a = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[0], 100); });
  }
};

struct ExpectTxNegative : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line_a = __LINE__ + 1;
    single_thread([&] { mbarrier.expect_tx(bars[0], -16); });
  }
};

TEST(Mbarrier, TransactionBytesMustBeWhole16ByteUnits) {
  {
    const std::string got = trace_error<ExpectTxNotAMultipleOf16>("sm_90a");
    EXPECT_EQ(got, loc(line_a) +
                       ": mbarrier.arrive_and_expect_tx: 100 transaction bytes; the count must be a multiple of 16 "
                       "(every bulk copy moves whole 16-byte units) between 0 and 1048575");
  }
  {
    const std::string got = trace_error<ExpectTxNegative>("sm_90a");
    EXPECT_EQ(got, loc(line_a) +
                       ": mbarrier.expect_tx: -16 transaction bytes; the count must be a multiple of 16 (every "
                       "bulk copy moves whole 16-byte units) between 0 and 1048575");
  }
}

TEST(Mbarrier, TransactionCountsNeedSm90a) {
  const std::string got = trace_error<ExpectTxNegative>("sm_80");
  EXPECT_EQ(got, loc(line_a) + ": mbarrier.expect_tx needs sm_90a or newer; the kernel is compiled for sm_80");
}

struct RelaxedWait : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    line_a = __LINE__ + 1;
    mbarrier.wait(bars[0], 1, WaitSemantics::relaxed);
  }
};

TEST(Mbarrier, AWaitOtherThanAcquireAtCtaScopeNeedsSm90a) {
  const std::string got = trace_error<RelaxedWait>("sm_80");
  EXPECT_EQ(got, loc(line_a) +
                     ": mbarrier.wait with relaxed semantics at cta scope needs sm_90a or newer; the kernel "
                     "is compiled for sm_80");
}

struct AllocCountZero : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_a = __LINE__ + 1;
    auto bars = mbarrier.alloc({1, 0});
  }
};

struct AllocInAThreadGroup : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 2;
    line_a = __LINE__ + 1;
    single_warp([&] { mbarrier.alloc({1}); });
  }
};

TEST(Mbarrier, AllocationMistakesAreReported) {
  {
    const std::string got = trace_error<AllocCountZero>("sm_90a");
    EXPECT_EQ(got, loc(line_a) +
                       ": mbarrier.alloc: a barrier expects 0 arrivals per phase; the count must be between 1 and "
                       "1048575");
  }
  {
    const std::string got = trace_error<AllocInAThreadGroup>("sm_90a");
    EXPECT_EQ(got, loc(line_a) +
                       ": mbarrier.alloc inside a thread group of threads 0..31: tessel initializes the barriers "
                       "and then syncs the whole block, which the threads outside the group never reach; allocate "
                       "the barriers outside the thread group");
  }
}

// The seeds' three allocation forms: a list of counts is an array (`alloc({1})`, indexed), one
// count is one barrier (`alloc(1)`), and no count is one barrier expecting every thread of the
// block. Each thread stores an element of an 8 x 8 tile and arrives on `everyone`; after the
// wait each reads the transposed element, which another warp's thread wrote for most of them:
// only a phase that waited for all 64 threads orders those reads after the writes.
struct AllocationForms : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto tile = shared_tensor<float>({8, 8});
    MbarrierArray array = mbarrier.alloc({1});
    Mbarrier one = mbarrier.alloc(1);
    Mbarrier everyone = mbarrier.alloc();
    store_shared(tile, load_global(global_view(in, {8, 8}), {0, 0}, {8, 8}, Layout::spatial({8, 8})));
    mbarrier.arrive(everyone);
    mbarrier.wait(everyone, mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 8}), load_shared(tile, {0, 0}, {8, 8}, Layout::column_spatial({8, 8})), {0, 0});
    single_thread([&] {
      mbarrier.arrive(array[0]);
      mbarrier.arrive(one);
    });
  }
};

TEST(Mbarrier, ACountListIsAnArrayOneCountOneBarrierAndNoCountTheBlocksThreads) {
  const ir::Kernel k = Kernel<AllocationForms>(Device::simulator(), KernelOptions{"sm_90a"}).traced(no_data, no_data);
  const std::string text = ir::print(*k);
  EXPECT_TRUE(file_check(text, R"(
    CHECK: %bars = alloc_shared<u64>[1]
    CHECK: mbarrier.alloc %bars counts=[1]
    CHECK: %bars.1 = alloc_shared<u64>[1]
    CHECK: mbarrier.alloc %bars.1 counts=[1]
    CHECK: %bars.2 = alloc_shared<u64>[1]
    CHECK: mbarrier.alloc %bars.2 counts=[64]
  )")) << text;
  std::mt19937 rng{7};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> in(64);
  for (float& x : in) x = dist(rng);
  Buffer<float> din(Device::simulator(), in);
  for (const sim::Options& o : every_order()) {
    Buffer<float> dout(Device::simulator(), std::vector<float>(64, -1.0f));
    simulate<AllocationForms>(o, din, dout);
    EXPECT_EQ(dout.download(), in) << sim::schedule_name(o);
  }
}

struct ProxyFence : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_a = __LINE__ + 1;
    fence.proxy_async();
  }
};

TEST(Mbarrier, AProxyFenceNeedsSm90a) {
  const std::string got = trace_error<ProxyFence>("sm_80");
  EXPECT_EQ(got, loc(line_a) + ": fence.proxy_async needs sm_90a or newer; the kernel is compiled for sm_80");
}

// ---- misuse the simulator reports ----

// The arrival runs unconditionally, which check_arrival_counts decides before running, or behind
// an if_ (`AtRunTime`), which leaves it to the simulator.
template <bool AtRunTime, class Arrive> void arrive_at(Script& s, const Arrive& arrive) {
  if (AtRunTime)
    s.if_(s.blockIdx.x == 0, arrive);
  else
    arrive();
}

template <bool AtRunTime> struct WholeWarpArrives : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    arrive_at<AtRunTime>(*this, [&] {
      line_a = __LINE__ + 1;
      mbarrier.arrive(bars[0]);
    });
  }
};

TEST(Mbarrier, ArrivalsSpillingIntoTheNextPhaseAreReported) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = error_of<WholeWarpArrives<true>>(unused);
  EXPECT_EQ(
      got, fmt::format("{}: mbarrier.arrive: thread 1 of block (0, 0, 0) arrives on barrier 0 of the array allocated "
                       "at {} after earlier threads of this same instruction completed its phase 0 (the barrier's "
                       "count is 1); every thread that executes it arrives: run it in single_thread(), or allocate the "
                       "barrier with the count of all arriving threads",
                       loc(line_a), loc(line_b)));
}

template <bool AtRunTime> struct ArrivesBeyondTheCount : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({2});
    single_thread([&] {
      arrive_at<AtRunTime>(*this, [&] {
        line_a = __LINE__ + 1;
        mbarrier.arrive(bars[0], 3);
      });
    });
  }
};

template <bool AtRunTime> struct EveryLaneExpectsTx : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    arrive_at<AtRunTime>(*this, [&] {
      line_a = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bars[0], 64);
    });
  }
};

TEST(Mbarrier, ArrivalsBeyondThePendingCountAreReported) {
  {
    Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
    const std::string got = error_of<ArrivesBeyondTheCount<true>>(unused);
    EXPECT_EQ(got,
              fmt::format(
                  "{}: mbarrier.arrive: thread 0 of block (0, 0, 0) arrives with a count of 3 on barrier 0 of "
                  "the array allocated at {}, which has 2 of its 2 arrivals left in phase 0; arrivals beyond the count "
                  "would complete a phase nobody waited for",
                  loc(line_a), loc(line_b)));
  }
  // The classic: arrive_and_expect_tx from every lane of a warp on a barrier that expects one.
  {
    Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
    const std::string got = error_of<EveryLaneExpectsTx<true>>(unused);
    EXPECT_EQ(got,
              fmt::format("{}: mbarrier.arrive_and_expect_tx: thread 1 of block (0, 0, 0) arrives with a count of 1 on "
                          "barrier 0 of the array allocated at {}, which has 0 of its 1 arrivals left in phase 0; "
                          "arrivals beyond the count "
                          "would complete a phase nobody waited for",
                          loc(line_a), loc(line_b)));
  }
}

// The same three, decided before running: one statement arrives on the barriers, outside any if_.
TEST(Mbarrier, ArrivalCountsThatDifferFromTheArrivingThreadsAreReportedBeforeRunning) {
  const std::string too_many_arrivals =
      "allocate the barriers with the count of every arrival, or, where fewer threads stand for all of them (a "
      "producer's one thread), run it in single_thread() or a smaller thread group; a release of data that every "
      "thread of the group read needs every thread's arrival";
  {
    const std::string got = error_of<WholeWarpArrives<false>>(no_data);
    EXPECT_EQ(got, fmt::format("{}: mbarrier.arrive: each time it runs, the 32 threads of its thread group arrive (32 "
                               "arrivals in all), but the barriers it arrives on (allocated at {}) expect 1 per phase, "
                               "and no other statement arrives on them; {}",
                               loc(line_a), loc(line_b), too_many_arrivals));
  }
  {
    const std::string got = error_of<ArrivesBeyondTheCount<false>>(no_data);
    EXPECT_EQ(got,
              fmt::format("{}: mbarrier.arrive: each time it runs, the 1 thread of its thread group arrives 3 "
                          "times (3 arrivals in all), but the barriers it arrives on (allocated at {}) expect 2 per "
                          "phase, and no other statement arrives on them; {}",
                          loc(line_a), loc(line_b), too_many_arrivals));
  }
  {
    const std::string got = error_of<EveryLaneExpectsTx<false>>(no_data);
    EXPECT_EQ(got, fmt::format("{}: mbarrier.arrive_and_expect_tx: each time it runs, the 32 threads of its thread "
                               "group arrive (32 arrivals in all), but the barriers it arrives on (allocated at {}) "
                               "expect 1 per phase, and no other statement arrives on them; {}",
                               loc(line_a), loc(line_b), too_many_arrivals));
  }
}

// Each pass, warp 1 passes over the arrival (continue_), so the 64-thread group's statement is 32
// arrivals a phase, as the barrier counts: the check leaves a loop with continue_ or break_ to the
// simulator, which runs the three phases.
struct OneWarpPassesOverTheArrival : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto bars = mbarrier.alloc({32});
    for (Int32 pass : range(0, 3)) {
      thread_group(32, 32, [&] { continue_(); });
      mbarrier.arrive(bars[0]);
      mbarrier.wait(bars[0], cast<uint32_t>(pass % 2));
    }
  }
};

TEST(Mbarrier, ArrivalsInALoopThatSomeThreadsPassOverAreLeftToTheSimulator) {
  Buffer<float> unused(Device::simulator(), 32);
  EXPECT_EQ(error_of<OneWarpPassesOverTheArrival>(unused), "no error");
}

struct RunTimeIndexOutOfRange : Script {
  void operator()(Int32 i, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({1, 1});
    line_a = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive(bars[i]); });
  }
};

TEST(Mbarrier, ARunTimeIndexOutOfRangeIsReported) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = error_of<RunTimeIndexOutOfRange>(2, unused);
  EXPECT_EQ(got, fmt::format("{}: barrier index 2 is out of range: the barrier array allocated at {} has 2 barriers "
                             "(thread 0 of block (0, 0, 0))",
                             loc(line_a), loc(line_b)));
}

struct AllocInALoop : Script {
  void operator()(Int32 n, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    for (Int32 i : range(0, n)) {
      line_a = __LINE__ + 1;
      auto bars = mbarrier.alloc({1});
    }
  }
};

TEST(Mbarrier, InitializingALiveBarrierAgainIsReported) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = error_of<AllocInALoop>(2, unused);
  EXPECT_EQ(got,
            fmt::format("{0}: mbarrier.alloc: barrier 0 of the array allocated at {0} is initialized a second time "
                        "(thread 0 of block (0, 0, 0)) while it is live since {0}; allocate barriers once, outside "
                        "loops",
                        loc(line_a)));
}

// ---- waits that can never complete ----

struct ConsumerWaitsForAnArrivalThatNeverComes : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 2;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({2, 1});
    single_thread([&] { mbarrier.arrive_and_expect_tx(bars[1], 64); });
    thread_group(32, 32, [&] {
      single_thread([&] { mbarrier.arrive(bars[0]); });
      line_a = __LINE__ + 1;
      mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    });
  }
};

TEST(Mbarrier, AWaitThatCanNeverCompleteGivesADeadlockReportWithEveryBarrier) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = error_of<ConsumerWaitsForAnArrivalThatNeverComes>(unused);
  EXPECT_EQ(got,
            fmt::format("{0}: deadlock in block (0, 0, 0) of kernel ConsumerWaitsForAnArrivalThatNeverComes: warp 1 "
                        "(threads 32..63) waits at {0} for phase 0 (parity 0) of barrier 0 of the array allocated at "
                        "{1}, which lacks 1 of its 2 arrivals, and nothing in flight and no other warp can provide "
                        "them; what completes phases of its array is mbarrier.arrive_and_expect_tx at {2} (thread 0, "
                        "finished), mbarrier.arrive at {3} (thread 32, waiting at {0}).\n"
                        "  every warp is blocked or finished and nothing can release the waiting ones\n"
                        "  warp 0 (threads 0..31): finished\n"
                        "  warp 1 (threads 32..63): waiting at {0} for barrier 0 of the array allocated at {1} to "
                        "complete its phase of parity 0\n"
                        "  barrier 0 of the array allocated at {1}: in phase 0 (parity 0), 1 of 2 arrivals pending, "
                        "tx-count 0\n"
                        "  barrier 1 of the array allocated at {1}: in phase 0 (parity 0), 0 of 1 arrivals pending, "
                        "tx-count 64",
                        loc(line_a), loc(line_b), loc(line_b + 1), loc(line_a - 2)));
}

// A one-stage ring filled by two producer warps, one arrival each per chunk, of which the second
// stops at half the chunks: the first producer then waits for the stage to be freed, and the
// consumer for a full barrier that has had one of its two arrivals. The report leads with the
// consumer's wait, where the arrivals fall short, not with the first producer's, which only waits
// for the consumer.
struct SecondProducerStopsEarly : Script {
  void operator()(Int32 chunks, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 3;
    line_b = __LINE__ + 1;
    auto full = mbarrier.alloc({2});
    auto empty = mbarrier.alloc({1});
    const auto produce = [&](int warp, const Int32& count) {
      thread_group(32 * warp, 32, [&] {
        UInt32 phase = mbarrier.producer_initial_phase;
        for (Int32 k : range(0, count)) {
          line_d = __LINE__ + 1;
          mbarrier.wait(empty[0], phase);
          line_c = __LINE__ + 1;
          single_thread([&] { mbarrier.arrive(full[0]); });
          phase ^= 1;
        }
      });
    };
    produce(0, chunks);
    produce(1, chunks / 2);
    thread_group(64, 32, [&] {
      UInt32 phase = mbarrier.consumer_initial_phase;
      for (Int32 k : range(0, chunks)) {
        line_a = __LINE__ + 1;
        mbarrier.wait(full[0], phase);
        store_global(global_view(out, {chunks * 32}), register_tensor<float>({32}, 1.0f), {k * 32});
        single_thread([&] { mbarrier.arrive(empty[0]); });
        phase ^= 1;
      }
    });
  }
};

TEST(Mbarrier, ADeadlockReportLeadsWithTheBarrierThatHadSomeOfItsArrivals) {
  Buffer<float> out(Device::simulator(), 4 * 32);
  const std::string got = error_of<SecondProducerStopsEarly>(4, out);
  EXPECT_EQ(got.substr(0, got.find('\n')),
            fmt::format("{0}: deadlock in block (0, 0, 0) of kernel SecondProducerStopsEarly: warp 2 "
                        "(threads 64..95) waits at {0} for phase 2 (parity 0) of barrier 0 of the array allocated at "
                        "{1}, which lacks 1 of its 2 arrivals, and nothing in flight and no other warp can provide "
                        "them; what completes phases of its array is mbarrier.arrive at {2} (thread 0, waiting at "
                        "{3}), mbarrier.arrive at {2} (thread 32, finished).",
                        loc(line_a), loc(line_b), loc(line_c), loc(line_d)));
}

struct SpinsOnTryWaitForever : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line_b = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    Var<bool> done = false;
    line_a = __LINE__ + 1;
    while_([&] { return !done; }, [&] { done = mbarrier.try_wait(bars[0], 0); });
  }
};

TEST(Mbarrier, ASpinOnTryWaitThatCannotEndIsADeadlock) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = error_of<SpinsOnTryWaitForever>(unused);
  EXPECT_EQ(got,
            fmt::format("{0}: deadlock in block (0, 0, 0) of kernel SpinsOnTryWaitForever: warp 0 (threads 0..31) "
                        "waits at {0} for phase 0 (parity 0) of barrier 0 of the array allocated at {1}, which lacks 1 "
                        "of its 1 arrivals, and nothing in flight and no other warp can provide them; no instruction "
                        "of the kernel arrives on it.\n"
                        "  every warp is blocked or finished and nothing can release the waiting ones\n"
                        "  warp 0 (threads 0..31): waiting at {0} (try_wait) for barrier 0 of the array allocated at "
                        "{1} to complete its phase of parity 0\n"
                        "  barrier 0 of the array allocated at {1}: in phase 0 (parity 0), 1 of 1 arrivals pending, "
                        "tx-count 0",
                        loc(line_a), loc(line_b)));
}

// ---- code generation ----

struct EveryMbarrierOperation : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto bars = mbarrier.alloc({1, 32});
    Int32 stage = 0;
    UInt32 phase = mbarrier.producer_initial_phase;
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 0);
      mbarrier.expect_tx(bars[stage], 0);
    });
    mbarrier.wait(bars[stage], phase ^ 1);
    mbarrier.wait(bars[0], 1, WaitSemantics::relaxed, WaitScope::cluster);
    thread_group(32, 32, [&] { mbarrier.arrive(bars[1]); });
    Var<bool> done = false;
    while_([&] { return !done; }, [&] { done = mbarrier.try_wait(bars[1], 0); });
    fence.proxy_async();
    fence.proxy_async(ProxySpace::all);
    single_thread([&] { mbarrier.arrive(bars[1], 2); });
    phase ^= stage == 0;
    store_global(global_view(out, {32}), register_tensor<float>({32}, 1.0f), {0});
  }
};

struct SmallestMbarrierKernel : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({32});
    mbarrier.arrive(bars[0]);
    UInt32 phase = mbarrier.consumer_initial_phase;
    mbarrier.wait(bars[0], phase);
    store_global(global_view(out, {32}), register_tensor<float>({32}, 1.0f), {0});
  }
};

TEST(Mbarrier, EmitsTheInitItsFenceAndTheSyncThenEveryOperation) {
  const std::string src =
      Kernel<EveryMbarrierOperation>(Device::simulator(), KernelOptions{"sm_90a"}).cuda_source(no_data);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // mbarrier init of 2 barriers
    CHECK: asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(uint32_t(__cvta_generic_to_shared(tessel_smem + 0 + 8 * (0)))), "r"(1) : "memory");
    CHECK: asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(uint32_t(__cvta_generic_to_shared(tessel_smem + 0 + 8 * (1)))), "r"(32) : "memory");
    CHECK-NEXT: asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    CHECK: __syncthreads();
    CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;
    CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;
    CHECK: { .reg .pred ready; TESSEL_WAIT_%=: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 ready, [%0], %1; @!ready bra TESSEL_WAIT_%=; }
    CHECK: mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 ready
    CHECK: mbarrier.arrive.shared::cta.b64 _, [%0];
    CHECK: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 tessel_try_%=, [%1], %2; selp.u32 %0, 1, 0, tessel_try_%=;
    CHECK: asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    CHECK: asm volatile("fence.proxy.async;" ::: "memory");
    CHECK: mbarrier.arrive.shared::cta.b64 _, [%0], %1;
  )")) << src;
  for (const char* arch : {"sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<EveryMbarrierOperation>(Device::simulator(), KernelOptions{arch}).cubin(no_data).empty())
        << arch;
}

TEST(Mbarrier, OnSm80TheInitNeedsNoFenceAndWaitsUseTestWait) {
  const std::string src =
      Kernel<SmallestMbarrierKernel>(Device::simulator(), KernelOptions{"sm_80"}).cuda_source(no_data);
  EXPECT_EQ(src.find("fence.mbarrier_init"), std::string::npos) << src;
  EXPECT_NE(src.find("mbarrier.test_wait.parity.shared::cta.b64 ready"), std::string::npos) << src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<SmallestMbarrierKernel>(Device::simulator(), KernelOptions{arch}).cubin(no_data).empty())
        << arch;
}

TEST(Mbarrier, TheRingCompilesForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_FALSE(
        Kernel<MbarrierRing>(Device::simulator(), KernelOptions{arch}).cubin(7, no_data, no_data, no_data).empty())
        << arch;
}

}  // namespace
}  // namespace tessel::testing
