// Register regroupings on the simulator (regroup_kernels.hpp) under every order, the targets they
// compile for, and their misuse.
#include "expect_error.hpp"
#include "regroup_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Regroup, ReshapePermuteConcatAndInterleave) {
  for (const sim::Options& o : every_order()) check_regroupings(Device::simulator(), o);
}

TEST(Regroup, ConcatAndInterleaveOfTilesWithoutPinnedLayouts) {
  for (const sim::Options& o : every_order()) check_regroupings<RegroupingsOfDefaultLayouts>(Device::simulator(), o);
}

TEST(Regroup, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    float* f = nullptr;
    EXPECT_GT(Kernel<Regroupings>(Device::simulator(), KernelOptions{arch}).cubin(f, f, f, f, f, f, f, f).size(), 0u)
        << arch;
  }
}

struct ReshapeOfAnotherCount : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});  // reshaped
    reshape(t, {8, 10});
  }
};

TEST(Regroup, AReshapeKeepsTheElementCount) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(error_of<ReshapeOfAnotherCount>(x), source_at("tests/regroup_test.cpp", "reshape(t, {8, 10})") +
                                                    ": reshape of the tile reg<f32>[8, 64] (created at " +
                                                    source_at("tests/regroup_test.cpp", "// reshaped") +
                                                    ") to [8, 10]: 512 elements cannot become 80");
}

struct PermuteTwice : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});  // permuted
    permute(t, {1, 1});
  }
};

TEST(Regroup, APermutationNamesEachDimensionOnce) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(error_of<PermuteTwice>(x), source_at("tests/regroup_test.cpp", "permute(t, {1, 1})") +
                                           ": permute of the tile reg<f32>[8, 64] (created at " +
                                           source_at("tests/regroup_test.cpp", "// permuted") +
                                           ") by [1, 1]: give each of its 2 dimensions once");
}

struct ConcatOfOtherShapes : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});  // concatenated
    auto u = load_global(global_view(x, {8, 64}), {0, 0}, {8, 32});  // concatenated too
    concat(t, u, 1);
  }
};

TEST(Regroup, ConcatenatedTilesShareTypeAndShape) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(
      error_of<ConcatOfOtherShapes>(x),
      source_at("tests/regroup_test.cpp", "concat(t, u, 1)") + ": concat of the tile reg<f32>[8, 64] (created at " +
          source_at("tests/regroup_test.cpp", "// concatenated") + ") and the tile reg<f32>[8, 32] (created at " +
          source_at("tests/regroup_test.cpp", "// concatenated too") + "): the tiles must have one type and shape");
}

// Each thread holds 3 consecutive elements: rows of 32 would cut threads' runs.
struct ReshapeAcrossThreads : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {96}), {0}, {96}, Layout::spatial({32}) * Layout::local({3}));
    store_global(global_view(x, {3, 32}), reshape(t, {3, 32}), {0, 0});
  }
};

TEST(Regroup, AReshapeThatMovesDataBetweenThreadsIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(96, 1.0f));
  EXPECT_EQ(error_of<ReshapeAcrossThreads>(x),
            source_at("tests/regroup_test.cpp", "reshape(t, {3, 32})") +
                ": reshape: the tile created by load_global at " +
                source_at("tests/regroup_test.cpp", "auto t = load_global(global_view(x, {96})") +
                " (layout[96](d0=32x3; threads=d0.0; local=d0.1)) cannot be regrouped so without moving elements "
                "between threads; give it a layout whose threads hold the elements the result keeps together, or "
                "move them there with convert_layout(x, layout) (warp shuffles)");
}

TEST(Regroup, ConvertLayoutMovesElementsByWarpShuffles) {
  for (const sim::Options& o : every_order()) check_layout_conversions(Device::simulator(), o);
  const std::string src = Kernel<ConvertsLayouts>(Device::simulator(), KernelOptions{"sm_90a"})
                              .cuda_source((float*)nullptr, (float*)nullptr, (f16*)nullptr, (f16*)nullptr);
  EXPECT_NE(src.find("__shfl_sync(0xffffffffu"), std::string::npos) << src;
}

// Two tiles of the same elements in other registers: thread t holds columns 2 t and 2 t + 1 of both
// rows, row by row in one and column by column in the other. Without a layout, the conversion takes
// its partner's.
struct AddsAcrossLayouts : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(x, {2, 64});
    auto by_rows =
        load_global(g, {0, 0}, {2, 64}, Layout::local({2, 1}) * Layout::spatial({1, 32}) * Layout::local({1, 2}));
    auto by_columns =
        load_global(g, {0, 0}, {2, 64}, Layout::spatial({1, 32}) * Layout::local({1, 2}) * Layout::local({2, 1}));
    store_global(global_view(y, {4, 64}), by_rows * 2.0f + convert_layout(by_columns), {0, 0});
    // With no use that asks for a layout, the result takes one of inference's choosing.
    store_global(global_view(y, {4, 64}), convert_layout(by_columns), {2, 0});
  }
};

TEST(Regroup, ConvertLayoutWithoutALayoutTakesThatOfItsUse) {
  std::vector<float> x(128);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 13) - 6.5f;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), y(Device::simulator(), std::vector<float>(256, -1e30f));
    Kernel<AddsAcrossLayouts>(Device::simulator(), KernelOptions{.sim = o})(dx, y);
    const std::vector<float> got = y.download();
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(got[i], 3.0f * x[i]) << i;
      ASSERT_EQ(got[128 + i], x[i]) << i;
    }
  }
}

// Rows 8..15 of the new layout's first warp are held by the second warp in the old one.
struct ConvertLayoutAcrossWarps : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto t = load_global(global_view(x, {16, 32}), {0, 0}, {16, 32}, Layout::spatial({8, 8}) * Layout::local({2, 4}));
    store_global(global_view(x, {16, 32}), convert_layout(t, Layout::local({2, 4}) * Layout::spatial({8, 8})), {0, 0});
  }
};

TEST(Regroup, ConvertLayoutKeepsElementsWithinTheirWarp) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(
      error_of<ConvertLayoutAcrossWarps>(x),
      source_at("tests/regroup_test.cpp", "convert_layout(t, Layout::local({2, 4})") +
          ": convert_layout of the tile created at " +
          source_at("tests/regroup_test.cpp", "auto t = load_global(global_view(x, {16, 32}), {0, 0}, {16, 32},") +
          " from layout[16,32](d0=8x2 d1=8x4; threads=d0.0,d1.0; "
          "local=d0.1,d1.1) to layout[16,32](d0=2x8 d1=4x8; threads=d0.1,d1.1; local=d0.0,d1.0): element (8, "
          "0) is held by thread 0 of the group in the new layout, but by no thread of its warp in the old "
          "one; warp shuffles move elements within a warp only: store the tile to shared memory, sync(), "
          "and load it in the new layout");
}

}  // namespace
}  // namespace tessel::testing
