// What an atomic load reads on the simulator: any write that the PTX model's coherence order lets it
// read. Data passed in relaxed atomics behind a relaxed flag reads its old value where nothing orders
// the load after the write (the oldest with lazy completion, the newest with eager); a release and an
// acquire, fences, a sync() or the thread's own write order it; a warp that reads again never reads an
// older write; and a plain store begins the location's history anew.
#include <gmock/gmock.h>

#include <random>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

using ::testing::AnyOf;
using ::testing::Eq;

sim::Options with_order(sim::CompletionOrder order, uint64_t seed = 0) {
  return sim::Options{.seed = seed, .completion = order};
}

// Block 0 writes `payload` into `data` with a relaxed atomic store, then sets the flag; block 1
// waits for the flag, then reads `data` with a relaxed atomic load into `copy`. How the flag and
// the fences order the two is what each instance tests.
template <MemoryOrder FlagStore, MemoryOrder FlagLoad, bool Fences> struct AtomicPayloadBehindAFlag : Script {
  void operator()(Int32 payload, Ptr<int32_t> data, Ptr<int32_t> flag, Ptr<int32_t> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto data_view = global_view(data, {1});
    auto flag_view = global_view(flag, {1});
    single_thread([&] {
      if_(blockIdx.x == 0, [&] {
        atomic.store(data_view, {0}, payload);
        if (Fences) fence.acq_rel();
        atomic.store(flag_view, {0}, 1, FlagStore);
      }).else_([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, FlagLoad); });
        if (Fences) fence.acq_rel();
        atomic.store(global_view(copy, {1}), {0}, atomic.load<int32_t>(data_view, {0}));
      });
    });
  }
};

struct Payload {
  int32_t before, written;
};
Payload random_payload() {
  static std::mt19937 rng(20261129);
  std::uniform_int_distribution<int32_t> d(1, 1 << 29);  // sums of two stay below 2^31
  const int32_t before = d(rng);
  return {before, before + d(rng)};
}

template <class S> int32_t copied_payload(const sim::Options& o, const Payload& p) {
  Buffer<int32_t> data(Device::simulator(), std::vector<int32_t>{p.before}),
      flag(Device::simulator(), std::vector<int32_t>{0}), copy(Device::simulator(), std::vector<int32_t>{-1});
  simulate<S>(o, p.written, data, flag, copy);
  return copy.download()[0];
}

using RelaxedFlag = AtomicPayloadBehindAFlag<MemoryOrder::relaxed, MemoryOrder::relaxed, false>;

TEST(AtomicCoherence, ARelaxedFlagLetsTheLoadReadTheValueBeforeThePayload) {
  const Payload p = random_payload();
  for (const sim::Options& o :
       {with_order(sim::CompletionOrder::Lazy), two_blocks_together(with_order(sim::CompletionOrder::Lazy))})
    EXPECT_EQ(copied_payload<RelaxedFlag>(o, p), p.before) << sim::schedule_name(o);
  EXPECT_EQ(copied_payload<RelaxedFlag>(with_order(sim::CompletionOrder::Eager), p), p.written);
  for (const sim::Options& o : every_order())
    EXPECT_THAT(copied_payload<RelaxedFlag>(two_blocks_together(o), p), AnyOf(Eq(p.before), Eq(p.written)))
        << sim::schedule_name(o);
}

TEST(AtomicCoherence, AReleaseAndAnAcquireOrFencesMakeTheLoadReadThePayload) {
  const Payload p = random_payload();
  for (const sim::Options& o : every_order())
    for (const sim::Options& together : {o, two_blocks_together(o)}) {
      EXPECT_EQ(
          (copied_payload<AtomicPayloadBehindAFlag<MemoryOrder::release, MemoryOrder::acquire, false>>(together, p)),
          p.written)
          << sim::schedule_name(together);
      EXPECT_EQ(
          (copied_payload<AtomicPayloadBehindAFlag<MemoryOrder::relaxed, MemoryOrder::relaxed, true>>(together, p)),
          p.written)
          << sim::schedule_name(together);
    }
}

// Block 0 stores 1, 2, ..., Stores into `x`, relaxed; block 1 reads `x` Stores times into `seen`.
template <int Stores> struct RepeatedReads : Script {
  void operator()(Ptr<int32_t> x, Ptr<int32_t> seen) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto x_view = global_view(x, {1});
    single_thread([&] {
      if_(blockIdx.x == 0, [&] {
        for (int i = 1; i <= Stores; ++i) atomic.store(x_view, {0}, i);
      }).else_([&] {
        for (int i = 0; i < Stores; ++i)
          atomic.store(global_view(seen, {Stores}), {i}, atomic.load<int32_t>(x_view, {0}));
      });
    });
  }
};

std::vector<int32_t> repeated_reads(const sim::Options& o) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>{0}),
      seen(Device::simulator(), std::vector<int32_t>(6, -1));
  simulate<RepeatedReads<6>>(o, x, seen);
  return seen.download();
}

TEST(AtomicCoherence, AWarpThatReadsAgainReadsANewerWriteUntilTheNewest) {
  // Blocks one after the other: every store is in coherence order before the first read, and the
  // reader sees them one by one (lazy) or the last at once (eager).
  EXPECT_THAT(repeated_reads(with_order(sim::CompletionOrder::Lazy)), ::testing::ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(repeated_reads(with_order(sim::CompletionOrder::Eager)), ::testing::ElementsAre(6, 6, 6, 6, 6, 6));
  for (const sim::Options& o : every_order())
    for (const sim::Options& together : {o, two_blocks_together(o)}) {
      const std::vector<int32_t> seen = repeated_reads(together);
      for (size_t i = 0; i < seen.size(); ++i) {
        EXPECT_THAT(seen[i], ::testing::AllOf(::testing::Ge(0), ::testing::Le(6))) << sim::schedule_name(together);
        if (i > 0) EXPECT_GE(seen[i], seen[i - 1]) << sim::schedule_name(together) << ", read " << i;
      }
    }
}

// A thread reads its own atomic store; a warp reads, after a sync(), another warp's; and after a
// plain store ordered before it, what the plain store wrote.
struct OrderedReads : Script {
  void operator()(Int32 value, Ptr<int32_t> x, Ptr<int32_t> y, Ptr<int32_t> seen) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto x_view = global_view(x, {1});
    auto y_view = global_view(y, {1});
    auto seen_view = global_view(seen, {3});
    thread_group(0, 32, [&] {
      single_thread([&] {
        atomic.store(x_view, {0}, value);
        atomic.store(seen_view, {0}, atomic.load<int32_t>(x_view, {0}));
        atomic.store(y_view, {0}, value + 1);
      });
    });
    sync();
    thread_group(32, 32,
                 [&] { single_thread([&] { atomic.store(seen_view, {1}, atomic.load<int32_t>(y_view, {0})); }); });
    sync();
    store_global(y_view, register_tensor<int32_t>({1}, 0) + value + 2, {0});
    sync();
    thread_group(32, 32,
                 [&] { single_thread([&] { atomic.store(seen_view, {2}, atomic.load<int32_t>(y_view, {0})); }); });
  }
};

TEST(AtomicCoherence, AWriteOrderedBeforeTheLoadIsTheOldestItReads) {
  const int32_t value = random_payload().written;
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>{-5}), y(Device::simulator(), std::vector<int32_t>{-6}),
        seen(Device::simulator(), std::vector<int32_t>(3, -1));
    simulate<OrderedReads>(o, value, x, y, seen);
    EXPECT_THAT(seen.download(), ::testing::ElementsAre(value, value + 1, value + 2)) << sim::schedule_name(o);
  }
}

// Warp 0 stores a shared flag; warp 1 loads it with nothing ordering the two: the load may read the
// bytes from before the store, which nothing wrote.
struct LoadsASharedFlagNothingOrders : Script {
  static inline int tile_line = 0, load_line = 0;
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    tile_line = __LINE__ + 1;
    auto flag = shared_tensor<int32_t>({1});
    thread_group(0, 32, [&] { single_thread([&] { atomic.store(flag, {0}, 1); }); });
    thread_group(32, 32, [&] {
      single_thread([&] {
        load_line = __LINE__ + 1;
        atomic.store(global_view(out, {1}), {0}, atomic.load<int32_t>(flag, {0}));
      });
    });
  }
};

TEST(AtomicCoherence, ALoadThatMayReadSharedBytesFromBeforeTheirFirstWriteIsReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>{-1});
  const std::string got = simulation_error<LoadsASharedFlagNothingOrders>(with_order(sim::CompletionOrder::Lazy), out);
  using K = LoadsASharedFlagNothingOrders;
  EXPECT_EQ(got, fmt::format("{0}:{1}: atomic load of shared memory that was never written: the allocation at {0}:{2}, "
                             "byte 0 of the allocation, read by thread 32 of block (0, 0, 0); an atomic write to it is "
                             "not ordered before this load, which may read what the bytes held before that write: "
                             "order the write before the load (a sync(), an mbarrier handoff, or a release this load "
                             "acquires)",
                             __FILE__, K::load_line, K::tile_line));
  simulate<LoadsASharedFlagNothingOrders>(with_order(sim::CompletionOrder::Eager), out);
  EXPECT_EQ(out.download()[0], 1);
}

}  // namespace
}  // namespace tessel::testing
