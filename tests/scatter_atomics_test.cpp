// Scatter atomics on the simulator (atomics_kernels.hpp): a histogram through shared and global
// memory and places claimed per token, under every order, and misuse at the user's line.
#include <gmock/gmock.h>

#include "atomics_kernels.hpp"
#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(ScatterAtomics, HistogramInSharedAndGlobalMemory) {
  for (const sim::Options& o : every_order()) check_histogram(Device::simulator(), two_blocks_together(o));
}

TEST(ScatterAtomics, TokensClaimPlacesPerExpert) {
  for (const sim::Options& o : every_order()) check_token_places(Device::simulator(), two_blocks_together(o));
}

TEST(ScatterAtomics, TheIrShowsTheIndices) {
  const Device sim = Device::simulator();
  Buffer<int32_t> x(sim, std::vector<int32_t>(256, 1)), counts(sim, std::vector<int32_t>(32, 0)),
      largest(sim, std::vector<int32_t>(32, 0));
  const std::string ir = ir::print(*Kernel<Histogram>(sim).lowered(256, x, counts, largest));
  EXPECT_THAT(ir, ::testing::HasSubstr("atomic.add.relaxed.cta %r.2 into %s at [0] + indices %r\n"));
  EXPECT_THAT(ir, ::testing::HasSubstr("atomic.max.relaxed.gpu %r.4 into global<i32>(%arg3, shape=[32], strides=[1]) "
                                       "at [0] + indices %r\n"));
}

struct ScatterIntoAMatrix : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    atomic.scatter_add(global_view(x, {4, 8}), t, t);
  }
};

struct ScatterAtFloatPositions : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    atomic.scatter_add(global_view(x, {32}), t.to<float>(), t);
  }
};

struct ScatterWithTooFewPositions : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    auto first = load_global(global_view(x, {32}), {0}, {16});
    atomic.scatter_max(global_view(x, {32}), first, t);
  }
};

TEST(ScatterAtomics, MisuseIsReportedAtTheUsersLine) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>(32, 1));
  EXPECT_EQ(error_of<ScatterIntoAMatrix>(x),
            source_at("tests/scatter_atomics_test.cpp", "atomic.scatter_add(global_view(x, {4, 8}), t, t)") +
                ": atomic.scatter_add: positions address a target of rank 1, but the global view has rank 2; view "
                "its elements as one dimension (global_view(ptr, {size}))");
  EXPECT_EQ(error_of<ScatterAtFloatPositions>(x),
            source_at("tests/scatter_atomics_test.cpp", "atomic.scatter_add(global_view(x, {32}), t.to<float>(), t)") +
                ": atomic.scatter_add: positions are an integer tile, got f32; convert them with .to<int32_t>()");
  EXPECT_EQ(error_of<ScatterWithTooFewPositions>(x),
            source_at("tests/scatter_atomics_test.cpp", "atomic.scatter_max(global_view(x, {32}), first, t)") +
                ": atomic.scatter_max: positions [16] for values [32]; give one position per value");
}

// NVRTC and ptxas accept the scatters on every target.
TEST(ScatterAtomics, CompileForEveryTarget) {
  int32_t* i = nullptr;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const KernelOptions options{arch};
    EXPECT_GT(Kernel<Histogram>(Device::simulator(), options).cubin(1000, i, i, i).size(), 0u) << arch;
    EXPECT_GT(Kernel<TokenPlaces>(Device::simulator(), options).cubin(700, i, i, i).size(), 0u) << arch;
  }
}

}  // namespace
}  // namespace tessel::testing
