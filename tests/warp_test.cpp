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

// Rows of 3 elements in 8 threads, each row copied in 4 lanes (threads r, r + 8, r + 16, r + 24):
// a shuffle down by 8 gives each copy the next copy's values, the same row, so the copies agree;
// one by 1 gives each copy the next row, but threads 7, 15 and 23 get row 0 from the next copy and
// thread 31, the last lane, keeps row 7: the copies of row 7 differ, and which one a store keeps
// is undefined.
template <int Delta> struct ShufflesCopiedRows : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout copied = Layout::replicated(2, 4) * Layout::spatial({8, 1}) * Layout::local({1, 3});
    auto t = load_global(global_view(x, {8, 3}), {0, 0}, {8, 3}, copied);
    store_global(global_view(y, {8, 3}), warp.shuffle_down(t, Delta), {0, 0});
  }
};

TEST(Warp, CopiesThatAShuffleMadeDifferAreReportedAtTheStore) {
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i) values[size_t(i)] = float(i * 7 % 24) - 11.5f;
  Buffer<float> x(Device::simulator(), values), y(Device::simulator(), std::vector<float>(24, -100.0f));
  simulate<ShufflesCopiedRows<8>>(sim::Options{}, x, y);
  EXPECT_EQ(y.download(), values);
  const std::string store = source_at("tests/warp_test.cpp", "store_global(global_view(y, {8, 3}), warp.shuffle_down");
  EXPECT_EQ(
      error_of<ShufflesCopiedRows<1>>(x, y),
      store + ": store_global of the tile created at " + store +
          " (layout[8,3](d0=8 d1=3; threads=rep4,d0.0; local=d1.0)), which keeps copies of each element in "
          "several lanes: threads 7 and 31 hold different values of element (7, 0), -11.5 and -8.5, and which one "
          "memory keeps is undefined; an operation that differs between the copies (a warp shuffle) made them "
          "differ: give the tile a layout without copies before it");
}

}  // namespace
}  // namespace tessel::testing
