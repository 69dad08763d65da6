// infer_layouts: kernels written without layouts run correctly, pins steer the choice, and
// conflicting requirements fail with messages in the user's terms.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel {
namespace {

constexpr int M = 64, N = 32, K = 32;

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// c = a @ b + bias with no layout anywhere: dot anchors the operands, the bias row is broadcast.
struct DotWithoutLayouts : Script {
  bool pin_split_2x2 = false;
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> bias, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {M, K}), {0, 0}, {M, K});
    auto rb = load_global(global_view(b, {K, N}), {0, 0}, {K, N});
    auto acc = register_tensor<float>({M, N}, 0.0f);
    if (pin_split_2x2) annotate_layout(acc, mma_layouts(M, N, K, 2, 2).c);
    acc = dot(ra, rb, acc);
    auto row = load_global(global_view(bias, {1, N}), {0, 0}, {1, N});
    store_global(global_view(c, {M, N}), acc + row, {0, 0});
  }
};

struct DotPinnedTo2x2 : DotWithoutLayouts {
  DotPinnedTo2x2() { pin_split_2x2 = true; }
};

template <class S> void check_dot_on_simulator(uint64_t seed) {
  const Device sim = Device::simulator();
  std::vector<f16> a, b;
  for (float x : random_floats(M * K, seed)) a.push_back(f16(x));
  for (float x : random_floats(K * N, seed + 1)) b.push_back(f16(x));
  const std::vector<float> bias = random_floats(N, seed + 2);
  Buffer<f16> da(sim, a), db(sim, b);
  Buffer<float> dbias(sim, bias), dc(sim, std::vector<float>(M * N, NAN));
  Kernel<S> kernel(sim);
  kernel(da, db, dbias, dc);
  const std::vector<float> got = dc.download();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = bias[j];
      for (int k = 0; k < K; ++k) want += double(float(a[i * K + k])) * double(float(b[k * N + j]));
      ASSERT_NEAR(got[i * N + j], want, 1e-4 * (1 + std::abs(want))) << "element " << i << ", " << j;
    }
}

TEST(LayoutInference, DotWithoutLayoutsMatchesTheHostReference) {
  check_dot_on_simulator<DotWithoutLayouts>(7);
  check_dot_on_simulator<DotWithoutLayouts>(8);
}

TEST(LayoutInference, DotSplitsWarpsByTheHeuristicUnlessAnOperandIsPinned) {
  const std::string heuristic =
      ir::print(*Kernel<DotWithoutLayouts>(Device::simulator())
                     .lowered((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr));
  // 64x32 over 4 warps: 4x1 and 2x2 both load 48 fragment rows per warp; ties go to warps along m.
  EXPECT_TRUE(testing::file_check(heuristic, "CHECK: = dot(%r, %r.1, %r.2) warps=4x1")) << heuristic;
  const std::string pinned = ir::print(*Kernel<DotPinnedTo2x2>(Device::simulator())
                                            .lowered((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr));
  EXPECT_TRUE(testing::file_check(pinned, "CHECK: = dot(%r, %r.1, %r.2) warps=2x2")) << pinned;
  EXPECT_EQ(pinned.find("annotate_layout"), std::string::npos) << "annotations are consumed";
  check_dot_on_simulator<DotPinnedTo2x2>(9);
}

// y = softmax(x) along rows, no layouts: the reductions and broadcasts follow the input's default.
struct SoftmaxWithoutLayouts : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {8, 64}), {0, 0}, {8, 64});
    auto e = exp(t - max(t, 1));
    store_global(global_view(y, {8, 64}), e / sum(e, 1), {0, 0});
  }
};

TEST(LayoutInference, SoftmaxChainFollowsTheInputLayout) {
  Kernel<SoftmaxWithoutLayouts> k(Device::simulator());
  const ir::Kernel lowered = k.lowered((float*)nullptr, (float*)nullptr);
  const Layout input = Layout::distributed({8, 64}, 128, 4);
  int reductions = 0, stores = 0;
  ir::walk(lowered->body, [&](const ir::StmtNode& s) {
    if (s.kind == ir::NodeKind::Reduce) {
      auto& n = static_cast<const ir::ReduceNode&>(s);
      EXPECT_EQ(n.a->layout, input);
      EXPECT_EQ(n.out->layout, input.reduced(1));
      ++reductions;
    }
    if (s.kind == ir::NodeKind::StoreGlobal) {
      EXPECT_EQ(static_cast<const ir::StoreGlobalNode&>(s).src->layout, input);
      ++stores;
    }
  });
  EXPECT_EQ(reductions, 2);
  EXPECT_EQ(stores, 1);

  const Device sim = Device::simulator();
  const std::vector<float> x = random_floats(8 * 64, 3);
  Buffer<float> dx(sim, x), dy(sim, std::vector<float>(8 * 64, NAN));
  k(dx, dy);
  const std::vector<float> got = dy.download();
  for (int r = 0; r < 8; ++r) {
    double mx = -INFINITY, total = 0;
    for (int c = 0; c < 64; ++c) mx = std::max(mx, double(x[r * 64 + c]));
    for (int c = 0; c < 64; ++c) total += std::exp(double(x[r * 64 + c]) - mx);
    for (int c = 0; c < 64; ++c)
      ASSERT_NEAR(got[r * 64 + c], std::exp(double(x[r * 64 + c]) - mx) / total, 1e-6) << r << ", " << c;
  }
}

// A tile whose extents have few factors of two takes runs shorter than 16 bytes rather than copies
// in other warps: f16 [4, 384] over 128 threads holds runs of 4 (12 elements a thread), not runs of 8
// on 64 threads twice.
struct CopyOfAnOddWidth : Script {
  void operator()(Ptr<f16> x, Ptr<f16> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {4, 384}), {0, 0}, {4, 384});
    store_global(global_view(y, {4, 384}), t, {0, 0});
  }
};

TEST(LayoutInference, TheDefaultShortensRunsRatherThanCopyElements) {
  Kernel<CopyOfAnOddWidth> k(Device::simulator());
  const ir::Kernel lowered = k.lowered((f16*)nullptr, (f16*)nullptr);
  ir::walk(lowered->body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::LoadGlobal) return;
    const Layout& l = static_cast<const ir::LoadGlobalNode&>(s).out->layout;
    EXPECT_EQ(l, Layout::distributed_runs({4, 384}, 128, 4)) << l.str();
    EXPECT_EQ(l.num_threads() * l.local_size(), 4 * 384) << "no element in two threads: " << l.str();
  });
  std::vector<f16> x;
  for (float v : random_floats(4 * 384, 5)) x.push_back(f16(v));
  Buffer<f16> dx(Device::simulator(), x), dy(Device::simulator(), std::vector<f16>(x.size(), f16(-1.0f)));
  k(dx, dy);
  const std::vector<f16> got = dy.download();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i].bits, x[i].bits) << i;
}

// ---- conflicts ----

int created = 0, pinned = 0, used = 0;  // lines the expected messages name
std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }
const Layout rows_over_threads = Layout::spatial({4, 32}) * Layout::local({16, 1});

struct AccumulatorPinnedAgainstDot : Script {
  void operator()(Ptr<f16> a, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {M, K}), {0, 0}, {M, K});
    auto rb = load_global(global_view(a, {K, N}), {0, 0}, {K, N});
    created = __LINE__ + 1;
    auto acc = register_tensor<float>({M, N}, 0.0f);
    pinned = __LINE__ + 1;
    annotate_layout(acc, rows_over_threads);
    used = __LINE__ + 1;
    store_global(global_view(c, {M, N}), dot(ra, rb, acc), {0, 0});
  }
};

TEST(LayoutInference, PinnedAccumulatorAgainstDotNamesBothRules) {
  const std::string got = testing::error_of<AccumulatorPinnedAgainstDot>((f16*)nullptr, (float*)nullptr);
  EXPECT_EQ(got, loc(used) + ": layout conflict: the tile created by register_tensor at " + loc(created) +
                     " is pinned by annotate_layout at " + loc(pinned) + " (" + rows_over_threads.str() +
                     "), but is needed as the mma C fragment by dot at " + loc(used) + " (" +
                     mma_layouts(M, N, K, 4, 1).c.str() + ")");
}

struct AssignmentBetweenPinnedLayouts : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    created = __LINE__ + 1;
    auto t = load_global(global_view(x, {M, N}), {0, 0}, {M, N}, rows_over_threads);
    pinned = __LINE__ + 1;
    auto u = register_tensor<float>({M, N}, 0.0f, Layout::distributed({M, N}, 128, 4));
    u = t;
    store_global(global_view(x, {M, N}), u, {0, 0});
  }
};

TEST(LayoutInference, AssignmentBetweenDifferentPinsNamesBothTiles) {
  const std::string got = testing::error_of<AssignmentBetweenPinnedLayouts>((float*)nullptr);
  EXPECT_EQ(got, loc(pinned) + ": layout conflict: the tile created by load_global at " + loc(created) +
                     " is pinned by the layout argument of load_global at " + loc(created) + " (" +
                     rows_over_threads.str() + "), but the tile created by register_tensor at " + loc(pinned) +
                     ", which must have the same layout, is pinned by the layout argument of register_tensor at " +
                     loc(pinned) + " (" + Layout::distributed({M, N}, 128, 4).str() + ")");
}

struct ReductionResultPinnedElsewhere : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {M, N}), {0, 0}, {M, N}, Layout::distributed({M, N}, 128, 4));
    created = __LINE__ + 1;
    auto s = sum(t, 1);
    pinned = __LINE__ + 1;
    annotate_layout(s, Layout::spatial({M, 1}) * Layout::replicated(2, 2));
    store_global(global_view(x, {M, 1}), s, {0, 0});
  }
};

TEST(LayoutInference, ReductionResultPinnedElsewhereNamesTheReduction) {
  const std::string got = testing::error_of<ReductionResultPinnedElsewhere>((float*)nullptr);
  const Layout pin = Layout::spatial({M, 1}) * Layout::replicated(2, 2);
  EXPECT_EQ(got, loc(created) + ": layout conflict: the tile created by sum at " + loc(created) +
                     " is pinned by annotate_layout at " + loc(pinned) + " (" + pin.str() +
                     "), but is the reduction over dim 1 by sum at " + loc(created) + " (" +
                     Layout::distributed({M, N}, 128, 4).reduced(1).str() + ")");
}

struct AnnotationOfTheWrongShape : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = register_tensor<float>({M, N}, 0.0f);
    pinned = __LINE__ + 1;
    annotate_layout(t, Layout::spatial({128}));
    store_global(global_view(x, {M, N}), t, {0, 0});
  }
};

TEST(LayoutInference, AnnotationIsCheckedWhereItIsWritten) {
  const std::string got = testing::error_of<AnnotationOfTheWrongShape>((float*)nullptr);
  EXPECT_EQ(got, loc(pinned) + ": annotate_layout: the layout covers shape [128] but the tile has shape [64, 32]");
}

// A pinned broadcast operand is checked against the result's inferred layout.
const Layout row_over_lanes = Layout::spatial({1, N}) * Layout::replicated(2, 4);

struct BroadcastOperandPinnedApart : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {M, N}), {0, 0}, {M, N});
    created = __LINE__ + 1;
    auto row = load_global(global_view(x, {1, N}), {0, 0}, {1, N}, row_over_lanes);
    used = __LINE__ + 1;
    store_global(global_view(x, {M, N}), t * row, {0, 0});
  }
};

TEST(LayoutInference, BroadcastOperandIsCheckedAgainstTheInferredResult) {
  const std::string got = testing::error_of<BroadcastOperandPinnedApart>((float*)nullptr);
  EXPECT_EQ(got, loc(used) + ": mul: the broadcast operand created at " + loc(created) + " (" + row_over_lanes.str() +
                     ") does not place its elements in the threads that need them for the result " +
                     Layout::distributed({M, N}, 128, 4).str() +
                     "; give the operands matching layouts (for a reduced tile, use the reduced layout of the other "
                     "operand), or move the operand with convert_layout(x, layout)");
}

// The same within one warp: each lane holds one element of the row, and each thread of the result
// needs four that lanes of its warp hold.
struct BroadcastOperandPinnedInOtherLanes : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {4, 32}), {0, 0}, {4, 32});
    created = __LINE__ + 1;
    auto row = load_global(global_view(x, {1, 32}), {0, 0}, {1, 32}, Layout::spatial({1, 32}));
    used = __LINE__ + 1;
    store_global(global_view(x, {4, 32}), t * row, {0, 0});
  }
};

TEST(LayoutInference, ABroadcastOperandInOtherLanesOfTheWarpCanBeConverted) {
  const std::string got = testing::error_of<BroadcastOperandPinnedInOtherLanes>((float*)nullptr);
  EXPECT_EQ(got, loc(used) + ": mul: the broadcast operand created at " + loc(created) + " (" +
                     Layout::spatial({1, 32}).str() +
                     ") does not place its elements in the threads that need them for the result " +
                     Layout::distributed({4, 32}, 32, 4).str() +
                     "; give the operands matching layouts (for a reduced tile, use the reduced layout of the other "
                     "operand), or move the operand with convert_layout(x, layout)");
}

// AWQ's nibbles regrouped after a bitcast and summed over rows: the reduction prefers a layout for
// the sum whose runs the bitcast cannot take, and the tile the coalescing default goes to first
// (the accumulator) would give the bitcast's result such runs too. The preference yields and the
// default goes to the next tile, so the kernel compiles with no layout written.
struct NibblesSummedOverRows : Script {
  bool pin_accumulator = false;
  void operator()(Int32 k, Ptr<uint32_t> w, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    pinned = __LINE__ + 1;
    auto acc = register_tensor<float>({128, 64}, 0.0f);
    if (pin_accumulator) annotate_layout(acc, Layout::spatial({4, 32}) * Layout::local({32, 2}));
    for (Int32 k0 : range(0, k, 128)) {
      auto words = load_global(global_view(w, {k, 8}), {k0, 0}, {128, 8});
      used = __LINE__ + 1;
      auto q = reshape(permute(reshape(words.bitcast<u4>().to<int32_t>(), {128, 8, 2, 4}), {0, 1, 3, 2}), {128, 64});
      acc = acc + q.to<float>();
    }
    store_global(global_view(out, {1, 64}), sum(acc, 0), {0, 0});
  }
};

TEST(LayoutInference, APreferenceOrDefaultYieldsToABitcastItWouldBreak) {
  const int k = 256;
  std::mt19937 rng{11};
  std::vector<uint32_t> w(size_t(k) * 8);
  for (uint32_t& v : w) v = uint32_t(rng());
  // Nibble i of word j of a row lands in column 8 j + order[i].
  const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  std::vector<float> want(64, 0.0f);
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i)
        want[size_t(8 * j + order[i])] += float((w[size_t(r) * 8 + size_t(j)] >> (4 * i)) & 15);
  for (const sim::Options& o : testing::every_order()) {
    Buffer<uint32_t> dw(Device::simulator(), w);
    Buffer<float> out(Device::simulator(), std::vector<float>(64, NAN));
    Kernel<NibblesSummedOverRows>(Device::simulator(), KernelOptions{.sim = o})(k, dw, out);
    EXPECT_EQ(out.download(), want);
  }
}

struct NibblesSummedIntoAPinnedAccumulator : NibblesSummedOverRows {
  NibblesSummedIntoAPinnedAccumulator() { pin_accumulator = true; }
};

// Where a pin does break the bitcast, the refusal names the tile the layout came from.
TEST(LayoutInference, ARefusedDerivationNamesWhereTheLayoutComesFrom) {
  const std::string got =
      testing::error_of<NibblesSummedIntoAPinnedAccumulator>(256, (uint32_t*)nullptr, (float*)nullptr);
  EXPECT_EQ(got, loc(used) + ": bitcast<T>(): the tile created by bitcast<T>() at " + loc(used) +
                     " (layout[128,64](d0=4x32 d1=8x2x4; threads=d0.0,d1.0,d1.2; local=d0.1,d1.1)) does not hold "
                     "runs of 8 consecutive elements of its last dimension in consecutive registers of each thread, "
                     "which 32 bits of the bitcast take; give it a layout that does (its layout comes from the tile "
                     "created by register_tensor at " +
                     loc(pinned) + ", which is pinned by annotate_layout at " + loc(pinned + 1) +
                     ": pin a layout on a tile between them, or convert_layout(x, layout) one of them)");
}

}  // namespace
}  // namespace tessel
