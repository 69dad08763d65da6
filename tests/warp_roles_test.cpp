// Warp specialization: a thread group's sync() as a named barrier of its warps, setmaxnreg,
// fast_divmod by grid constants and range(..., unroll), on the simulator (every completion order),
// in the emitted CUDA, through NVRTC, and the user's mistakes at their lines.
#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <set>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/fast_divmod.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel::testing {
namespace {

using sim::CompletionOrder;

int line = 0;

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

struct Order {
  std::string label;
  sim::Options options;
};

std::vector<Order> every_order() {
  return {
      {"eager", {.completion = CompletionOrder::Eager}},
      {"lazy", {.completion = CompletionOrder::Lazy}},
      {"seed 1", {.seed = 1}},
      {"seed 2", {.seed = 2}},
      {"seed 3", {.seed = 3}},
      {"seed 4", {.seed = 4}},
  };
}

// ---- a thread group's sync() ----

// Two roles of two warps each transpose their own 8x8 block of x through shared memory. The
// transposed read takes elements the role's other warp stored, so each role needs its own
// barrier between the store and the load; neither role waits for the other.
struct TwoRolesTransposeApart : Script {
  void operator()(Int32 rounds, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s = shared_tensor<float>({2, 8, 8});
    auto g_x = global_view(x, {16, 8});
    auto g_y = global_view(y, {16, 8});
    for (int role = 0; role < 2; ++role)
      thread_group(64 * role, 64, [&] {
        for (Int32 round : range(0, rounds)) {
          auto tile = load_global(g_x, {8 * role, 0}, {8, 8});
          store_shared(s[role], tile + cast<float>(round));
          sync();
          store_global(g_y, load_shared(s[role].transpose()) * 2.0f, {8 * role, 0});
          sync();  // the next round overwrites the tile the other warp may still be reading
        }
      });
  }
};

TEST(WarpRoles, TwoRolesEachSynchronizeTheirOwnWarps) {
  std::vector<float> host(128);
  std::mt19937 rng(7);
  for (float& v : host) v = float(int(rng() % 200) - 100);
  const int rounds = 3;
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    Buffer<float> x(Device::simulator(), host), y(Device::simulator(), std::vector<float>(128, 0.0f));
    simulate<TwoRolesTransposeApart>(order.options, rounds, x, y);
    const auto out = y.download();
    for (int role = 0; role < 2; ++role)
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c)
          ASSERT_EQ(out[size_t((8 * role + r) * 8 + c)], (host[size_t((8 * role + c) * 8 + r)] + rounds - 1) * 2.0f)
              << role << " " << r << " " << c;
  }
}

TEST(WarpRoles, EachGroupThatSynchronizesGetsANamedBarrier) {
  Kernel<TwoRolesTransposeApart> k(Device::simulator());
  Buffer<float> x(Device::simulator(), std::vector<float>(128, 0.0f));
  const std::string ir = ir::print(*k.lowered(1, x, x));
  EXPECT_TRUE(file_check(ir, R"(
    CHECK: thread_group(begin=0, count=64) {
    CHECK: sync barrier=1
    CHECK: sync barrier=1
    CHECK: thread_group(begin=64, count=64) {
    CHECK: sync barrier=2
    CHECK: sync barrier=2
  )")) << ir;
  const std::string cuda = k.cuda_source(1, x, x);
  EXPECT_TRUE(file_check(cuda, R"(
    CHECK: if (tessel_warp >= 0 && tessel_warp < 2) {
    CHECK: // sync: named barrier 1 [warps 0..1]
    CHECK-NEXT: asm volatile("bar.sync %0, %1;" :: "n"(1), "n"(64) : "memory");
    CHECK: if (tessel_warp >= 2 && tessel_warp < 4) {
    CHECK: asm volatile("bar.sync %0, %1;" :: "n"(2), "n"(64) : "memory");
  )")) << cuda;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<TwoRolesTransposeApart>(Device::simulator(), KernelOptions{arch}).cubin(1, x, x).empty())
        << arch;
}

// Scalars are per thread: `producer` is 1 in warp 0 only, so warp 0 skips the sync() of the role
// of warps 0..1 and the role's barrier never completes.
struct ARoleSyncOneOfItsWarpsNeverReaches : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    Int32 producer = 0;
    single_warp([&] { producer = 1; });
    thread_group(0, 64, [&] {
      if_(producer == 0, [&] {
        line = __LINE__ + 1;
        sync();
      });
    });
    thread_group(64, 64, [&] { sync(); });
  }
};

TEST(WarpRoles, ARoleSyncThatPartOfTheRoleNeverReachesIsADeadlockNamingTheBarrier) {
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    const std::string got = simulation_error<ARoleSyncOneOfItsWarpsNeverReaches>(order.options, 1);
    EXPECT_EQ(got,
              loc(line) +
                  ": deadlock in block (0, 0, 0) of kernel ARoleSyncOneOfItsWarpsNeverReaches: every warp is "
                  "blocked or finished and nothing can release the waiting ones\n"
                  "  warp 0 (threads 0..31): finished\n"
                  "  warp 1 (threads 32..63): waiting at sync() of barrier 1 at " +
                  loc(line) +
                  " (32 of its 32 threads arrived)\n"
                  "  warp 2 (threads 64..95): finished\n"
                  "  warp 3 (threads 96..127): finished\n"
                  "  barrier 1: 32 of 64 threads arrived; the sync() of a thread group must be reached by every warp "
                  "of the group (is it inside a branch that only some of them take?)");
  }
}

// Sixteen distinct groups would need barriers 1..16; the block has 0..15.
struct SixteenGroupsSynchronize : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 32;
    for (int warps = 1; warps <= 16; ++warps) thread_group(0, 32 * warps, [&] { line = __LINE__, sync(); });
  }
};

TEST(WarpRoles, RunningOutOfNamedBarriersIsReportedAtTheSync) {
  const std::string got = error_of<SixteenGroupsSynchronize>(1);
  EXPECT_EQ(got, loc(line) +
                     ": sync() in the thread group of threads 0..511 needs a named barrier, but the 16 of a block "
                     "are taken: barrier 0 by the block's sync() and one by each of 15 other thread groups that "
                     "call sync(); synchronize fewer distinct groups");
}

// ---- setmaxnreg ----

// The seeds' warp-specialized shape: a producer warpgroup gives registers back, two consumer
// warpgroups take them, and each consumer synchronizes its own warps.
struct ProducerAndConsumers : Script {
  void operator()(Int32 n, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 12;
    auto s = shared_tensor<float>({2, 16, 8});
    warp_group(0, [&] { setmaxnreg.decrease(40); });
    for (int consumer = 1; consumer <= 2; ++consumer)
      warp_group(consumer, [&] {
        setmaxnreg.increase(232);
        store_shared(s[consumer - 1], register_tensor<float>({16, 8}, float(consumer)));
        sync();
        store_global(global_view(y, {16, 16}), load_shared(s[consumer - 1].transpose()), {8 * (consumer - 1), 0});
      });
  }
};

TEST(WarpRoles, SetmaxnregRunsPerWarpgroupAndFixesTheRegisterCountAtEntry) {
  Buffer<float> y(Device::simulator(), std::vector<float>(256, 0.0f));
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    simulate<ProducerAndConsumers>(order.options, 1, y);
    const auto out = y.download();
    for (int i = 0; i < 256; ++i) ASSERT_EQ(out[size_t(i)], float(i / 128 + 1)) << i;
  }
  Kernel<ProducerAndConsumers> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string cuda = k.cuda_source(1, y);
  EXPECT_TRUE(file_check(cuda, R"(
    CHECK: __global__ void __launch_bounds__(384, 1) tessel_ProducerAndConsumers(
    CHECK: if (tessel_warp >= 0 && tessel_warp < 4) {
    CHECK: // setmaxnreg.dec 40 [warps 0..3]
    CHECK-NEXT: asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(40));
    CHECK: if (tessel_warp >= 4 && tessel_warp < 8) {
    CHECK: asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(232));
    CHECK: asm volatile("bar.sync %0, %1;" :: "n"(1), "n"(128) : "memory");
    CHECK: if (tessel_warp >= 8 && tessel_warp < 12) {
    CHECK: asm volatile("bar.sync %0, %1;" :: "n"(2), "n"(128) : "memory");
  )")) << cuda;
  // ptxas honours setmaxnreg only when it can tell the register count at entry: with one block of
  // 384 threads per multiprocessor, each thread starts with 168 (it says C7508 and keeps its own,
  // much smaller count otherwise).
  const runtime::CompileResult r = runtime::compile_to_cubin(
      {cuda, "ProducerAndConsumers", "sm_90a", {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}});
  EXPECT_EQ(r.resources.registers, 168);
}

struct SetmaxnregInOneWarp : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 8;
    single_warp([&] {
      line = __LINE__ + 1;
      setmaxnreg.increase(232);
    });
  }
};

struct SetmaxnregOfAnOddCount : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    setmaxnreg.decrease(36);
  }
};

struct SetmaxnregOnAmpere : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    setmaxnreg.decrease(40);
  }
};

// An increase below the warpgroup's count (168 with 384 threads), and a decrease above the count
// its increase left, which PTX leaves undefined.
template <bool IncreaseFirst> struct SetmaxnregTheWrongWay : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 12;
    warp_group(1, [&] {
      if (IncreaseFirst) setmaxnreg.increase(200);
      line = __LINE__ + 1;
      IncreaseFirst ? setmaxnreg.decrease(232) : setmaxnreg.increase(160);
    });
  }
};

// Five warpgroups start with 96 registers per thread (65536 / 640, rounded down to a multiple of
// 8), so the 56 the producer releases cover four increases to 104 (40 + 4 x 104 = 456 of 480) but
// not to 112, which on the GPU wait forever.
template <int Increase> struct FiveWarpgroups : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 20;
    warp_group(0, [&] { setmaxnreg.decrease(40); });
    for (int consumer = 1; consumer <= 4; ++consumer)
      warp_group(consumer, [&] {
        line = __LINE__ + 1;
        setmaxnreg.increase(Increase);
      });
  }
};

TEST(WarpRoles, SetmaxnregMistakesAreReportedAtTheirLines) {
  EXPECT_EQ(SetmaxnregInstructions::registers_at_entry(640), 96);
  EXPECT_EQ(SetmaxnregInstructions::registers_at_entry(384), 168);
  const std::string overdrawn = error_of<FiveWarpgroups<112>>(1);
  EXPECT_EQ(overdrawn,
            loc(line) +
                ": kernel FiveWarpgroups_112: setmaxnreg.increase(112): the block's 5 warpgroups start with 96 "
                "registers per thread (640 threads share 65536), 480 in all, and after every setmaxnreg would hold "
                "488 (40 + 112 + 112 + 112 + 112); an increase takes only registers that decreases released, so on "
                "the GPU it would wait forever: lower the increases or the decreases' counts");
  EXPECT_NO_THROW(simulate<FiveWarpgroups<104>>({}, 1));
  const std::string below = error_of<SetmaxnregTheWrongWay<false>>(1);
  EXPECT_EQ(below, loc(line) +
                       ": kernel SetmaxnregTheWrongWay_false: setmaxnreg.increase(160) in warpgroup 1, which holds "
                       "168 registers per thread there (384 threads share 65536): an increase cannot ask fewer "
                       "registers than the warpgroup holds (the GPU's behaviour is undefined); call "
                       "setmaxnreg.decrease");
  const std::string above = error_of<SetmaxnregTheWrongWay<true>>(1);
  EXPECT_EQ(above, loc(line) +
                       ": kernel SetmaxnregTheWrongWay_true: setmaxnreg.decrease(232) in warpgroup 1, which holds "
                       "200 registers per thread there (after its earlier setmaxnreg): a decrease cannot ask more "
                       "registers than the warpgroup holds (the GPU's behaviour is undefined); call "
                       "setmaxnreg.increase");

  std::string got = error_of<SetmaxnregInOneWarp>(1);
  EXPECT_EQ(got, loc(line) +
                     ": setmaxnreg.increase(232) in a thread group of threads 0..31: setmaxnreg is executed by "
                     "whole warpgroups (128 threads starting at a multiple of 128), since every warp of a "
                     "warpgroup must run it together; call it in warp_group(i, ...)");
  got = error_of<SetmaxnregOfAnOddCount>(1);
  EXPECT_EQ(got, loc(line) + ": setmaxnreg.decrease(36): the register count must be a multiple of 8 from 24 to 256");
  try {
    Kernel<SetmaxnregOnAmpere>(Device::simulator(), KernelOptions{"sm_80"}).cuda_source(1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              loc(line) + ": setmaxnreg needs sm_90a or newer; the kernel is compiled for sm_80");
  }
}

// Scalars are per thread: only thread 0 takes the branch, so one lane of warp 0 runs setmaxnreg.
struct SetmaxnregInABranchOfOneThread : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    Int32 first = 0;
    single_thread([&] { first = 1; });
    if_(first == 1, [&] {
      line = __LINE__ + 1;
      setmaxnreg.decrease(40);
    });
  }
};

TEST(WarpRoles, SetmaxnregOnPartOfAWarpIsReportedByTheSimulator) {
  const std::string got = error_of<SetmaxnregInABranchOfOneThread>(1);
  EXPECT_EQ(got, loc(line) +
                     ": setmaxnreg.decrease is executed by every thread of a warpgroup together, but warp 0 "
                     "of block (0, 0, 0) reaches it with 1 of its 32 threads (is it inside an if_ or loop that "
                     "splits the warp?)");
}

// ---- fast_divmod ----

TEST(WarpRoles, MagicNumbersDivideEveryValueExactly) {
  std::mt19937 rng(3);
  std::vector<uint32_t> divisors = {
      1,         2, 3, 5, 7, 10, 641, 1u << 16, (1u << 16) + 1, INT32_MAX, 1u << 31, (1u << 31) + 1, UINT32_MAX - 1,
      UINT32_MAX};
  for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 32) | 1u);
  std::vector<uint32_t> values = {0, 1, 2, INT32_MAX, 1u << 31, UINT32_MAX - 1, UINT32_MAX};
  for (int i = 0; i < 200; ++i) values.push_back(rng() >> (rng() % 32));
  for (uint32_t d : divisors) {
    const ir::DivisorMagic magic = ir::divisor_magic(d);
    for (uint32_t x : {d - 1, d, d + 1, 2 * d - 1, 2 * d}) values.push_back(x);
    for (uint32_t x : values) {
      ASSERT_EQ(ir::fast_divide(x, magic), x / d) << x << " / " << d;
      if (d <= uint32_t(INT32_MAX)) {
        const auto sx = int32_t(x);
        ASSERT_EQ(ir::fast_divide(sx, magic), sx / int32_t(d)) << sx << " / " << d;
      }
    }
    values.resize(values.size() - 5);
  }
}

// Divides `count` values x = i * a + b (wrapping, so random a and b spread them over the whole
// range) by a grid-constant divisor, twice: once through a variable declared from the parameter.
template <class T> struct DividesByAGridConstant : Script {
  void operator()(Int32 count, Var<T> a, Var<T> b, Var<T> divisor, Ptr<T> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(out, {count, 4});
    Var<T> d = divisor;
    single_thread([&] {
      for (Int32 i : range(0, count)) {
        Var<T> x = cast<T>(i) * a + b;
        auto [q, r] = fast_divmod(x, d);
        auto [q2, r2] = fast_divmod(x + 1, divisor);
        store_global(g, register_tensor<T>({1, 1}, q), {i, 0});
        store_global(g, register_tensor<T>({1, 1}, r), {i, 1});
        store_global(g, register_tensor<T>({1, 1}, q2), {i, 2});
        store_global(g, register_tensor<T>({1, 1}, r2), {i, 3});
      }
    });
  }
};

template <class T> void check_fast_divmod(T a, T b, T d, const sim::Options& options) {
  const int count = 64;
  Buffer<T> out(Device::simulator(), std::vector<T>(count * 4, T(0)));
  simulate<DividesByAGridConstant<T>>(options, count, a, b, d, out);
  const auto got = out.download();
  for (int i = 0; i < count; ++i) {
    const auto x = T(uint32_t(i) * uint32_t(a) + uint32_t(b));
    const auto x1 = T(uint32_t(x) + 1u);
    ASSERT_EQ(got[size_t(i * 4)], T(x / d)) << x << " / " << d;
    ASSERT_EQ(got[size_t(i * 4 + 1)], T(x % d)) << x << " % " << d;
    ASSERT_EQ(got[size_t(i * 4 + 2)], T(x1 / d)) << x1 << " / " << d;
    ASSERT_EQ(got[size_t(i * 4 + 3)], T(x1 % d)) << x1 << " % " << d;
  }
}

TEST(WarpRoles, FastDivmodMatchesDivisionAndRemainder) {
  std::mt19937 rng(11);
  const std::vector<int32_t> divisors = {1, 2, 3, 7, 64, 1000, 65537, INT32_MAX};
  for (const Order& order : every_order()) {
    SCOPED_TRACE(order.label);
    for (int32_t d : divisors) {
      check_fast_divmod<int32_t>(int32_t(rng()), int32_t(rng()), d, order.options);
      check_fast_divmod<uint32_t>(rng(), rng(), uint32_t(d), order.options);
    }
    check_fast_divmod<uint32_t>(rng(), rng(), UINT32_MAX, order.options);
    check_fast_divmod<uint32_t>(rng(), rng(), (1u << 31) + 3, order.options);
    check_fast_divmod<int32_t>(int32_t(rng()), int32_t(rng()), int32_t(rng() >> 1) | 1, order.options);
  }
  // Edge values: x from 0 up, from INT32_MIN up, and down from the top of each type.
  for (int32_t d : divisors) {
    check_fast_divmod<int32_t>(1, 0, d, {});
    check_fast_divmod<int32_t>(1, INT32_MIN, d, {});
    check_fast_divmod<int32_t>(-1, INT32_MAX, d, {});
    check_fast_divmod<int32_t>(-1, -1, d, {});
    check_fast_divmod<uint32_t>(1, 0, uint32_t(d), {});
    check_fast_divmod<uint32_t>(UINT32_MAX, UINT32_MAX, uint32_t(d), {});
  }
}

TEST(WarpRoles, FastDivmodPassesTheDivisorAndItsMagicNumbersOnce) {
  Kernel<DividesByAGridConstant<int32_t>> k(Device::simulator());
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(4, 0));
  const std::string ir = ir::print(*k.lowered(1, 1, 0, 3, out));
  EXPECT_TRUE(file_check(ir, R"(
    CHECK: kernel DividesByAGridConstant_int(%arg0: i32, %arg1: i32, %arg2: i32 [multiple of 16], %arg3: i32, %arg4: ptr<i32> [16-byte aligned], %divisor: i32, %divisor_multiplier: u32, %divisor_log2: u32)
    CHECK-NEXT: // %divisor = fast_divmod divisor %arg3, at launch
    CHECK-NEXT: // %divisor_multiplier = fast_divmod multiplier of %arg3, at launch
    CHECK-NEXT: // %divisor_log2 = fast_divmod ceil(log2) of %arg3, at launch
    CHECK: %v.2, %v.3 = fast_divmod(%v.1, %divisor) magic=(%divisor_multiplier, %divisor_log2)
    CHECK: %v.4, %v.5 = fast_divmod(add(%v.1, 1), %divisor) magic=(%divisor_multiplier, %divisor_log2)
  )")) << ir;
  const std::string cuda = k.cuda_source(1, 1, 0, 3, out);
  EXPECT_TRUE(file_check(cuda, R"(
    CHECK: uint32_t divisor_multiplier, uint32_t divisor_log2)
    CHECK: v_2 = tessel_fast_divide(v_1, divisor_multiplier, divisor_log2);  // fast_divmod (
    CHECK-NEXT: v_3 = v_1 - v_2 * divisor;
  )")) << cuda;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    Buffer<uint32_t> unsigned_out(Device::simulator(), std::vector<uint32_t>(4, 0));
    Kernel<DividesByAGridConstant<uint32_t>> u(Device::simulator(), KernelOptions{arch});
    EXPECT_FALSE(u.cubin(1, 1u, 0u, 3u, unsigned_out).empty()) << arch;
  }
}

// The round and the block of each tile of a persistent schedule: tile / multiprocessors and
// tile % multiprocessors.
struct DividesByTheMultiprocessors : Script {
  void operator()(Int32 tiles, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(out, {tiles, 2});
    single_thread([&] {
      for (Int32 t : range(0, tiles)) {
        auto [round, block] = fast_divmod(t, multiprocessors);
        store_global(g, register_tensor<int32_t>({1, 1}, round), {t, 0});
        store_global(g, register_tensor<int32_t>({1, 1}, block), {t, 1});
      }
    });
  }
};

TEST(WarpRoles, FastDivmodByTheMultiprocessors) {
  const int tiles = 50;
  for (int multiprocessors : {3, 1, 7}) {
    Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(2 * tiles, -1));
    simulate<DividesByTheMultiprocessors>({.multiprocessors = multiprocessors}, tiles, out);
    const auto got = out.download();
    for (int t = 0; t < tiles; ++t) {
      ASSERT_EQ(got[size_t(2 * t)], t / multiprocessors) << t << " / " << multiprocessors;
      ASSERT_EQ(got[size_t(2 * t + 1)], t % multiprocessors) << t << " % " << multiprocessors;
    }
  }
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(2, 0));
  const std::string ir = ir::print(*Kernel<DividesByTheMultiprocessors>(Device::simulator()).lowered(1, out));
  EXPECT_TRUE(file_check(ir, R"(
    CHECK: %divisor_log2: u32)
    CHECK-NEXT: // %divisor = fast_divmod divisor multiprocessors, at launch
  )")) << ir;
}

// Seed 000's tile rasterization: blocks walk the tiles in groups of `Swizzle` columns, dividing
// by grid constants (the tiles of a group, the width of the last group, chosen at run time so
// that it is never 0) and by the compile-time group width.
template <int Swizzle> struct RasterizedTiles : Script {
  int swizzle_size = Swizzle;

  std::pair<Int32, Int32> compute_block_coord(const Int32& linear_idx, const Int32& num_m_blocks,
                                              const Int32& num_n_blocks) {
    Int32 tiles_per_group = num_m_blocks * swizzle_size;
    auto [group_idx, in_group_idx] = fast_divmod(linear_idx, tiles_per_group);
    Int32 first_n = group_idx * swizzle_size;
    Int32 m_block = 0, n_block = 0;
    Int32 remainder = num_n_blocks - num_n_blocks / swizzle_size * swizzle_size;
    Int32 last_group_width = select(remainder > 0, remainder, swizzle_size);
    if_(first_n + swizzle_size <= num_n_blocks, [&] {
      auto [q, r] = fast_divmod(in_group_idx, swizzle_size);
      m_block = q;
      n_block = first_n + r;
    }).else_([&] {
      auto [q, r] = fast_divmod(in_group_idx, last_group_width);
      m_block = q;
      n_block = first_n + r;
    });
    return {m_block, n_block};
  }

  void operator()(Int32 m_size, Int32 n_size, Ptr<int32_t> out) {
    Int32 num_m_blocks = cdiv(m_size, 16);
    Int32 num_n_blocks = cdiv(n_size, 16);
    attrs.blocks = num_m_blocks * num_n_blocks;
    attrs.warps = 1;
    auto [m_block, n_block] = compute_block_coord(Int32(blockIdx.x), num_m_blocks, num_n_blocks);
    single_thread([&] {
      auto g = global_view(out, {num_m_blocks * num_n_blocks, 2});
      store_global(g, register_tensor<int32_t>({1, 1}, m_block), {blockIdx.x, 0});
      store_global(g, register_tensor<int32_t>({1, 1}, n_block), {blockIdx.x, 1});
    });
  }
};

template <int Swizzle> void check_rasterization(int m_size, int n_size) {
  const int num_m = (m_size + 15) / 16, num_n = (n_size + 15) / 16;
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(size_t(2 * num_m * num_n), -1));
  Kernel<RasterizedTiles<Swizzle>>(Device::simulator())(m_size, n_size, out);
  const auto got = out.download();
  std::set<std::pair<int, int>> tiles;
  for (int linear = 0; linear < num_m * num_n; ++linear) {
    const int tiles_per_group = num_m * Swizzle;
    const int first_n = linear / tiles_per_group * Swizzle, in_group = linear % tiles_per_group;
    const int width = first_n + Swizzle <= num_n ? Swizzle : num_n % Swizzle;
    ASSERT_EQ(got[size_t(2 * linear)], in_group / width) << linear;
    ASSERT_EQ(got[size_t(2 * linear + 1)], first_n + in_group % width) << linear;
    tiles.insert({got[size_t(2 * linear)], got[size_t(2 * linear + 1)]});
  }
  EXPECT_EQ(tiles.size(), size_t(num_m * num_n));  // every tile once
}

TEST(WarpRoles, SeedTileRasterizationDividesByGridConstants) {
  check_rasterization<4>(100, 100);  // 7 x 7 tiles: a last group 3 wide
  check_rasterization<4>(64, 128);   // 4 x 8 tiles: no partial group
  check_rasterization<3>(200, 70);   // 13 x 5 tiles
  check_rasterization<1>(40, 40);
  // Two grid-constant divisors, three derived parameters each; the constant one is plain / and %.
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(2, 0));
  Kernel<RasterizedTiles<4>> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(100, 100, out);
  EXPECT_EQ(lowered->derived_params.size(), 6u) << ir::print(*lowered);
  EXPECT_FALSE(k.cubin(100, 100, out).empty());
}

struct DividesByAConstant : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 four = 4;
    auto [q, r] = fast_divmod(n, 8);
    auto [q2, r2] = fast_divmod(n, four);
    single_thread([&] {
      auto g = global_view(out, {4});
      store_global(g, register_tensor<int32_t>({1}, q), {0});
      store_global(g, register_tensor<int32_t>({1}, r), {1});
      store_global(g, register_tensor<int32_t>({1}, q2), {2});
      store_global(g, register_tensor<int32_t>({1}, r2), {3});
    });
  }
};

TEST(WarpRoles, AConstantDivisorNeedsNoMagic) {
  Kernel<DividesByAConstant> k(Device::simulator());
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(4, 0));
  k(-45, out);
  EXPECT_EQ(out.download(), (std::vector<int32_t>{-5, -5, -11, -1}));
  const std::string cuda = k.cuda_source(-45, out);
  EXPECT_EQ(cuda.find("tessel_fast_divide("), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("(arg0 % 4)"), std::string::npos) << cuda;
}

struct DividesByAZeroParameter : Script {
  void operator()(Int32 n, Int32 d) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(n, d - 1);
  }
};

struct DividesByTheBlockIndex : Script {
  void operator()(Int32 n) {
    attrs.blocks = 2;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(n, blockIdx.x + 1);
  }
};

struct DividesByAnAssignedVariable : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 d = n;
    d = d + 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(n, d);
  }
};

struct DividesByZero : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(n, 0);
  }
};

TEST(WarpRoles, FastDivmodMistakesAreReportedAtTheirLines) {
  EXPECT_EQ(error_of<DividesByAZeroParameter>(5, 3), "no error");
  std::string got = error_of<DividesByAZeroParameter>(5, 1);
  EXPECT_EQ(got, loc(line) +
                     ": fast_divmod: the divisor is 0 at this launch of kernel DividesByAZeroParameter; it must be "
                     "positive (divide with / and % where it can be 0 or negative)");
  got = error_of<DividesByTheBlockIndex>(5);
  EXPECT_EQ(got, loc(line) +
                     ": fast_divmod: the divisor must be the same for the whole grid (computed on the host from the "
                     "kernel's parameters at launch), but it depends on blockIdx.x; divide with / and % instead");
  got = error_of<DividesByAnAssignedVariable>(5);
  EXPECT_EQ(got, loc(line) +
                     ": fast_divmod: the divisor must be the same for the whole grid (computed on the host from the "
                     "kernel's parameters at launch), but it depends on the kernel variable created at " +
                     loc(line - 3) + ", which is assigned or is a loop's variable; divide with / and % instead");
  got = error_of<DividesByZero>(5);
  EXPECT_EQ(got, loc(line) + ": fast_divmod: the divisor is 0");
}

// ---- range(..., unroll) ----

struct UnrolledLoop : Script {
  void operator()(Int32 n, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto acc = register_tensor<float>({32}, 0.0f);
    for (Int32 k : range(0, n, 1, 4)) acc = acc + 1.0f;
    store_global(global_view(y, {32}), acc, {0});
  }
};

TEST(WarpRoles, RangeUnrollIsAPragmaOnTheEmittedLoop) {
  Buffer<float> y(Device::simulator(), std::vector<float>(32, 0.0f));
  Kernel<UnrolledLoop> k(Device::simulator());
  EXPECT_TRUE(file_check(k.cuda_source(10, y), R"(
    CHECK: #pragma unroll 4
    CHECK-NEXT: for (int32_t i = 0; i < arg0; i += 1) {
  )")) << k.cuda_source(10, y);
  k(10, y);
  EXPECT_EQ(y.download(), std::vector<float>(32, 10.0f));
}

}  // namespace
}  // namespace tessel::testing
