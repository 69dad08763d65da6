// Warp shuffles and votes on the simulator (warp_kernels.hpp) under every order, the targets they
// compile for, and a shuffle that part of a warp skips.
#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "warp_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(Warp, ShufflesAndVotes) {
  for (const sim::Options& o : every_order()) check_warp_shuffles_and_votes(Device::simulator(), o);
}

TEST(Warp, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    int32_t* i = nullptr;
    uint32_t* u = nullptr;
    EXPECT_GT(Kernel<TileShuffles>(Device::simulator(), KernelOptions{arch}).cubin(i, i).size(), 0u) << arch;
    EXPECT_GT(Kernel<ScalarShufflesAndVotes>(Device::simulator(), KernelOptions{arch}).cubin(u, u, u, u, u).size(), 0u)
        << arch;
  }
}

// The shuffle runs only in the threads whose ticket is below 16.
struct ShuffleInDivergentCode : Script {
  void operator()(Ptr<uint32_t> counter) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Expr<uint32_t> ticket = atomic.fetch_add(global_view(counter, {1}), {0}, 1u);
    if_(ticket < 16u, [&] { atomic.add(global_view(counter, {1}), {0}, warp.shuffle_xor(ticket, 1)); });
  }
};

TEST(Warp, AShuffleThatPartOfTheWarpSkipsIsReported) {
  Buffer<uint32_t> counter(Device::simulator(), std::vector<uint32_t>{0});
  const std::string error = error_of<ShuffleInDivergentCode>(counter);
  EXPECT_EQ(error, source_at("tests/warp_test.cpp", "warp.shuffle_xor(ticket, 1)") +
                       ": warp.shuffle_xor in warp 0 of block (0, 0, 0): threads 16, 17, 18, 19, 20, 21, 22, 23, 24, "
                       "25, 26, 27, 28, 29, 30, 31 did not reach it, since it runs inside control flow that splits "
                       "the warp; every thread of the warp must execute it together");
}

}  // namespace
}  // namespace tessel::testing
