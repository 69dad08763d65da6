// wgmma on the simulator against host references under every completion order, the misuse that
// tracing, the verifier and the simulator report, and the CUDA and cubins the code generator
// makes of it.
#include <regex>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "wgmma_kernels.hpp"

namespace tessel::testing {
namespace {

std::vector<KernelOptions> every_order() {
  std::vector<KernelOptions> orders;
  KernelOptions eager, lazy;
  eager.sim_completion = sim::CompletionOrder::Eager;
  lazy.sim_completion = sim::CompletionOrder::Lazy;
  orders = {eager, lazy};
  for (uint64_t seed : {1, 2, 3}) orders.push_back(KernelOptions{"", seed});
  return orders;
}

TEST(Wgmma, SharedOperandsMatchTheHostReference) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 64, 8, 16, false>(o);
    check_wgmma_tile<f16, 64, 64, 64, false>(o);
    check_wgmma_tile<bf16, 64, 128, 32, false>(o);
    check_wgmma_tile<f16, 64, 256, 64, false>(o);
  }
}

TEST(Wgmma, RegisterAMatchesTheHostReference) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 64, 8, 16, true>(o);
    check_wgmma_tile<bf16, 64, 64, 64, true>(o);
    check_wgmma_tile<f16, 64, 128, 32, true>(o);
    check_wgmma_tile<f16, 64, 256, 64, true>(o);
  }
}

TEST(Wgmma, RepeatsOverRowsAndWarpgroups) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 128, 64, 64, false>(o);        // one warpgroup, two m64 instructions
    check_wgmma_tile<f16, 128, 32, 32, true, 8>(o);      // two warpgroups
    check_wgmma_tile<bf16, 256, 16, 16, false, 8>(o);    // two warpgroups, two m64 each
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

TEST(WgmmaMisuse, TouchingTheAccumulatorBeforeTheWaitIsReportedUnderEveryOrder) {
  for (const KernelOptions& o : every_order()) {
    Operands x;
    std::string got = "no error";
    try {
      Kernel<StoresTheAccumulatorEarly>(Device::simulator(), o)(x.a, x.b, x.c);
    } catch (const Error& e) {
      got = e.what();
    }
    // Which warp gets there first depends on the order.
    got = std::regex_replace(got, std::regex("warp [0-3] of"), "warp W of");
    EXPECT_EQ(got, fmt::format("{0}:{1}: register tile r (created at {0}:{2}) is the accumulator of the wgmma.mma "
                               "issued at {0}:{3}, which may still be running (warp W of block (0, 0, 0)); wait for "
                               "it with wgmma.wait_group before touching it",
                               __FILE__, line + 2, acc_line, line));
  }
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
  EXPECT_NE(got.find("; wait for it with wgmma.wait_group first"), std::string::npos) << got;
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
            fmt::format("{0}:{1}: wgmma.mma: register tile r (created at {0}:{2}) was accessed at {0}:{2} since the "
                        "last wgmma.fence(); call wgmma.fence() between other accesses to an mma's accumulator or "
                        "register A and the mma",
                        __FILE__, line, acc_line));
}

}  // namespace
}  // namespace tessel::testing
