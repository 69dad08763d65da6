// Register regroupings on the simulator (regroup_kernels.hpp) under every order, the targets they
// compile for, and their misuse.
#include "expect_error.hpp"
#include "regroup_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

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
                "move them there with convert_layout(x, layout)");
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

TEST(Regroup, ConvertLayoutAcrossWarpsUnderEveryOrder) {
  for (const sim::Options& o : every_order()) check_layout_conversions_across_warps(Device::simulator(), o);
}

// A conversion that shuffles can do keeps to them; one across warps goes through its scratch
// between two barriers of the block.
TEST(Regroup, ConvertLayoutAcrossWarpsGoesThroughSharedMemory) {
  Kernel<ConvertsLayoutsAcrossWarps> across(Device::simulator(), KernelOptions{"sm_90a"});
  Kernel<ConvertsLayouts> within(Device::simulator(), KernelOptions{"sm_90a"});
  float* f = nullptr;
  f16* h = nullptr;
  const std::string ir = ir::print(*across.lowered(f, f, h, f, f)), ir_within = ir::print(*within.lowered(f, f, h, h));
  EXPECT_NE(ir.find("= convert_layout(%r) through %r_relayout barrier=0"), std::string::npos) << ir;
  EXPECT_NE(ir.find("= convert_layout(%r.3) through %r_relayout.1 barrier=0"), std::string::npos) << ir;
  EXPECT_EQ(ir_within.find("_relayout"), std::string::npos) << ir_within;
  EXPECT_GT(across.cubin(f, f, h, f, f).size(), 0u);
}

// Across warps in a thread group of two warps, whose named barrier it takes.
struct ConvertLayoutInAGroup : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    thread_group(64, 64, [&] {
      auto t = load_global(global_view(x, {16, 32}), {0, 0}, {16, 32}, Layout::spatial({8, 8}) * Layout::local({2, 4}));
      store_global(global_view(y, {16, 32}), convert_layout(t, Layout::local({2, 4}) * Layout::spatial({8, 8})),
                   {0, 0});
    });
  }
};

TEST(Regroup, ConvertLayoutAcrossTheWarpsOfAThreadGroup) {
  std::vector<float> x(512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.5f - 7.0f;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), y(Device::simulator(), std::vector<float>(512, -1e30f));
    Kernel<ConvertLayoutInAGroup>(Device::simulator(), KernelOptions{.sim = o})(dx, y);
    EXPECT_EQ(y.download(), x);
  }
  float* f = nullptr;
  const std::string ir =
      ir::print(*Kernel<ConvertLayoutInAGroup>(Device::simulator(), KernelOptions{"sm_90a"}).lowered(f, f));
  EXPECT_NE(ir.find("through %r_relayout barrier=1"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessel::testing
