// Attention's misuses, each an error at the user's line: P given to the RS wgmma of P V in a layout
// other than wgmma's register-A layout, Q and K of different head dimensions, and a K stage read
// before the barrier its TMA load completes. (P in wgmma's accumulator layout, or in mma.sync's,
// which is the same per warp, is no misuse: for 16-bit P it is register A's layout.)
#include <gtest/gtest.h>

#include <vector>

#include "expect_error.hpp"
#include "source_line.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

constexpr const char* kFile = "tests/attention_misuse_test.cpp";

// O += P V with P in rows of 16 consecutive elements per thread, as a row-wise softmax would leave it.
struct PInRowRuns : Script {
  void operator()(Ptr<float> x, Ptr<f16> v, Ptr<float> o) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto sv = shared_tensor<f16>({64, 64});
    copy_async(global_view(v, {64, 64}), sv, {0, 0});
    copy_async_wait_all();
    fence.proxy_async();
    sync();
    auto scores =
        load_global(global_view(x, {64, 64}), {0, 0}, {64, 64}, Layout::spatial({32, 4}) * Layout::local({2, 16}));
    auto acc = register_tensor<float>({64, 64}, 0.0f);
    auto p = scores.to<f16>();
    wgmma.fence();
    wgmma.mma(p, sv, acc);  // P V
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(o, {64, 64}), acc, {0, 0});
  }
};

// S = Q Kᵀ with Q of head dimension 64 and K of 128.
struct HeadDimsThatDisagree : Script {
  void operator()(Ptr<float> s_out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto sq = shared_tensor<f16>({64, 64});
    auto sk = shared_tensor<f16>({64, 128});
    auto s = register_tensor<float>({64, 64}, 0.0f);
    wgmma.fence();
    wgmma.mma(sq, sk.transpose(), s);  // Q Kᵀ
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(s_out, {64, 64}), s, {0, 0});
  }
};

// S = Q Kᵀ issued while the TMA loads of Q and K are in flight: the wait on their barrier is missing.
struct ScoresBeforeTheKeysLand : Script {
  void operator()(Ptr<f16> q, Ptr<f16> k, Ptr<float> s_out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto sq = shared_tensor<f16>({64, 64});
    auto sk = shared_tensor<f16>({64, 64});
    auto full = mbarrier.alloc(std::vector<int>{1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(full[0], int(sq.nbytes() + sk.nbytes()));
      tma.global_to_shared(global_view(q, {64, 64}), sq, {0, 0}, full[0]);
      tma.global_to_shared(global_view(k, {64, 64}), sk, {0, 0}, full[0]);
    });
    auto s = register_tensor<float>({64, 64}, 0.0f);
    wgmma.fence();
    wgmma.mma(sq, sk.transpose(), s);  // before the keys land
    wgmma.commit_group();
    wgmma.wait_group(0);
    mbarrier.wait(full[0], mbarrier.consumer_initial_phase);
    store_global(global_view(s_out, {64, 64}), s, {0, 0});
  }
};

std::vector<f16> halves() { return std::vector<f16>(64 * 64, f16(0.5f)); }

TEST(AttentionMisuse, PInRowRunsIsRefusedAtTheMma) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64 * 64, 0.25f));
  Buffer<f16> v(Device::simulator(), halves());
  Buffer<float> o(Device::simulator(), 64 * 64);
  const std::string load = testing::source_at(kFile, "load_global(global_view(x, {64, 64})");
  EXPECT_EQ(
      testing::error_of<PInRowRuns>(x, v, o),
      testing::source_at(kFile, "wgmma.mma(p, sv, acc);") + ": layout conflict: the tile created by load_global at " +
          load + " is pinned by the layout argument of load_global at " + load +
          " (layout[64,64](d0=32x2 d1=4x16; threads=d0.0,d1.0; local=d0.1,d1.1)), but the tile created by to<f16>() "
          "at " +
          testing::source_at(kFile, "auto p = scores.to<f16>();") +
          ", which must have the same layout, is needed as the wgmma A fragment by wgmma.mma at " +
          testing::source_at(kFile, "wgmma.mma(p, sv, acc);") +
          " (layout[64,64](d0=4x2x8 d1=8x4x2; threads=d0.0,d0.2,d1.1; local=d1.0,d0.1,d1.2))");
}

TEST(AttentionMisuse, HeadDimsThatDisagreeAreRefusedAtTheMma) {
  Buffer<float> s(Device::simulator(), 64 * 64);
  EXPECT_EQ(
      testing::error_of<HeadDimsThatDisagree>(s),
      testing::source_at(kFile, "wgmma.mma(sq, sk.transpose(), s);  // Q") +
          ": wgmma.mma: shapes [64, 64] @ [128, 64] into [64, 64] do not match (want a [m, k], b [k, n], acc [m, n])");
}

TEST(AttentionMisuse, AKeyStageReadBeforeItsBarrierIsReported) {
  Buffer<f16> q(Device::simulator(), halves()), k(Device::simulator(), halves());
  Buffer<float> s(Device::simulator(), 64 * 64);
  EXPECT_EQ(testing::error_of<ScoresBeforeTheKeysLand>(q, k, s),
            testing::source_at(kFile, "// before the keys land") +
                ": read of shared memory that a tma.global_to_shared issued at " +
                testing::source_at(kFile, "tma.global_to_shared(global_view(k, {64, 64})") +
                " may still be writing (thread 0 of block (0, 0, 0)); wait on the mbarrier phase the load completes "
                "(mbarrier.wait) before accessing its tile");
}

}  // namespace
}  // namespace tessel
