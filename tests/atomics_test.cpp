// Atomics and reductions across warps on the simulator (atomics_kernels.hpp) under every order, the
// memory model's verdicts on flags (release/acquire, relaxed, scopes), and misuse.
#include <algorithm>

#include <gmock/gmock.h>

#include "atomics_kernels.hpp"
#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

using ::testing::HasSubstr;

TEST(Atomics, OnePassColumnSums) {
  for (const sim::Options& o : every_order()) {
    check_column_sums<int32_t>(Device::simulator(), 61, o);
    check_column_sums<float>(Device::simulator(), 61, two_blocks_together(o));
  }
}

TEST(Atomics, TicketsArePermutations) {
  for (const sim::Options& o : every_order()) check_tickets(Device::simulator(), two_blocks_together(o));
}

TEST(Atomics, MinMaxBitwiseAndClaims) {
  for (const sim::Options& o : every_order()) check_combine_and_claim(Device::simulator(), two_blocks_together(o));
}

TEST(Atomics, ReleaseAndAcquireHandADataTileBetweenBlocks) {
  for (const sim::Options& o : every_order()) {
    check_flag_handoff<0>(Device::simulator(), o);
    check_flag_handoff<0>(Device::simulator(), two_blocks_together(o));
    check_flag_handoff<1>(Device::simulator(), two_blocks_together(o));
  }
}

// The race is reported at the reader's load, naming the writer's store, and then the flag's access
// that orders nothing.
std::string handoff_race(const std::string& remedy) {
  const std::string load = source_at("tests/atomics_kernels.hpp", "load_global(global_view(data, {64}), {0}, {64})");
  return load + ": data race on global memory, byte 0 of a 256-byte allocation: the load_global at " + load +
         " by warp 0 of block (1, 0, 0) is not ordered after the store_global at " +
         source_at("tests/atomics_kernels.hpp", "store_global(global_view(data, {64}), register_tensor") +
         " by warp 0 of block (0, 0, 0); " + remedy;
}

TEST(Atomics, ARelaxedFlagOrdersNothing) {
  Buffer<float> data(Device::simulator(), std::vector<float>(64, -1.0f)),
      copy(Device::simulator(), std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
  const std::string load =
      "atomic load at " + source_at("tests/atomics_kernels.hpp", "seen = atomic.load<int32_t>(flag_view, {0}, Acquire");
  const std::string store =
      "atomic store at " + source_at("tests/atomics_kernels.hpp", "atomic.store(flag_view, {0}, 1, Release, Scope)");
  EXPECT_EQ((simulation_error<FlagHandoff<0, MemoryOrder::relaxed>>(sim::Options{}, data, flag, copy)),
            handoff_race("the " + load + " read what the " + store +
                         " wrote, but a relaxed write releases nothing: write with MemoryOrder::release, or call "
                         "fence.acq_rel() before the write, with a scope that includes the reader"));
  flag.upload(std::vector<int32_t>{0});
  EXPECT_EQ(
      (simulation_error<FlagHandoff<0, MemoryOrder::release, MemoryOrder::relaxed>>(sim::Options{}, data, flag, copy)),
      handoff_race("the " + load +
                   " saw it released, but a relaxed read acquires nothing: read with MemoryOrder::acquire, or call "
                   "fence.acq_rel() after the read"));
}

TEST(Atomics, AFlagOfBlockScopeOrdersNothingBetweenBlocks) {
  Buffer<float> data(Device::simulator(), std::vector<float>(64, -1.0f)),
      copy(Device::simulator(), std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
  const std::string load = source_at("tests/atomics_kernels.hpp", "seen = atomic.load<int32_t>");
  const std::string store = source_at("tests/atomics_kernels.hpp", "atomic.store(flag_view, {0}, 1, Release, Scope)");
  EXPECT_EQ((simulation_error<FlagHandoff<0, MemoryOrder::release, MemoryOrder::acquire, MemoryScope::cta>>(
                sim::Options{}, data, flag, copy)),
            load + ": data race on global memory, byte 0 of a 4-byte allocation: the atomic load at " + load +
                " by warp 0 of block (1, 0, 0) and the atomic store at " + store +
                " by warp 0 of block (0, 0, 0) are atomics that do not exclude each other: the scope cta of the "
                "atomic load at " +
                load +
                " by warp 0 of block (1, 0, 0) does not include the other's thread (PTX memory model: atomics are "
                "atomic with each other only when each one's scope includes the other's thread); give both a scope "
                "that includes both threads, such as MemoryScope::gpu");
}

TEST(Atomics, WaitingForABlockLaunchedLaterIsAnEndlessSpin) {
  Buffer<float> data(Device::simulator(), std::vector<float>(64, -1.0f)),
      copy(Device::simulator(), std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
  EXPECT_EQ(simulation_error<FlagHandoff<1>>(sim::Options{}, data, flag, copy),
            source_at("tests/atomics_kernels.hpp", "seen = atomic.load<int32_t>") +
                ": deadlock: the running warps spin on atomic reads that see nothing change (warp 0 of block (0, 0, "
                "0) at " +
                source_at("tests/atomics_kernels.hpp", "seen = atomic.load<int32_t>") +
                "), and no other warp or asynchronous operation can change what they read. The simulator runs a "
                "grid's blocks group after group in launch order (sim::Options::blocks_per_group), so a block may "
                "wait only for blocks launched before it, as on a GPU that cannot hold every block at once");
}

TEST(ReductionsAcrossWarps, RowsSpanningEveryWarpAndAWarpgroup) {
  for (const sim::Options& o : every_order()) {
    check_rows_across_warps<float>(Device::simulator(), o);
    check_rows_across_warps<int32_t>(Device::simulator(), o);
  }
}

struct WrongValueType : Script {
  void operator()(Ptr<uint32_t> counter) {
    attrs.blocks = 1;
    attrs.warps = 1;
    single_thread([&] { atomic.add(global_view(counter, {1}), {0}, 1); });
  }
};

struct ReleasingLoad : Script {
  void operator()(Ptr<int32_t> flag) {
    attrs.blocks = 1;
    attrs.warps = 1;
    single_thread([&] { atomic.load<int32_t>(global_view(flag, {1}), {0}, MemoryOrder::release); });
  }
};

struct AcquiringReduction : Script {
  void operator()(Ptr<int32_t> flag) {
    attrs.blocks = 1;
    attrs.warps = 1;
    atomic.add(global_view(flag, {32}), register_tensor<int32_t>({32}, 1), {0}, MemoryOrder::acquire);
  }
};

struct MinOfFloats : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    atomic.min(global_view(x, {32}), register_tensor<float>({32}, 1.0f), {0});
  }
};

struct FetchFromReplicas : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32, 32}), {0, 0}, {32, 32});
    store_global(global_view(y, {1, 32}), atomic.fetch_add(global_view(y, {1, 32}), sum(t, 0), {0, 0}), {0, 0});
  }
};

TEST(Atomics, MisuseIsReportedAtTheUsersLine) {
  Buffer<uint32_t> counter(Device::simulator(), std::vector<uint32_t>{0});
  EXPECT_EQ(error_of<WrongValueType>(counter),
            source_at("tests/atomics_test.cpp", "atomic.add(global_view(counter, {1}), {0}, 1)") +
                ": atomic.add: the global view holds u32 but the value is i32; pass a value of u32");
  Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>(32, 0));
  EXPECT_EQ(
      error_of<ReleasingLoad>(flag),
      source_at("tests/atomics_test.cpp", "atomic.load<int32_t>(global_view(flag, {1}), {0}, MemoryOrder::release)") +
          ": atomic.load: a load cannot release (order release); a load is relaxed or acquire");
  EXPECT_EQ(error_of<AcquiringReduction>(flag),
            source_at("tests/atomics_test.cpp", "atomic.add(global_view(flag, {32}), register_tensor") +
                ": atomic.add: an atomic whose old value is not returned reads nothing to acquire (order acquire); "
                "use fetch_add to acquire, or order relaxed or release");
  Buffer<float> x(Device::simulator(), std::vector<float>(1024, 1.0f)), y(Device::simulator(), std::vector<float>(32));
  EXPECT_EQ(error_of<MinOfFloats>(x),
            source_at("tests/atomics_test.cpp", "atomic.min(global_view(x, {32})") +
                ": atomic.min: no atomic min on f32 elements; PTX has it for i32, u32, i64 and u64");
  EXPECT_THAT(error_of<FetchFromReplicas>(x, y),
              HasSubstr("holds each element in several threads, but only one of them may combine it and receive the "
                        "old value; use the form that returns nothing, or give the values a layout without replicas"));
}

// A thread group of 48 threads: its second warp is split, so no barrier can gather its warps.
struct ReductionInASplitWarp : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 2;
    thread_group(0, 48, [&] {
      auto t = load_global(global_view(x, {48}), {0}, {48}, Layout::spatial({48}));
      store_global(global_view(x, {1}), sum(t, 0), {0});
    });
  }
};

TEST(ReductionsAcrossWarps, AGroupThatSplitsAWarpIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(48, 1.0f));
  EXPECT_EQ(error_of<ReductionInASplitWarp>(x),
            source_at("tests/atomics_test.cpp", "store_global(global_view(x, {1}), sum(t, 0), {0})") +
                ": sum over dim 0: the threads spanning that dimension in layout[48](d0=48; threads=d0.0; local=-) "
                "cross a warp boundary unevenly; choose a layout whose threads along dim 0 fill whole warps");
}

// NVRTC and ptxas accept every atomic form and the reductions across warps on every target.
TEST(Atomics, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const KernelOptions options{arch};
    int32_t* i = nullptr;
    uint32_t* u = nullptr;
    float* f = nullptr;
    EXPECT_GT(Kernel<ColumnSums<float>>(Device::simulator(), options).cubin(64, f, f).size(), 0u) << arch;
    EXPECT_GT(Kernel<Tickets>(Device::simulator(), options).cubin(u, u, u).size(), 0u) << arch;
    EXPECT_GT(Kernel<CombineAndClaim>(Device::simulator(), options).cubin(i, i, u, i, i).size(), 0u) << arch;
    EXPECT_GT(Kernel<FlagHandoff<0>>(Device::simulator(), options).cubin(f, i, f).size(), 0u) << arch;
    EXPECT_GT(Kernel<RowsAcrossWarps<float>>(Device::simulator(), options).cubin(f, f, f, f).size(), 0u) << arch;
  }
}

// The old values of a fetch_add reshaped before they are stored: the reshape gives its operand a
// layout backward, which once put the coalescing default's copies on them (refused), where nothing
// pins a layout; they keep one thread an element, and every ticket is taken once.
struct TicketsThroughAReshape : Script {
  void operator()(Ptr<int32_t> counter, Ptr<int32_t> old) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto ones = register_tensor<int32_t>({64}, 1);
    auto tickets = atomic.fetch_add(global_view(counter, {64}, {0}), ones, {0});
    store_global(global_view(old, {1, 64}), reshape(tickets, {1, 64}), {0, 0});
  }
};

TEST(Atomics, TheOldValuesOfAFetchAddKeepOneThreadAnElementThroughAReshape) {
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> counter(Device::simulator(), std::vector<int32_t>{17}),
        old(Device::simulator(), std::vector<int32_t>(64, -1));
    simulate<TicketsThroughAReshape>(o, counter, old);
    std::vector<int32_t> got = old.download();
    std::sort(got.begin(), got.end());
    for (int i = 0; i < 64; ++i) ASSERT_EQ(got[size_t(i)], 17 + i);
    EXPECT_EQ(counter.download(), std::vector<int32_t>{81});
  }
}

}  // namespace
}  // namespace tessel::testing
