// TMA: tensor maps (the table, the encoding rules), the store side (on the simulator against a host
// reference, its races, its code), and the shared-memory image of a box that loads write.
#include <random>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/tensor_map.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/sim/tma_box.hpp"
#include "tessel/tessel.hpp"
#include "tma_kernels.hpp"

namespace tessel {
namespace {

using testing::error_of;
using testing::every_order;
using testing::StoreTileByTma;

int line = 0;

TEST(TmaStore, WritesTilesAtMultipleAndNonMultipleSizesUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_tile_by_tma<StoreTileByTma<float, 32, 32, Swizzle::none>, float>(64, 96, o);
    testing::check_tile_by_tma<StoreTileByTma<float, 32, 32, Swizzle::none>, float>(45, 76, o);
    testing::check_tile_by_tma<StoreTileByTma<f16, 32, 64, Swizzle::b128>, f16>(64, 128, o);
    testing::check_tile_by_tma<StoreTileByTma<f16, 32, 64, Swizzle::b128>, f16>(70, 88, o);
    testing::check_tile_by_tma<StoreTileByTma<bf16, 16, 32, Swizzle::b64>, bf16>(33, 40, o);
  }
}

TEST(TmaStore, TheKernelHasOneTensorMapParameterPerDistinctBox) {
  Kernel<StoreTileByTma<f16, 32, 64, Swizzle::b128>> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(64, 128, (f16*)nullptr, (f16*)nullptr);
  ASSERT_EQ(lowered->tensor_maps.size(), 1u);
  EXPECT_EQ(lowered->tensor_maps[0].box, (std::vector<int>{32, 64}));
  EXPECT_EQ(lowered->tensor_maps[0].swizzle_bits, 3);
  const std::string text = ir::print(*lowered);
  EXPECT_NE(text.find("// tensor map 0: global<f16>"), std::string::npos) << text;
  EXPECT_NE(text.find("box [32, 64] swizzled 128B"), std::string::npos) << text;
  EXPECT_NE(text.find("by tensor map 0"), std::string::npos) << text;
}

// Two stores of one tile, and a second tile, into the same view: two maps.
struct TwoBoxes : Script {
  void operator()(Int32 m, Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = shared_tensor<float>({8, 32}, Swizzle::none);
    auto b = shared_tensor<float>({4, 32}, Swizzle::none);
    store_shared(a, register_tensor<float>({8, 32}, 1.0f));
    store_shared(b, register_tensor<float>({4, 32}, 2.0f));
    fence.proxy_async();
    sync();
    auto view = global_view(out, {m, n});
    tma.shared_to_global(a, view, {0, 0});
    tma.shared_to_global(a, view, {8, 0});
    tma.shared_to_global(b, view, {16, 0});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, StoresOfTheSameViewAndBoxShareATensorMap) {
  Kernel<TwoBoxes> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(20, 32, (float*)nullptr);
  ASSERT_EQ(lowered->tensor_maps.size(), 2u);
  EXPECT_EQ(lowered->tensor_maps[1].box, (std::vector<int>{4, 32}));
  const Device dev = Device::simulator();
  Buffer<float> out(dev, std::vector<float>(20 * 32, 0.0f));
  Kernel<TwoBoxes> run(dev);
  run(20, 32, out);
  const auto got = out.download();
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 32; ++j) ASSERT_EQ(got[size_t(i) * 32 + j], i < 16 ? 1.0f : 2.0f) << i << ", " << j;
}

// ---- races of the store's source ----

struct OverwritesTheSourceBeforeTheWait : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({8, 32}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
    tma.commit_group();
    store_shared(s, register_tensor<float>({8, 32}, 2.0f));
    tma.wait_group(0, true);
  }
};

TEST(TmaStore, OverwritingTheSourceBeforeWaitGroupReadIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  const std::string got = error_of<OverwritesTheSourceBeforeTheWait>(8, out);
  EXPECT_EQ(got, fmt::format("{0}:{1}: write of shared memory that a tma.shared_to_global issued at {0}:{2} may still "
                             "be reading (thread 0 of block (0, 0, 0)); the issuing thread must retire the store "
                             "(tma.commit_group, tma.wait_group(n, read = true)) and sync() first",
                             __FILE__, line + 2, line));
}

struct WaitsForTheWrongGroup : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({8, 32}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
    tma.commit_group();
    tma.wait_group(1, true);  // leaves the store's group, the only one, in flight
    store_shared(s, register_tensor<float>({8, 32}, 2.0f));
  }
};

TEST(TmaStore, AWaitThatLeavesTheStoreInFlightDoesNotFreeItsSource) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  for (const sim::Options& o : {sim::Options{.completion = sim::CompletionOrder::Lazy}}) {
    try {
      testing::simulate<WaitsForTheWrongGroup>(o, 8, out);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("{0}:{1}: write of shared memory that a tma.shared_to_global issued at {0}:{2} may still "
                            "be reading (thread 0 of block (0, 0, 0)); the issuing thread must retire the store "
                            "(tma.commit_group, tma.wait_group(n, read = true)) and sync() first",
                            __FILE__, line + 3, line));
    }
  }
}

struct EndsBeforeTheStoreIsRetired : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({8, 32}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
    tma.commit_group();
  }
};

TEST(TmaStore, ABlockEndingWhileAStoreReadsItsSourceIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  try {
    testing::simulate<EndsBeforeTheStoreIsRetired>({.completion = sim::CompletionOrder::Lazy}, 8, out);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}:{}: tma.shared_to_global: block (0, 0, 0) ended while this store (thread 0) may still be "
                          "reading its shared source; the issuing thread must retire it (tma.commit_group, "
                          "tma.wait_group(0, read = true)) before the block ends",
                          __FILE__, line));
  }
}

struct StoresATileNothingWrote : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s[0], register_tensor<float>({32}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, StoringSharedMemoryNothingWroteIsReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  const std::string got = error_of<StoresATileNothingWrote>(8, out);
  EXPECT_EQ(got, fmt::format("{0}:{1}: tma.shared_to_global: reads shared memory that was never written: s (allocated "
                             "at {0}:{2}), byte 128 of the allocation, stored by thread 0 of block (0, 0, 0); store to "
                             "the tile (and sync()) before storing it to global memory",
                             __FILE__, line, line - 5));
}

// Warp 1 writes the tile and warp 0's first thread stores it with TMA, with no sync() between
// them that the one block takes (the one in the if_ is never taken, so check_shared_handoffs
// cannot refuse the kernel before it runs): the report names the writes nothing ordered.
int writer_line = 0;
struct StoresATileAnotherWarpWritesUnordered : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    thread_group(32, 32, [&] {
      writer_line = __LINE__ + 1;
      store_shared(s, register_tensor<float>({8, 32}, 1.0f));
      fence.proxy_async();
    });
    if_(n < 0, [&] { sync(); });
    single_thread([&] {
      line = __LINE__ + 1;
      tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

TEST(TmaStore, StoringATileWhoseWritesNothingOrderedNamesTheWrites) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  const std::string got = error_of<StoresATileAnotherWarpWritesUnordered>(8, out);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: tma.shared_to_global: reads shared memory that was never written: s (allocated "
                        "at {0}:{2}), byte 0 of the allocation, stored by thread 0 of block (0, 0, 0); store to "
                        "the tile (and sync()) before storing it to global memory; store_shared at {0}:{3} (threads "
                        "32..63) writes this tile, and nothing ordered that write before this read: is a sync() or "
                        "an mbarrier handoff missing between them?",
                        __FILE__, line, writer_line - 3, writer_line));
}

// A whole-warp group other than the first: its first thread issues, commits and waits.
struct StoresFromTheSecondWarp : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({8, 32}, 5.0f));
    fence.proxy_async();
    sync();
    thread_group(32, 32, [&] {
      tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
      tma.commit_group();
      tma.wait_group(0, true);
    });
    sync();
  }
};

TEST(TmaStore, TheFirstThreadOfTheGroupIssuesAndWaits) {
  for (const sim::Options& o : every_order()) {
    Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
    testing::simulate<StoresFromTheSecondWarp>(o, 8, out);
    for (float x : out.download()) ASSERT_EQ(x, 5.0f);
  }
  Kernel<StoresFromTheSecondWarp> k(Device::simulator());
  const std::string src = k.cuda_source(8, (float*)nullptr);
  EXPECT_NE(src.find("if ((int(threadIdx.x) - 32) == 0) {\n      asm volatile(\"cp.async.bulk.tensor.2d"),
            std::string::npos)
      << src;
}

// ---- what the verifier and the planner report at the user's line ----

struct StoresAnotherType : Script {
  void operator()(Int32 n, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
  }
};

struct StoresATransposedTile : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32, 8}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s.transpose(), global_view(out, {n, 32}), {0, 0});
  }
};

struct StoresABoxTooLarge : Script {
  void operator()(Int32 n, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({2, 512}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 1024}), {0, 0});
  }
};

struct StoresRowsWiderThanTheSwizzle : Script {
  void operator()(Int32 n, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({8, 128}, Swizzle::b64);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 128}), {0, 0});
  }
};

struct StoresRowsNarrowerThanTheSwizzle : Script {
  void operator()(Int32 n, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({8, 16}, Swizzle::b64);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 16}), {0, 0});
  }
};

struct StoresFromAViewOfABlockVariable : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    Int32 rows = n + blockIdx.x;
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {rows, 32}), {0, 0});
  }
};

struct StoresAtAMisalignedSharedAddress : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({3, 2, 4}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s[1], global_view(out, {n, 4}), {0, 0});
  }
};

struct StoresIntoASixDimensionalView : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {1, 1, 1, 1, n, 32}), {0, 0, 0, 0, 0, 0});
  }
};

struct GivesTooFewOffsets : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0});
  }
};

struct StoresATileOfHigherRank : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 8, 32}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {n, 32}), {0, 0});
  }
};

struct GivesDimsOutOfOrder : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {4, n, 32}), {0, 0, 0}, {2, 1});
  }
};

// A [4, 32] tile as dimensions 0 and 2 of a [4, n, 32] view: the box is [4, 1, 32].
struct StoresIntoChosenDims : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({4, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({4, 32}, 3.0f));
    fence.proxy_async();
    sync();
    tma.shared_to_global(s, global_view(out, {4, n, 32}), {0, 1, 0}, {0, 2});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, DimsPlaceTheTileInTheView) {
  const Device dev = Device::simulator();
  Buffer<float> out(dev, std::vector<float>(4 * 3 * 32, 0.0f));
  Kernel<StoresIntoChosenDims> k(dev);
  EXPECT_EQ(k.lowered(3, (float*)nullptr)->tensor_maps[0].box, (std::vector<int>{4, 1, 32}));
  k(3, out);
  const auto got = out.download();
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 32; ++c) ASSERT_EQ(got[size_t((a * 3 + b) * 32 + c)], b == 1 ? 3.0f : 0.0f) << a << b << c;
}

struct WaitsForTooManyGroups : Script {
  void operator()(Int32, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    tma.wait_group(8);
  }
};

TEST(TmaStore, UserMistakesAreReportedAtTheirLine) {
  Buffer<float> f(Device::simulator(), std::vector<float>(4096, 0.0f));
  Buffer<f16> h(Device::simulator(), std::vector<f16>(4096, f16(0.0f)));
  // Runs the kernel first: it sets `line`.
  const auto at = [](const std::string& got, const std::string& message) {
    EXPECT_EQ(got, fmt::format("{}:{}: {}", __FILE__, line, message));
  };
  at(error_of<StoresAnotherType>(8, h),
     "tma.shared_to_global: from a shared tile of f32 to a global view of f16; TMA copies elements "
     "unchanged, so the types must be equal");
  at(error_of<StoresATransposedTile>(8, f),
     "tma.shared_to_global: the shared tile has shape [8, 32] and strides [1, 8]; TMA moves a box as a "
     "contiguous row-major image, so the tile must be one (strides [32, 1])");
  at(error_of<StoresABoxTooLarge>(2, h),
     "tma: the box has extent 512 in dimension 1; TMA boxes have 1 to 256 elements per dimension");
  at(error_of<StoresRowsWiderThanTheSwizzle>(8, h),
     "tma: the box's rows are 256 bytes, wider than the 64-byte swizzle of the shared tile; TMA needs rows "
     "of at most 64 bytes: make the tile's last extent smaller or its swizzle wider");
  at(error_of<StoresRowsNarrowerThanTheSwizzle>(8, h),
     "tma.shared_to_global: the shared tile's rows are 32 bytes and its swizzle is 64 bytes; TMA puts each "
     "row of a swizzled box on a 64-byte line, so the rows must be exactly 64 bytes");
  const std::string uses_a_variable = error_of<StoresFromAViewOfABlockVariable>(8, f);
  at(uses_a_variable,
     fmt::format("tma: the global view uses the variable declared at {}:{}, not a kernel parameter; a tensor map is "
                 "made on the host at launch, so the view's address, shape and strides may use only parameters, "
                 "constants and variables declared once from them, never assigned (move per-block offsets into the "
                 "TMA offsets)",
                 __FILE__, line - 2));
  at(error_of<StoresAtAMisalignedSharedAddress>(4, f),
     "tma: the shared tile starts at byte 32 of shared memory; TMA needs a 128-byte aligned shared address");
  at(error_of<StoresIntoASixDimensionalView>(8, f),
     "tma.shared_to_global: the global view has 6 dimensions; TMA handles 1 to 5");
  at(error_of<GivesTooFewOffsets>(8, f), "tma.shared_to_global: 1 offsets given for a global view of rank 2");
  at(error_of<StoresATileOfHigherRank>(8, f),
     "tma.shared_to_global: a shared tile of rank 3 into a global view of rank 2; each dimension of the tile must be "
     "one of the view");
  at(error_of<GivesDimsOutOfOrder>(8, f),
     "tma.shared_to_global: dims [2, 1] must be increasing dimensions of the global view (0 to 2)");
  at(error_of<WaitsForTooManyGroups>(8, f),
     "tma.wait_group(8): the number of bulk groups left in flight must be in 0..7");
}

// A view whose rows are variables declared once from a parameter (the grid's too): the host
// evaluates their definitions when it encodes the tensor map.
struct LoadsThroughAViewOfDeclaredVariables : Script {
  void operator()(Int32 rows, Ptr<float> x, Ptr<float> y) {
    Int32 blocks = cdiv(rows, 32);
    Int32 padded = blocks * 32;
    attrs.blocks = blocks;
    attrs.warps = 1;
    auto s = shared_tensor<float>({32, 4}, Swizzle::none);
    auto bar = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bar[0], int(s.nbytes()));
      tma.global_to_shared(global_view(x, {padded, 4}), s, {blockIdx.x * 32, 0}, bar[0]);
    });
    mbarrier.wait(bar[0], 0);
    store_global(global_view(y, {rows, 4}), load_shared(s), {blockIdx.x * 32, 0});
  }
};

TEST(TmaLoad, AViewMayUseVariablesDeclaredOnceFromParameters) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(96 * 4);
  for (float& v : x) v = dist(rng);
  for (const KernelOptions& o : testing::every_order_options()) {
    Buffer<float> dx(Device::simulator(), x), dy(Device::simulator(), std::vector<float>(70 * 4, -7.0f));
    Kernel<LoadsThroughAViewOfDeclaredVariables>(Device::simulator(), o)(70, dx, dy);
    EXPECT_EQ(dy.download(), std::vector<float>(x.begin(), x.begin() + 70 * 4));
  }
}

// Boxes from a stage chosen at run time: checked by the simulator at each store.
struct StoresFromAStage : Script {
  void operator()(Int32 stage, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({3, 2, 4}, Swizzle::none);
    store_shared(s, register_tensor<float>({3, 2, 4}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s[stage], global_view(out, {2, 4}), {0, 0});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, RunTimeStagesAreCheckedAtEachStore) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8, 0.0f));
  std::string got = error_of<StoresFromAStage>(1, out);
  EXPECT_EQ(got, fmt::format("{}:{}: tma: the shared tile starts at byte 32 of shared memory; TMA needs a 128-byte "
                             "aligned shared address",
                             __FILE__, line));
  got = error_of<StoresFromAStage>(3, out);
  EXPECT_EQ(got, fmt::format("{}:{}: tma.shared_to_global: the box's image, bytes [96, 128) of its 96-byte allocation, "
                             "lies outside it (thread 0 of block (0, 0, 0))",
                             __FILE__, line));
  EXPECT_EQ(error_of<StoresFromAStage>(0, out), "no error");
}

struct StoresNineBoxShapes : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto view = global_view(out, {n, 32});
    for (int rows = 1; rows <= 9; ++rows) {
      auto s = shared_tensor<float>({rows, 32}, Swizzle::none);
      line = __LINE__ + 1;
      tma.shared_to_global(s, view, {0, 0});
    }
  }
};

TEST(TmaStore, AKernelTakesAtMostEightTensorMaps) {
  Buffer<float> out(Device::simulator(), std::vector<float>(9 * 32, 0.0f));
  const std::string got = error_of<StoresNineBoxShapes>(9, out);
  EXPECT_EQ(got,
            fmt::format("{}:{}: tma: this copy needs a tensor map beyond the 8 a kernel may take (one per distinct "
                        "global view, box and swizzle); copy through fewer views or box shapes",
                        __FILE__, line));
}

struct StoresAtARow : Script {
  void operator()(Int32 row, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    store_shared(s, register_tensor<float>({8, 32}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {8, 32}), {row, 0});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, NegativeOffsetsAreReported) {
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, 0.0f));
  const std::string got = error_of<StoresAtARow>(-8, out);
  EXPECT_EQ(got, fmt::format("{}:{}: tma.shared_to_global: offset 0 is -8; TMA stores need non-negative offsets "
                             "(thread 0 of block (0, 0, 0))",
                             __FILE__, line));
  EXPECT_EQ(error_of<StoresAtARow>(4, out), "no error");  // partly outside: the rows inside are written
}

// Boxes that start some elements into their rows: a box's first element must lie 16-byte aligned
// in global memory (on Hopper another start is an illegal instruction), so only offsets that are
// multiples of 16 bytes load and store.
template <class T> struct MovesABoxAtColumns : Script {
  void operator()(Int32 load_column, Int32 store_column, Ptr<T> x, Ptr<T> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<T>({8, 16}, Swizzle::none);
    auto bar = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bar[0], int(s.nbytes()));
      line = __LINE__ + 1;
      tma.global_to_shared(global_view(x, {8, 64}), s, {0, load_column}, bar[0]);
    });
    mbarrier.wait(bar[0], 0);
    single_thread([&] {
      store_line = __LINE__ + 1;
      tma.shared_to_global(s, global_view(y, {8, 64}), {0, store_column});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
  static inline int store_line = 0;
};

std::string misaligned_box(const char* operation, int at, int column, int bytes, const char* type) {
  return fmt::format(
      "{}:{}: {}: the last offset (the innermost dimension) is {}, {} bytes from the start of a row of "
      "{}; TMA needs a box's first element 16-byte aligned in global memory, so that offset must be a "
      "multiple of {} (thread 0 of block (0, 0, 0))",
      __FILE__, at, operation, column, column * bytes, type, 16 / bytes);
}

TEST(Tma, ABoxStartsSixteenByteAligned) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(8 * 64);
  for (float& v : x) v = dist(rng);
  Buffer<float> dx(Device::simulator(), x), dy(Device::simulator(), std::vector<float>(8 * 64, -7.0f));
  // Each launch traces the kernel, which sets the lines the messages name.
  std::string got = error_of<MovesABoxAtColumns<float>>(3, 8, dx, dy);
  EXPECT_EQ(got, misaligned_box("tma.global_to_shared", line, 3, 4, "f32"));
  got = error_of<MovesABoxAtColumns<float>>(-2, 8, dx, dy);
  EXPECT_EQ(got, misaligned_box("tma.global_to_shared", line, -2, 4, "f32"));
  got = error_of<MovesABoxAtColumns<float>>(8, 10, dx, dy);
  EXPECT_EQ(got, misaligned_box("tma.shared_to_global", MovesABoxAtColumns<float>::store_line, 10, 4, "f32"));
  Buffer<float> dy2(Device::simulator(), std::vector<float>(8 * 64, -7.0f));
  EXPECT_EQ(error_of<MovesABoxAtColumns<float>>(8, 12, dx, dy2), "no error");
  const std::vector<float> y = dy2.download();
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(y[size_t(r) * 64 + 12 + c], x[size_t(r) * 64 + 8 + c]) << r << ", " << c;
  // 16-bit elements start at multiples of 8.
  Buffer<f16> hx(Device::simulator(), std::vector<f16>(8 * 64, f16(1.0f))),
      hy(Device::simulator(), std::vector<f16>(8 * 64));
  got = error_of<MovesABoxAtColumns<f16>>(4, 8, hx, hy);
  EXPECT_EQ(got, misaligned_box("tma.global_to_shared", line, 4, 2, "f16"));
  EXPECT_EQ(error_of<MovesABoxAtColumns<f16>>(8, 16, hx, hy), "no error");
}

// A view whose rows are not a multiple of 16 bytes apart: a rule only the launch's values break.
struct StoresIntoAnOddPitch : Script {
  void operator()(Int32 m, Int32 n, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({4, 8}, Swizzle::none);
    store_shared(s, register_tensor<f16>({4, 8}, 1.0f));
    fence.proxy_async();
    sync();
    line = __LINE__ + 1;
    tma.shared_to_global(s, global_view(out, {m, n}), {0, 0});
    tma.commit_group();
    tma.wait_group(0);
  }
};

TEST(TmaStore, EncodingRulesBrokenByTheCallAreReportedAtTheLineOfTheCopy) {
  Buffer<f16> h(Device::simulator(), std::vector<f16>(4096, f16(0.0f)));
  const std::string got = error_of<StoresIntoAnOddPitch>(4, 12, h);
  EXPECT_EQ(got,
            fmt::format("{}:{}: tma: dimension 0 of the global view has a stride of 24 bytes; TMA needs a positive "
                        "multiple of 16 bytes",
                        __FILE__, line));
  EXPECT_EQ(error_of<StoresIntoAnOddPitch>(4, 16, h), "no error");
}

TEST(TmaStore, AKernelForSm80IsRejectedNamingSm90a) {
  Kernel<StoreTileByTma<float, 32, 32, Swizzle::none>> k(Device::simulator(), KernelOptions{.arch = "sm_80"});
  try {
    k.lowered(64, 64, (float*)nullptr, (float*)nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    // The proxy fence before the store is its first sm_90a instruction.
    EXPECT_EQ(std::string(e.what()), testing::source_at("tests/tma_kernels.hpp", "fence.proxy_async();") +
                                         ": fence.proxy_async needs sm_90a or newer; the kernel is compiled for sm_80");
  }
}

TEST(TmaStore, GeneratedCodeCompilesForSm90aAndSm100a) {
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    Kernel<StoreTileByTma<f16, 32, 64, Swizzle::b128>> k(Device::simulator(), KernelOptions{.arch = arch});
    const std::string src = k.cuda_source(64, 128, (f16*)nullptr, (f16*)nullptr);
    EXPECT_NE(src.find("const __grid_constant__ tessel_tensor_map tensor_map"), std::string::npos) << src;
    EXPECT_NE(src.find("extern __shared__ __align__(1024) unsigned char tessel_smem[];"), std::string::npos) << src;
    EXPECT_NE(src.find("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"),
              std::string::npos)
        << src;
    EXPECT_NE(src.find("cp.async.bulk.commit_group;"), std::string::npos) << src;
    EXPECT_NE(src.find(R"(asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(0) : "memory");)"), std::string::npos)
        << src;
    runtime::CompileRequest req{
        src, "StoreTileByTma", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    const runtime::CompileResult r = runtime::compile_to_cubin(req);
    EXPECT_GE(r.cubin.size(), 4u) << arch;
  }
}

}  // namespace
}  // namespace tessel
