// A tile's value as a kernel value (item<T>()) on the simulator under every order, what it
// compiles to, and its misuse.
#include <random>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"
#include "tile_element_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(TileElement, SteersLoopsAndBranchesUnderEveryOrder) {
  for (const sim::Options& o : every_order()) check_steering_by_tile_values(Device::simulator(), o);
}

TEST(TileElement, CompilesForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    Kernel<SteersByTileValues> k(Device::simulator(), KernelOptions{arch});
    EXPECT_GT(k.cubin((float*)nullptr, (int32_t*)nullptr).size(), 0u) << arch;
  }
}

struct ItemOfARow : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {1, 32}), {0, 0}, {1, 32});  // a row
    if_(t.item<float>() > 0.0f, [&] { store_global(global_view(x, {1, 32}), t * 2.0f, {0, 0}); });
  }
};

TEST(TileElement, OnlyATileOfOneElementHasAValue) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<ItemOfARow>(x), source_at("tests/tile_element_test.cpp", "if_(t.item<float>() > 0.0f") +
                                         ": item<f32>() of the tile reg<f32>[1, 32] (created at " +
                                         source_at("tests/tile_element_test.cpp", "// a row") +
                                         "): only a tile of one element has a value; slice that element out first "
                                         "(t.slice(offsets, {1, 1}))");
}

struct ItemInHalfAWarp : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    thread_group(0, 16, [&] {
      auto t = sum(load_global(global_view(x, {1, 16}), {0, 0}, {1, 16}), 1);
      if_(t.item<float>() > 0.0f, [&] { store_global(global_view(x, {1, 1}), t, {0, 0}); });
    });
  }
};

TEST(TileElement, TheGroupIsWholeWarps) {
  Buffer<float> x(Device::simulator(), std::vector<float>(16, 1.0f));
  EXPECT_EQ(error_of<ItemInHalfAWarp>(x),
            source_at("tests/tile_element_test.cpp",
                      "if_(t.item<float>() > 0.0f, [&] { store_global(global_view(x, {1, 1})") +
                ": item<f32>() brings the element to every thread by warp shuffles, or across warps through shared "
                "memory at a barrier of the thread group, which whole warps run, but the thread group threads 0..15 "
                "splits a warp; take the value in whole warps, or in a single_thread(), whose one thread holds the "
                "element");
}

// One thread holds its tile's element: the value steers that thread, with no exchange. Each block
// doubles its element where it is positive, as one thread of its second warp.
struct ItemInOneThread : Script {
  void operator()(Ptr<float> x, Int32 n) {
    attrs.blocks = n;
    attrs.warps = 2;
    thread_group(32, 32, [&] {
      single_thread([&] {
        auto t = load_global(global_view(x, {n}), {blockIdx.x}, {1});
        if_(t.item<float>() > 0.0f, [&] { store_global(global_view(x, {n}), t * 2.0f, {blockIdx.x}); });
      });
    });
  }
};

TEST(TileElement, OneThreadTakesItsElementUnderEveryOrder) {
  std::mt19937 rng{5};
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(37);
  for (float& v : x) v = d(rng);
  std::vector<float> want = x;
  for (float& v : want)
    if (v > 0.0f) v *= 2.0f;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x);
    Kernel<ItemInOneThread>(Device::simulator(), KernelOptions{.sim = o})(dx, int32_t(x.size()));
    EXPECT_EQ(dx.download(), want);
  }
  for (const char* arch : {"sm_80", "sm_90a"}) {
    Kernel<ItemInOneThread> k(Device::simulator(), KernelOptions{arch});
    EXPECT_GT(k.cubin((float*)nullptr, int32_t(37)).size(), 0u) << arch;
  }
}

}  // namespace
}  // namespace tessel::testing
