// wgmma on the simulator against host references under every completion order, the misuse that
// tracing, the verifier and the simulator report, and the CUDA and cubins the code generator
// makes of it.
#include <regex>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/layout/wgmma_atoms.hpp"
#include "wgmma_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(Wgmma, SharedOperandsMatchTheHostReference) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_tile<f16, 64, 8, 16, false>(o);
    check_wgmma_tile<f16, 64, 64, 64, false>(o);
    check_wgmma_tile<bf16, 64, 128, 32, false>(o);
    check_wgmma_tile<f16, 64, 256, 64, false>(o);
  }
}

TEST(Wgmma, RegisterAMatchesTheHostReference) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_tile<f16, 64, 8, 16, true>(o);
    check_wgmma_tile<bf16, 64, 64, 64, true>(o);
    check_wgmma_tile<f16, 64, 128, 32, true>(o);
    check_wgmma_tile<f16, 64, 256, 64, true>(o);
  }
}

// An mma without accumulate ignores the accumulator's old value (1000 here), over one and several
// k-steps, in f16 and fp8.
TEST(Wgmma, AnMmaThatDoesNotAccumulateOverwrites) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_overwrite<f16, 64, 16>(o, Device::simulator());
    check_wgmma_overwrite<bf16, 128, 64>(o, Device::simulator());
    check_wgmma_overwrite<f8e4m3, 64, 128>(o, Device::simulator());
  }
}

// B as a row-major [k, n] tile, n of one swizzle span: 128, 64 and 32 bytes.
TEST(Wgmma, MnMajorBMatchesTheHostReference) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_mn_major_b<f16, 64, 64, false>(o);
    check_wgmma_mn_major_b<bf16, 64, 64, true>(o);  // attention's P V: P in registers, V as it lies
    check_wgmma_mn_major_b<bf16, 32, 32, false>(o);
    check_wgmma_mn_major_b<f16, 16, 16, true>(o);
  }
}

TEST(Wgmma, RepeatsOverRowsAndWarpgroups) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_tile<f16, 128, 64, 64, false>(o);      // one warpgroup, two m64 instructions
    check_wgmma_tile<f16, 128, 32, 32, true, 8>(o);    // two warpgroups
    check_wgmma_tile<bf16, 256, 16, 16, false, 8>(o);  // two warpgroups, two m64 each
  }
}

TEST(Wgmma, TwoStagePipelineMatchesTheHostReference) {
  for (const KernelOptions& o : testing::every_order_options()) {
    check_wgmma_kernel<WgmmaPipeline<f16, 64, 96>, f16, 64, 64, 96>(o);
    check_wgmma_kernel<WgmmaPipeline<bf16, 8, 64>, bf16, 64, 8, 64>(o);
  }
}

TEST(WgmmaMisuse, RefillingAStageAnotherWarpsMmaMayStillReadIsReported) {
  const KernelOptions lazy{.sim = {.completion = sim::CompletionOrder::Lazy}};
  try {
    check_wgmma_kernel<WgmmaPipeline<f16, 64, 96, false>, f16, 64, 64, 96>(lazy);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              testing::source_at("tests/wgmma_kernels.hpp", "copy_async(g_b, s_b[stage], {0, step * 16});") +
                  ": write of shared memory that a wgmma.mma issued at " +
                  testing::source_at("tests/wgmma_kernels.hpp", "wgmma.mma(s_a[stage], s_b[stage].transpose(), acc);") +
                  " may still be reading (thread 0 of block (0, 0, 0)); wait for it with wgmma.wait_group in the "
                  "warpgroup that issued it, before that warpgroup lets this write happen (the mbarrier arrival that "
                  "frees the stage, or a sync())");
  }
}

}  // namespace
}  // namespace tessel::testing

namespace tessel::testing {
namespace {

int line = 0, acc_line = 0;

// The operands of the misuse kernels: A [64, 16] and B [8, 16] in f16, C [64, 8] in f32.
struct Operands {
  Buffer<f16> a{Device::simulator(), std::vector<f16>(64 * 16, f16(1.0f))};
  Buffer<f16> b{Device::simulator(), std::vector<f16>(8 * 16, f16(1.0f))};
  Buffer<float> c{Device::simulator(), std::vector<float>(64 * 8, 0.0f)};
};

// A and B in shared tiles and a zero accumulator, made by WgmmaSetup::setup; the misuse follows.
struct Setup {
  SharedTensor s_a, s_b;
  RegisterTensor acc;
};

struct WgmmaSetup : Script {
  Setup setup(Ptr<f16> a, Ptr<f16> b) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 16});
    auto s_b = shared_tensor<f16>({8, 16});
    store_shared(s_a, load_global(global_view(a, {64, 16}), {0, 0}, {64, 16}));
    store_shared(s_b, load_global(global_view(b, {8, 16}), {0, 0}, {8, 16}));
    fence.proxy_async();
    sync();
    acc_line = __LINE__ + 1;
    return Setup{s_a, s_b, register_tensor<float>({64, 8}, 0.0f)};
  }
};

struct StoresTheAccumulatorEarly : WgmmaSetup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto [s_a, s_b, acc] = setup(a, b);
    wgmma.fence();
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
    wgmma.commit_group();
    store_global(global_view(c, {64, 8}), acc, {0, 0});
    wgmma.wait_group(0);
  }
};

// The error of a run of kernel S, with the warp that got there first (it depends on the order) as W.
template <class S> std::string error_with_any_warp(const KernelOptions& o = {}) {
  Operands x;
  try {
    Kernel<S>(Device::simulator(), o)(x.a, x.b, x.c);
  } catch (const Error& e) {
    return std::regex_replace(e.what(), std::regex("warp [0-3] of"), "warp W of");
  }
  return "no error";
}

// The report of a touch, two lines after the mma at `line`, of the accumulator while the mma runs.
std::string accumulator_touched_early() {
  return fmt::format(
      "{0}:{1}: the register tile created at {0}:{2} is the accumulator of the wgmma.mma issued at "
      "{0}:{3}, which may still be running (warp W of block (0, 0, 0)); wait for it with "
      "wgmma.wait_group before touching it",
      __FILE__, line + 2, acc_line, line);
}

TEST(WgmmaMisuse, TouchingTheAccumulatorBeforeTheWaitIsReportedUnderEveryOrder) {
  for (const KernelOptions& o : testing::every_order_options()) {
    const std::string got = error_with_any_warp<StoresTheAccumulatorEarly>(o);  // the run sets the lines
    EXPECT_EQ(got, accumulator_touched_early());
  }
}

// A slice is a read of the tile it slices.
struct SlicesTheAccumulatorEarly : WgmmaSetup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto [s_a, s_b, acc] = setup(a, b);
    wgmma.fence();
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
    wgmma.commit_group();
    auto early = acc.slice({0, 0}, {64, 8});
    wgmma.wait_group(0);
    store_global(global_view(c, {64, 8}), early, {0, 0});
  }
};

TEST(WgmmaMisuse, SlicingTheAccumulatorBeforeTheWaitIsReported) {
  const std::string got = error_with_any_warp<SlicesTheAccumulatorEarly>();  // the run sets the lines
  EXPECT_EQ(got, accumulator_touched_early());
}

struct OverwritesAnOperandEarly : WgmmaSetup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto [s_a, s_b, acc] = setup(a, b);
    wgmma.fence();
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
    wgmma.commit_group();
    store_shared(s_b, load_global(global_view(b, {8, 16}), {0, 0}, {8, 16}));
    wgmma.wait_group(0);
    store_global(global_view(c, {64, 8}), acc, {0, 0});
  }
};

TEST(WgmmaMisuse, OverwritingASharedOperandBeforeTheWaitIsReported) {
  Operands x;
  const std::string got = error_of<OverwritesAnOperandEarly>(x.a, x.b, x.c);
  EXPECT_EQ(got.substr(0, got.find(" (thread")),
            fmt::format("{0}:{1}: write of shared memory that a wgmma.mma issued at {0}:{2} may still be reading",
                        __FILE__, line + 2, line));
  EXPECT_NE(got.find("; wait for it with wgmma.wait_group in the warpgroup that issued it"), std::string::npos) << got;
}

// A warpgroup reads B with an mma and frees it through a barrier for warp 4 to refill: with
// `EarlyRelease`, the warpgroup arrives before its wgmma.wait_group; otherwise warp 5, which reads
// nothing, arrives in its place.
template <bool EarlyRelease> struct RefillsAStageItsMmaReads : Script {
  static inline int mma_line = 0, arrive_line = 0, wait_line = 0, refill_line = 0;
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 6;
    auto s_a = shared_tensor<f16>({64, 16});
    auto s_b = shared_tensor<f16>({8, 16});
    auto freed = mbarrier.alloc(1);
    warp_group(0, [&] {
      store_shared(s_a, load_global(global_view(a, {64, 16}), {0, 0}, {64, 16}));
      store_shared(s_b, load_global(global_view(b, {8, 16}), {0, 0}, {8, 16}));
      fence.proxy_async();
      sync();
      auto acc = register_tensor<float>({64, 8}, 0.0f);
      wgmma.fence();
      mma_line = __LINE__ + 1;
      wgmma.mma(s_a, s_b.transpose(), acc);
      wgmma.commit_group();
      arrive_line = __LINE__ + 1;
      if (EarlyRelease) single_thread([&] { mbarrier.arrive(freed); });
      wgmma.wait_group(0);
      store_global(global_view(c, {64, 8}), acc, {0, 0});
    });
    thread_group(128, 32, [&] {
      wait_line = __LINE__ + 1;
      mbarrier.wait(freed, 0);
      refill_line = __LINE__ + 1;
      store_shared(s_b, load_global(global_view(b, {8, 16}), {0, 0}, {8, 16}));
    });
    thread_group(160, 32, [&] {
      if (!EarlyRelease) single_thread([&] { mbarrier.arrive(freed); });
    });
  }
};

template <bool EarlyRelease> std::string refill_error() {
  Operands x;
  return testing::simulation_error<RefillsAStageItsMmaReads<EarlyRelease>>(
      sim::Options{.completion = sim::CompletionOrder::Lazy}, x.a, x.b, x.c);
}

TEST(WgmmaMisuse, ARefillAfterTheReadersArrivalBeforeItsWaitNamesTheArrival) {
  const std::string got = refill_error<true>();
  using K = RefillsAStageItsMmaReads<true>;
  EXPECT_EQ(got, fmt::format("{0}:{1}: write of shared memory that a wgmma.mma issued at {0}:{2} may still be reading "
                             "(thread 128 of block (0, 0, 0)); warp 0 arrived at {0}:{3} after it issued the mma, and "
                             "this write is ordered after that arrival: retire the mma with wgmma.wait_group before "
                             "the arrival that frees its stage",
                             __FILE__, K::refill_line, K::mma_line, K::arrive_line));
}

TEST(WgmmaMisuse, ARefillNotOrderedAfterTheMmaNamesTheWaitThatLetItThrough) {
  const std::string got = refill_error<false>();
  using K = RefillsAStageItsMmaReads<false>;
  EXPECT_EQ(got, fmt::format("{0}:{1}: write of shared memory that a wgmma.mma issued at {0}:{2} may still be reading "
                             "(thread 128 of block (0, 0, 0)); nothing orders this write after warp 0's issue of the "
                             "mma: the wait at {0}:{3} that this thread passed last did not wait for a release by "
                             "warp 0: check each wait's phase (parity), and that every warp that reads a stage "
                             "arrives on the barrier that frees it",
                             __FILE__, K::refill_line, K::mma_line, K::wait_line));
}

struct ForgetsTheFence : WgmmaSetup {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    auto [s_a, s_b, acc] = setup(a, b);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(c, {64, 8}), acc, {0, 0});
  }
};

TEST(WgmmaMisuse, AnMmaWithoutAFenceAfterRegisterAccessesIsReported) {
  Operands x;
  const std::string got = error_of<ForgetsTheFence>(x.a, x.b, x.c);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: wgmma.mma: the register tile created at {0}:{2} was accessed at {0}:{2} since the "
                        "last wgmma.fence(); call wgmma.fence() between other accesses to an mma's accumulator or "
                        "register A and the mma",
                        __FILE__, line, acc_line));
}

}  // namespace
}  // namespace tessel::testing

namespace tessel::testing {
namespace {

// One mma of A [M, K] by B [N, K] as the test writes them; the shapes and tiles are the misuse.
template <int M, int N, int K, int Warps = 4, class T = f16, class Acc = float> struct OneMma : Script {
  void operator()(Ptr<T> a, Ptr<T> b) {
    attrs.blocks = 1;
    attrs.warps = Warps;
    auto s_a = shared_tensor<T>({M, K});
    auto s_b = shared_tensor<T>({N, K});
    auto acc = register_tensor<Acc>({M, N}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
  }
};

template <class S, class T = f16> std::string trace_error() {
  try {
    Kernel<S>(Device::simulator()).cuda_source((T*)nullptr, (T*)nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string at_line(const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, line, message); }

TEST(WgmmaDiagnostics, ShapesOutsideTheInstructionSetAreReportedAtTheCall) {
  std::string got = trace_error<OneMma<32, 8, 16>>();
  EXPECT_EQ(got, at_line("wgmma.mma: m = 32 must be a multiple of 64 (64 rows for each of the 1 warpgroups of the "
                         "thread group)"));
  got = trace_error<OneMma<64, 64, 16, 8>>();
  EXPECT_EQ(got, at_line("wgmma.mma: m = 64 must be a multiple of 128 (64 rows for each of the 2 warpgroups of the "
                         "thread group)"));
  got = trace_error<OneMma<64, 12, 16>>();
  EXPECT_EQ(got, at_line("wgmma.mma: n = 12 is not a wgmma shape; n must be a multiple of 8 from 8 to 256"));
  got = trace_error<OneMma<64, 264, 16>>();
  EXPECT_EQ(got, at_line("wgmma.mma: n = 264 is not a wgmma shape; n must be a multiple of 8 from 8 to 256"));
  got = trace_error<OneMma<64, 8, 8>>();
  EXPECT_EQ(got, at_line("wgmma.mma: k = 8 does not fit; k must be 16, 32 or 64 (one m64nNk16 instruction per 16, "
                         "and shared rows of 32, 64 or 128 bytes, one swizzle span)"));
  got = trace_error<OneMma<64, 8, 128>>();
  EXPECT_EQ(got, at_line("wgmma.mma: k = 128 does not fit; k must be 16, 32 or 64 (one m64nNk16 instruction per 16, "
                         "and shared rows of 32, 64 or 128 bytes, one swizzle span)"));
}

TEST(WgmmaDiagnostics, TypesOtherThanHalvesIntoF32AreReported) {
  std::string got = trace_error<OneMma<64, 8, 16, 4, float>, float>();
  EXPECT_EQ(got, at_line("wgmma.mma: takes f16 or bf16 operands of one type, tf32 operands, or fp8 operands (f8e4m3, "
                         "f8e5m2, in any pairing), and an f32 accumulator; or 8-bit integer operands (i8, u8, in any "
                         "pairing) and an i32 accumulator; got f32 @ f32 into f32; the tensor cores read f32 as tf32: "
                         "shared tiles of tf32 take f32 data as it is (docs/language.md, \"tf32\")"));
  got = trace_error<OneMma<64, 8, 16, 4, f16, f16>>();
  EXPECT_EQ(got, at_line("wgmma.mma: takes f16 or bf16 operands of one type, tf32 operands, or fp8 operands (f8e4m3, "
                         "f8e5m2, in any pairing), and an f32 accumulator; or 8-bit integer operands (i8, u8, in any "
                         "pairing) and an i32 accumulator; got f16 @ f16 into f16"));
}

struct WaitsForTooManyGroups : Script {
  void operator()(Ptr<f16>, Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    wgmma.wait_group(8);
  }
};

TEST(WgmmaDiagnostics, AWaitForMoreThanSevenGroupsIsReported) {
  const std::string got = trace_error<WaitsForTooManyGroups>();
  EXPECT_EQ(got, at_line("wgmma.wait_group(8): the number of groups left running must be in 0..7"));
}

TEST(WgmmaDiagnostics, ThreadGroupsOfPartialWarpgroupsAreReported) {
  const std::string got = trace_error<OneMma<64, 8, 16, 2>>();
  EXPECT_EQ(got, at_line("wgmma.mma is executed by whole warpgroups (4 aligned warps, 128 threads), but it runs in a "
                         "thread group of threads 0..63; make the group start and end at multiples of 128 threads"));
}

struct BNotTransposed : Script {
  void operator()(Ptr<f16>, Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 16});
    auto s_b = shared_tensor<f16>({16, 8});
    auto acc = register_tensor<float>({64, 8}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b, acc);
  }
};

// A MN-major over 128 rows of m: k-rows of 256 bytes, two swizzle spans.
struct ATransposed : Script {
  void operator()(Ptr<f16>, Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto s_a = shared_tensor<f16>({64, 128});
    auto s_b = shared_tensor<f16>({64, 64});
    auto acc = register_tensor<float>({128, 64}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a.transpose(), s_b.transpose(), acc);
  }
};

struct UnswizzledOperand : Script {
  void operator()(Ptr<f16>, Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 64}, Swizzle::none);
    auto s_b = shared_tensor<f16>({64, 64});
    auto acc = register_tensor<float>({64, 64}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
  }
};

struct PinnedAccumulator : Script {
  void operator()(Ptr<f16>, Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 16});
    auto s_b = shared_tensor<f16>({8, 16});
    auto acc = register_tensor<float>({64, 8}, 0.0f, Layout::distributed({64, 8}, 128, 4));
    wgmma.fence();
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
  }
};

// B MN-major with rows of 256 bytes, more than a swizzle span.
struct WideMnMajorB : Script {
  void operator()(Ptr<f16> a, Ptr<f16> b) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 64});
    auto s_b = shared_tensor<f16>({64, 128});
    auto acc = register_tensor<float>({64, 128}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b, acc);
  }
};

TEST(WgmmaDiagnostics, AnMnMajorBWiderThanASwizzleSpanIsReported) {
  const std::string got = trace_error<WideMnMajorB>();
  EXPECT_EQ(got,
            at_line("wgmma.mma: an MN-major b [64, 128] has rows of 256 bytes; they must be one swizzle span, 32, 64 "
                    "or 128 bytes (n = 16, 32 or 64); give it as its 64-wide blocks, a shared tile [n / 64, k, 64] "
                    "(docs/language.md, \"MN-major operands\")"));
}

TEST(WgmmaDiagnostics, OperandsInTheWrongLayoutAreReported) {
  std::string got = trace_error<BNotTransposed>();
  EXPECT_EQ(got, at_line("wgmma.mma: an MN-major b [16, 8] has rows of 16 bytes; they must be one swizzle span, 32, "
                         "64 or 128 bytes (n = 16, 32 or 64); pass b K-major, as the transpose of a shared tile [n, k] "
                         "whose rows run along k (s_b.transpose())"));
  got = trace_error<ATransposed>();
  EXPECT_EQ(got, at_line("wgmma.mma: an MN-major a [128, 64] has rows of 256 bytes; they must be one swizzle span, 32, "
                         "64 or 128 bytes (m = 16, 32 or 64); give it as its 64-wide blocks, a shared tile [m / 64, k, "
                         "64] (docs/language.md, \"MN-major operands\")"));
  got = trace_error<UnswizzledOperand>();
  EXPECT_EQ(got, at_line(fmt::format("wgmma.mma: a has rows of 128 bytes, which wgmma.mma reads only with the 128-byte "
                                     "swizzle, but its shared tile (created at {}:{}) was given no swizzle; create it "
                                     "without a Swizzle argument or with Swizzle::b128",
                                     __FILE__, line - 4)));
  got = trace_error<PinnedAccumulator>();
  EXPECT_EQ(got, at_line(fmt::format("wgmma.mma: the accumulator (created at {}:{}) has the layout {}, but wgmma "
                                     "needs {}; create it without a layout argument and layout inference gives it the "
                                     "fragment",
                                     __FILE__, line - 3, Layout::distributed({64, 8}, 128, 4).str(),
                                     wgmma_m64nNk16_c(8).str())));
}

using SharedTile = WgmmaTile<f16, 64, 64, 64, false>;
using RegisterTile = WgmmaTile<bf16, 128, 32, 32, true, 8>;

TEST(WgmmaCodegen, EmitsDescriptorsAndTheInstructionsOfEachWarpgroup) {
  Kernel<SharedTile> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string src = k.cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: extern __shared__ __align__(1024) unsigned char tessel_smem[];
    CHECK: asm volatile("wgmma.fence.sync.aligned;" ::: "memory");  // wgmma.fence, by each warpgroup
    CHECK: // wgmma.mma SS m64n64k16 x 4, by each of 1 warpgroups
    CHECK: const int warpgroup = 0;
    CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1,
    CHECK-SAME: %31}, %32, %33, 1, 1, 1, 0, 0;
    CHECK-SAME: "l"((uint64_t(0x40000040u) << 32 | (0x10000u + (tessel_smem_base >> 4) + (uint32_t(0 + (
    CHECK: asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    CHECK: asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(0) : "memory");
    CHECK: asm volatile("// wgmma operand %0" : "+f"(
  )")) << src;
  Kernel<RegisterTile> rs(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string rs_src = rs.cuda_source((bf16*)nullptr, (bf16*)nullptr, (float*)nullptr);
  // Two warpgroups take their rows' offset from the warp index read at entry, which the compiler knows
  // is warp-uniform, so that their descriptors stay in uniform registers.
  EXPECT_TRUE(file_check(rs_src, R"(
    CHECK: const int tessel_warp = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);
    CHECK: // wgmma.mma RS m64n32k16 x 2, by each of 2 warpgroups
    CHECK: const int warpgroup = (tessel_warp - 0) / 4;
    CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0,
    CHECK-SAME: %15}, {%16, %17, %18, %19}, %20, 1, 1, 1, 0;
  )")) << rs_src;
}

TEST(WgmmaCodegen, CompilesForSm90aOnly) {
  EXPECT_FALSE(Kernel<SharedTile>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((f16*)nullptr, (f16*)nullptr, (float*)nullptr)
                   .empty());
  EXPECT_FALSE(Kernel<RegisterTile>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((bf16*)nullptr, (bf16*)nullptr, (float*)nullptr)
                   .empty());
  using WideTile = WgmmaTile<f16, 64, 256, 32, true>;
  EXPECT_FALSE(Kernel<WideTile>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((f16*)nullptr, (f16*)nullptr, (float*)nullptr)
                   .empty());
  for (const char* arch : {"sm_80", "sm_100a"}) {
    std::string got = "no error";
    try {
      Kernel<SharedTile>(Device::simulator(), KernelOptions{arch}).cubin((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
    } catch (const Error& e) {
      got = e.what();
    }
    const std::string want = std::string(arch) == "sm_80"
                                 ? "fence.proxy_async needs sm_90a or newer; the kernel is compiled for sm_80"
                                 : "wgmma.fence exists only on sm_90a (wgmma is not forward compatible; later targets "
                                   "have no wgmma); the kernel is compiled for sm_100a";
    EXPECT_NE(got.find("wgmma_kernels.hpp:"), std::string::npos) << got;
    EXPECT_NE(got.find(want), std::string::npos) << got;
  }
}

}  // namespace
}  // namespace tessel::testing
