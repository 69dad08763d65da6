// Gathers and scatters by index tiles on the simulator (gather_scatter_kernels.hpp): rows permuted as
// a mixture of experts permutes tokens, elements along the last dimension, the printed IR, two
// elements sent to one place, and misuse at the user's line.
#include <gmock/gmock.h>

#include <random>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "gather_scatter_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(GatherScatter, TokenRowsGoToTheirPlacesAndComeFromTheirSources) {
  for (const sim::Options& o : every_order())
    check_permute_token_rows(Device::simulator(), {.sim = two_blocks_together(o)});
}

TEST(GatherScatter, ElementsAlongTheLastDimension) {
  check_gather_and_scatter_columns(Device::simulator(), {.sim = two_blocks_together({})});
}

TEST(GatherScatter, ThroughSharedMemory) {
  for (const sim::Options& o : every_order()) check_compact_and_reverse_in_shared(Device::simulator(), {.sim = o});
}

TEST(GatherScatter, TheIrShowsTheIndicesAndTheRowsMoveAsVectors) {
  const Device sim = Device::simulator();
  f16* h = nullptr;
  int32_t* i = nullptr;
  const std::string ir = ir::print(*Kernel<PermuteTokenRows>(sim).lowered(100, 512, h, i, i, h, h));
  // Each row's indices are the same along it, so its runs of 8 halves move as one access.
  EXPECT_THAT(ir, ::testing::ContainsRegex("store_global %r(\\.[0-9]+)? to global<f16>\\(%arg5, shape=\\[%arg0, "
                                           "%arg1\\], strides=\\[%arg1, 1\\]\\) at \\[0, [^]]*\\] plus %r(\\.[0-9]+)? "
                                           "along dim 0 vector=8"));
  EXPECT_THAT(ir, ::testing::ContainsRegex("= load_global global<f16>\\(%arg2, [^)]*\\) at \\[0, [^]]*\\] plus "
                                           "%r(\\.[0-9]+)? along dim 0 fill=7 vector=8"));
}

// Where the launch proves the rows' width a multiple of the runs (the buffers' 16-byte alignment
// and hidden = 512), a run is wholly inside the view or wholly outside it: the gather's runs outside
// take the fill with no element-wise path. Where it does not (hidden = 500), runs at the edge move
// element by element.
TEST(GatherScatter, RunsThatCannotStraddleTheEdgeNeedNoElementWisePath) {
  const Device sim = Device::simulator();
  const auto source = [&](int hidden) {
    Buffer<f16> x(sim, std::vector<f16>(size_t(100 * hidden))), out(sim, std::vector<f16>(size_t(100 * hidden)));
    Buffer<int32_t> indices(sim, std::vector<int32_t>(100));
    return Kernel<PermuteTokenRows>(sim, KernelOptions{"sm_90a"})
        .cuda_source(100, hidden, x, indices, indices, out, out);
  };
  EXPECT_TRUE(file_check(source(512), R"(
    CHECK: const int64_t c0 = int64_t(r_1[tessel_index_slot[lv]]);
    CHECK: if (c0 >= 0 && c0 < arg0 && c1 >= 0 && c1 + 8 <= arg1) {
    CHECK-NEXT: tessel_load_vec<tessel_f16, 8>(&r_3[lv], p);
    CHECK-NEXT: } else {
    CHECK-NEXT: #pragma unroll
    CHECK-NEXT: for (int j = 0; j < 8; ++j) {
    CHECK-NEXT: const int l = lv + j;
    CHECK-NEXT: r_3[l] = tessel_f16((float)(7.0f));
  )"));
  EXPECT_TRUE(file_check(source(500), R"(
    CHECK: const int64_t c0 = int64_t(r_1[tessel_index_slot[lv]]);
    CHECK: if (c0 >= 0 && c0 < arg0 && c1 >= 0 && c1 + 8 <= arg1 && (reinterpret_cast<uint64_t>(p) % 16) == 0) {
    CHECK: r_3[l] = (c0 >= 0 && c0 < arg0 && c1 >= 0 && c1 < arg1) ? arg2[int64_t(c0) * arg1 + int64_t(c1) * 1] : tessel_f16((float)(7.0f));
  )"));
}

// Two lanes send different values to one element.
struct ScatterTwoValuesToOnePlace : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto values = arange({32}, 0);
    store_global_scatter(global_view(x, {32}), 0, values / 2, values, {0});
  }
};

// Two warps send values to one element, with nothing ordering them.
struct ScatterFromTwoWarpsToOnePlace : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto values = arange({64}, 0);
    store_global_scatter(global_view(x, {64}), 0, values % 32, values, {0});
  }
};

TEST(GatherScatter, ElementsSentToOnePlaceAreReported) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>(64, 0));
  EXPECT_EQ(error_of<ScatterTwoValuesToOnePlace>(x),
            source_at("tests/gather_scatter_test.cpp", "store_global_scatter(global_view(x, {32}), 0, values / 2") +
                ": store_global_scatter: elements (0) and (1) of the tile created at " +
                source_at("tests/gather_scatter_test.cpp", "auto values = arange({32}, 0);") +
                " go to the same element of the view with different values, 0 and 1 (threads 0 and 1), and which one "
                "memory keeps is undefined; give each element its own place, or combine them with "
                "atomic.scatter_add");
  const std::string scatter = source_at("tests/gather_scatter_test.cpp", "values % 32, values, {0});");
  EXPECT_EQ(error_of<ScatterFromTwoWarpsToOnePlace>(x),
            scatter + ": data race on global memory, byte 0 of a 256-byte allocation: the store_global_scatter at " +
                scatter + " by warp 1 of block (0, 0, 0) is not ordered after the store_global_scatter at " + scatter +
                " by warp 0 of block (0, 0, 0); order them with a sync(), an mbarrier arrival and a wait on its "
                "phase, or the wait that retires the asynchronous operation");
}

// Row indices from a reduction: the sum's layout is fixed by its operand, and the scatter needs
// another for the indices, which convert_layout gives it.
template <bool Converted> struct ScatterToPlacesFromASum : Script {
  void operator()(Ptr<int32_t> a, Ptr<float> x, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto place = sum(load_global(global_view(a, {32, 8}), {0, 0}, {32, 8}), 1);
    auto rows = load_global(global_view(x, {32, 256}), {0, 0}, {32, 256});
    if constexpr (Converted)
      store_global_scatter(global_view(out, {32, 256}), 0, convert_layout(place), rows, {0, 0});
    else
      store_global_scatter(global_view(out, {32, 256}), 0, place, rows, {0, 0});
  }
};

TEST(GatherScatter, IndicesInAnotherLayoutAreRefusedNamingConvertLayout) {
  const Device sim = Device::simulator();
  // Row i's eight counts sum to 31 - i: the rows go in reverse order.
  std::vector<int32_t> counts(256, 0);
  for (int i = 0; i < 32; ++i) counts[size_t(i * 8 + i % 8)] = 31 - i;
  const std::vector<float> x = [] {
    std::vector<float> v(32 * 256);
    std::mt19937 rng(33);
    for (float& e : v) e = float(rng() % 1000);
    return v;
  }();
  Buffer<int32_t> a(sim, counts);
  Buffer<float> dx(sim, x), out(sim, std::vector<float>(x.size(), -1.0f));
  const std::string scatter = source_at("tests/gather_scatter_test.cpp", "0, place, rows, {0, 0});");
  const std::string sum = source_at("tests/gather_scatter_test.cpp", "auto place = sum(");
  EXPECT_EQ(error_of<ScatterToPlacesFromASum<false>>(a, dx, out),
            sum + ": layout conflict: the tile created by sum at " + sum +
                " is needed as a broadcast operand by store_global_scatter at " + scatter +
                " (layout[32,1](d0=16x2 d1=1; threads=d0.1,rep64; local=d0.0)), but is the reduction over dim 1 by "
                "sum at " +
                sum +
                " (layout[32,1](d0=32 d1=1; threads=d0.0,rep4; local=-)); pass convert_layout(operand) to "
                "store_global_scatter at " +
                scatter + " instead, a copy that takes the layout that use needs");
  Kernel<ScatterToPlacesFromASum<true>> converted(sim);
  converted(a, dx, out);
  std::vector<float> want(x.size());
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 256; ++j) want[size_t((31 - i) * 256 + j)] = x[size_t(i * 256 + j)];
  EXPECT_EQ(out.download(), want);
}

struct GatherAlongAMissingDimension : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto i = arange({8, 1}, 0);
    load_global_gather(global_view(x, {8, 8}), 2, i, {0, 0}, {8, 8});
  }
};

struct GatherByFloatIndices : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto i = load_global(global_view(x, {8, 8}), {0, 0}, {8, 1});
    load_global_gather(global_view(x, {8, 8}), 0, i, {0, 0}, {8, 8});
  }
};

struct ScatterWithIndicesOfAnotherShape : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 8}), {0, 0}, {8, 8});
    store_global_scatter(global_view(x, {8, 8}), 0, arange({8, 2}, 0), t, {0, 0});
  }
};

struct ScatterOfPackedElements : Script {
  void operator()(Ptr<u4> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 32}), {0, 0}, {8, 32});
    store_global_scatter(global_view(x, {8, 32}), 0, arange({8, 1}, 0), t, {0, 0});
  }
};

struct GatherByIndicesOfAnotherRank : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    load_global_gather(global_view(x, {8, 8}), 0, arange({8}, 0), {0, 0}, {8, 8});
  }
};

struct GatherOfPackedElementsFromShared : Script {
  void operator()(Ptr<u4> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<u4>({8, 32});
    load_shared_gather(s, 0, arange({8, 1}, 0), {0, 0}, {8, 32});
  }
};

struct ScatterOfAnotherType : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto i = arange({8, 1}, 0);
    store_global_scatter(global_view(x, {8, 8}), 0, i, register_tensor<f16>({8, 8}, 1), {0, 0});
  }
};

TEST(GatherScatter, MisuseIsReportedAtTheUsersLine) {
  const Device sim = Device::simulator();
  Buffer<float> x(sim, std::vector<float>(64, 1.0f));
  EXPECT_EQ(error_of<GatherAlongAMissingDimension>(x),
            source_at("tests/gather_scatter_test.cpp", "load_global_gather(global_view(x, {8, 8}), 2, i") +
                ": load_global_gather: dim 2 of a tile of rank 2; the indexed dimension is one of 0 to 1");
  EXPECT_EQ(error_of<GatherByFloatIndices>(x),
            source_at("tests/gather_scatter_test.cpp", "load_global_gather(global_view(x, {8, 8}), 0, i") +
                ": load_global_gather: the indices are an integer tile, got f32; convert them with .to<int32_t>()");
  EXPECT_EQ(error_of<ScatterWithIndicesOfAnotherShape>(x),
            source_at("tests/gather_scatter_test.cpp", "arange({8, 2}, 0), t, {0, 0});") +
                ": store_global_scatter: indices [8, 2] for a tile [8, 8]; each extent must be the tile's or 1");
  EXPECT_EQ(error_of<ScatterOfAnotherType>(x),
            source_at("tests/gather_scatter_test.cpp", "register_tensor<f16>({8, 8}, 1), {0, 0});") +
                ": store_global_scatter: a tile of f16 stored to a global view of f32; convert it with .to<f32>()");
  EXPECT_EQ(error_of<GatherByIndicesOfAnotherRank>(x),
            source_at("tests/gather_scatter_test.cpp", "arange({8}, 0), {0, 0}, {8, 8});") +
                ": load_global_gather: indices [8] for a tile [8, 8]; each extent must be the tile's or 1");
  Buffer<uint8_t> packed(sim, std::vector<uint8_t>(128));
  EXPECT_EQ(error_of<GatherOfPackedElementsFromShared>(packed),
            source_at("tests/gather_scatter_test.cpp", "load_shared_gather(s, 0, arange({8, 1}, 0)") +
                ": load_shared_gather: elements of u4 are packed several to a byte, and are not gathered or "
                "scattered one by one; move whole rows with load_shared and store_shared");
  EXPECT_EQ(error_of<ScatterOfPackedElements>(packed),
            source_at("tests/gather_scatter_test.cpp", "store_global_scatter(global_view(x, {8, 32})") +
                ": store_global_scatter: elements of u4 are packed several to a byte, and are not gathered or "
                "scattered one by one; move whole rows with load_global and store_global");
}

// NVRTC and ptxas accept the gathers and scatters on every target.
TEST(GatherScatter, CompileForEveryTarget) {
  f16* h = nullptr;
  int32_t* i = nullptr;
  float* f = nullptr;
  int64_t* l = nullptr;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const KernelOptions options{arch};
    EXPECT_GT(Kernel<PermuteTokenRows>(Device::simulator(), options).cubin(100, 512, h, i, i, h, h).size(), 0u) << arch;
    EXPECT_GT(Kernel<GatherAndScatterColumns>(Device::simulator(), options).cubin(40, f, l, f, f).size(), 0u) << arch;
    EXPECT_GT(Kernel<CompactAndReverseInShared>(Device::simulator(), options).cubin(512, i, i, h, h).size(), 0u)
        << arch;
    // Debug mode checks each gathered and scattered access against its allocation.
    const KernelOptions debug{.arch = arch, .debug = true};
    EXPECT_GT(Kernel<PermuteTokenRows>(Device::simulator(), debug).cubin(100, 512, h, i, i, h, h).size(), 0u) << arch;
  }
}

// One column per row, the same for the whole row: indices [16, 1] along the last dimension, so a
// run of the row reads one element again and again and moves element by element.
struct SpreadOneColumnPerRow : Script {
  void operator()(Ptr<float> x, Ptr<uint16_t> column, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto c = load_global(global_view(column, {16, 1}), {0, 0}, {16, 1});
    store_global(global_view(out, {16, 64}), load_global_gather(global_view(x, {16, 64}), 1, c, {0, 0}, {16, 64}),
                 {0, 0});
  }
};

TEST(GatherScatter, IndicesAlongTheLastDimensionMoveElementByElement) {
  const Device sim = Device::simulator();
  std::mt19937 rng(35);
  std::vector<float> x(16 * 64);
  for (float& v : x) v = float(rng() % 1000);
  std::vector<uint16_t> column(16);
  for (auto& c : column) c = uint16_t(rng() % 70);  // some beyond the row's 64: zero rows
  Buffer<float> dx(sim, x), out(sim, std::vector<float>(x.size(), -1.0f));
  Buffer<uint16_t> dcolumn(sim, column);
  Kernel<SpreadOneColumnPerRow> k(sim);
  k(dx, dcolumn, out);
  std::vector<float> want(x.size());
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 64; ++j)
      want[size_t(i * 64 + j)] = column[size_t(i)] < 64 ? x[size_t(i * 64 + column[size_t(i)])] : 0;
  EXPECT_EQ(out.download(), want);
  float* f = nullptr;
  uint16_t* u = nullptr;
  const std::string ir = ir::print(*k.lowered(f, u, f));
  EXPECT_THAT(ir, ::testing::ContainsRegex(
                      "= load_global global<f32>\\(%arg0, [^)]*\\) at \\[0, 0\\] plus %r(\\.[0-9]+)? along dim 1\n"));
}

}  // namespace
}  // namespace tessel::testing
