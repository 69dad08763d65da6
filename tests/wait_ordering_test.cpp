// What an mbarrier wait orders: a relaxed wait sees the phase complete and acquires nothing, and a
// wait of cta scope acquires nothing that another block of the cluster released. A race that such
// a wait would have ordered names it; the same kernels with acquiring, wide enough waits pass
// under every order.
#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

int alloc_line = 0, store_line = 0, load_line = 0, wait_line = 0;

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

template <class S> void expect_copies_under_every_order(const Buffer<float>& in) {
  for (const sim::Options& o : every_order()) {
    Buffer<float> result(Device::simulator(), std::vector<float>(in.size(), -1.0f));
    simulate<S>(o, in, result);
    EXPECT_EQ(result.download(), in.download());
  }
}

// Warp 0 stores a tile to shared memory and arrives on a barrier; warp 1 waits on its phase with
// `Semantics` and copies the tile out.
template <WaitSemantics Semantics> struct HandsATileOverABarrier : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({32});
    thread_group(0, 32, [&] {
      store_line = __LINE__ + 1;
      store_shared(tile, load_global(global_view(in, {32}), {0}, {32}));
      mbarrier.arrive(bars[0]);
    });
    thread_group(32, 32, [&] {
      wait_line = __LINE__ + 1;
      mbarrier.wait(bars[0], 0u, Semantics, WaitScope::cta);
      load_line = __LINE__ + 1;
      store_global(global_view(out, {32}), load_shared(tile), {0});
    });
  }
};

TEST(WaitOrdering, ARelaxedWaitOrdersNoneOfTheStoresItsPhasePublishes) {
  Buffer<float> in(Device::simulator(), random_floats(32)), out(Device::simulator(), std::vector<float>(32));
  const std::string got = simulation_error<HandsATileOverABarrier<WaitSemantics::relaxed>>(sim::Options{}, in, out);
  EXPECT_EQ(got, fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the "
                             "allocation, in block (0, 0, 0): the load_shared at {0}:{1} by warp 1 of block (0, 0, 0) "
                             "is not ordered after the store_shared at {0}:{3} by warp 0 of block (0, 0, 0); the "
                             "mbarrier wait at {0}:{4} saw the phase that publishes it, but a relaxed wait orders no "
                             "memory: wait with WaitSemantics::acquire",
                             __FILE__, load_line, alloc_line, store_line, wait_line));
  expect_copies_under_every_order<HandsATileOverABarrier<WaitSemantics::acquire>>(in);
}

// Block 1 of a cluster of two stores a row to global memory and arrives on block 0's barrier;
// block 0 waits on it with `Scope` and copies the row out.
template <WaitScope Scope> struct HandsARowToAPeerBlock : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto g_in = global_view(in, {32}), g_out = global_view(out, {32});
    auto bars = mbarrier.alloc({1});
    cluster.sync();
    if_(cluster.blockRank == 1, [&] {
      store_line = __LINE__ + 1;
      store_global(g_out, load_global(g_in, {0}, {32}), {0});
      single_thread([&] { mbarrier.arrive(bars[0].remote(0)); });
    });
    if_(cluster.blockRank == 0, [&] {
      wait_line = __LINE__ + 1;
      mbarrier.wait(bars[0], 0u, WaitSemantics::acquire, Scope);
      load_line = __LINE__ + 1;
      auto row = load_global(g_out, {0}, {32});
      store_global(g_out, row + row - row, {0});
    });
    cluster.sync();
  }
};

TEST(WaitOrdering, AWaitOfCtaScopeDoesNotAcquireWhatAnotherBlockOfTheClusterReleased) {
  Buffer<float> in(Device::simulator(), random_floats(32)), out(Device::simulator(), std::vector<float>(32));
  const std::string got = simulation_error<HandsARowToAPeerBlock<WaitScope::cta>>(sim::Options{}, in, out);
  EXPECT_EQ(got, fmt::format("{0}:{1}: data race on global memory, byte 0 of a 128-byte allocation: the load_global "
                             "at {0}:{1} by warp 0 of block (0, 0, 0) is not ordered after the store_global at {0}:{2} "
                             "by warp 0 of block (1, 0, 0); the mbarrier wait at {0}:{3} saw the phase that publishes "
                             "it, but another block of the cluster released or landed it, which a wait of cta scope "
                             "does not acquire: wait with WaitScope::cluster",
                             __FILE__, load_line, store_line, wait_line));
  expect_copies_under_every_order<HandsARowToAPeerBlock<WaitScope::cluster>>(in);
}

}  // namespace
}  // namespace tessel::testing
