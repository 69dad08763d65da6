// choose_swizzles: decides the swizzle of each shared tile created without one: the span of its
// row when wgmma reads it, the smallest conflict-free pattern when ldmatrix reads it and 8-row reads
// would conflict, none otherwise, or when TMA moves the tile in rows wider than that pattern; tiles
// created with a Swizzle keep theirs.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

ir::Kernel before_pass(ir::Kernel k) { return lowered_before(std::move(k), "choose_swizzles"); }

template <class S> ir::Kernel traced() {
  return before_pass(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1, (float*)nullptr));
}

// mma.sync operands read by ldmatrix: A from a tile of 128-byte rows, B from the transpose of one
// of 32-byte rows, a second A from a tile that opted out; the result goes through a plain tile.
struct MmaFromShared : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s_a = shared_tensor<f16>({16, 64});
    auto s_b = shared_tensor<f16>({8, 16});
    auto s_c = shared_tensor<float>({16, 8});
    auto s_fixed = shared_tensor<f16>({16, 64}, Swizzle::none);
    auto a = load_shared(s_a, {0, 0}, {16, 16});
    auto b = load_shared(s_b.transpose());
    auto c = dot(a, b, register_tensor<float>({16, 8}, 0.0f));
    auto c2 = dot(load_shared(s_fixed, {0, 16}, {16, 16}), b, c);
    store_shared(s_c, c2);
    store_global(global_view(out, {16, 8}), load_shared(s_c), {0, 0});
  }
};

TEST(ChooseSwizzles, SwizzlesTilesThatLdmatrixReadsWithConflicts) {
  const ir::Kernel k = traced<MmaFromShared>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %s = alloc_shared<f16>[16, 64] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.1 = alloc_shared<f16>[8, 16] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.2 = alloc_shared<f32>[16, 8] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.3 = alloc_shared<f16>[16, 64] offset=-1
    CHECK: = load_shared %s at [0, 0] by ldmatrix A over 1x1 warps
    CHECK-NEXT: = load_shared view<f16>(%s.1 + 0, shape=[16, 8], strides=[1, 16]) at [0, 0] by ldmatrix B over 1x1 warps
    CHECK: = load_shared %s.3 at [0, 16] by ldmatrix A over 1x1 warps
    CHECK: store_shared %acc.1 to %s.2 at [0, 0] vector=2
  )"));
  const ir::Kernel out = passes::choose_swizzles(k, {});
  ASSERT_NE(out, k);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: %s = alloc_shared<f16>[16, 64] offset=-1 swizzle=128B
    CHECK-NEXT: %s.1 = alloc_shared<f16>[8, 16] offset=-1 swizzle=32B
    CHECK-NEXT: %s.2 = alloc_shared<f32>[16, 8] offset=-1
    CHECK-NEXT: %s.3 = alloc_shared<f16>[16, 64] offset=-1
    CHECK-NOT: swizzle=
  )"));
  // Nothing but the allocations' swizzles changes.
  std::string expected = ir::print(*k);
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"[16, 64] offset=-1 swizzle=undecided", "[16, 64] offset=-1 swizzle=128B"},
           {"[8, 16] offset=-1 swizzle=undecided", "[8, 16] offset=-1 swizzle=32B"},
           {"[16, 8] offset=-1 swizzle=undecided", "[16, 8] offset=-1"}})
    expected.replace(expected.find(from), from.size(), to);
  EXPECT_EQ(ir::print(*out), expected);
  EXPECT_EQ(passes::choose_swizzles(out, {}), out) << "every tile is decided";
}

// wgmma reads both operands from tiles of 64-byte rows (k = 32 of f16).
struct WgmmaFromShared : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 32});
    auto s_b = shared_tensor<f16>({32, 32});
    auto acc = register_tensor<float>({64, 32}, 0.0f);
    wgmma.fence();
    wgmma.mma(s_a, s_b.transpose(), acc);
    wgmma.commit_group();
    wgmma.wait_group(0);
    store_global(global_view(out, {64, 32}), acc, {0, 0});
  }
};

TEST(ChooseSwizzles, GivesTilesThatWgmmaReadsTheSpanOfTheirRows) {
  const ir::Kernel k = traced<WgmmaFromShared>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %s = alloc_shared<f16>[64, 32] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.1 = alloc_shared<f16>[32, 32] offset=-1 swizzle=undecided
    CHECK: wgmma.mma %r += %s @ view<f16>(%s.1 + 0, shape=[32, 32], strides=[1, 32]) m64n32k16
  )"));
  EXPECT_TRUE(file_check(ir::print(*passes::choose_swizzles(k, {})), R"(
    CHECK: %s = alloc_shared<f16>[64, 32] offset=-1 swizzle=64B
    CHECK-NEXT: %s.1 = alloc_shared<f16>[32, 32] offset=-1 swizzle=64B
    CHECK: wgmma.mma %r += %s @ view<f16>(%s.1 + 0, shape=[32, 32], strides=[1, 32]) m64n32k16
  )"));
}

// Two tiles that TMA loads and ldmatrix reads. 8-row reads of the 224-byte rows of the first would
// take the 32-byte pattern, too narrow for the box's rows; the 128-byte pattern of the second holds
// its rows.
struct LdmatrixOfTmaTiles : Script {
  void operator()(Int32 n, Ptr<f16> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(in, {16, 112});
    auto s_wide = shared_tensor<f16>({16, 112});
    auto s_line = shared_tensor<f16>({16, 64});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], s_wide.nbytes() + s_line.nbytes());
      tma.global_to_shared(g, s_wide, {0, 0}, bars[0]);
      tma.global_to_shared(g, s_line, {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], 0);
    auto b = register_tensor<f16>({16, 8}, 1.0f);
    auto c = dot(load_shared(s_wide, {0, 96}, {16, 16}), b, register_tensor<float>({16, 8}, 0.0f));
    c = dot(load_shared(s_line, {0, 48}, {16, 16}), b, c);
    store_global(global_view(out, {16, 8}), c, {0, 0});
  }
};

TEST(ChooseSwizzles, LeavesTilesUnswizzledWhereTmaRowsAreWiderThanThePattern) {
  const ir::Kernel k = before_pass(Kernel<LdmatrixOfTmaTiles>(Device::simulator(), KernelOptions{"sm_90a"})
                                       .traced(1, (f16*)nullptr, (float*)nullptr));
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %s = alloc_shared<f16>[16, 112] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.1 = alloc_shared<f16>[16, 64] offset=-1 swizzle=undecided
    CHECK: = load_shared %s at [0, 96] by ldmatrix A over 1x1 warps
    CHECK: = load_shared %s.1 at [0, 48] by ldmatrix A over 1x1 warps
  )"));
  std::string expected = ir::print(*k);
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"[16, 112] offset=-1 swizzle=undecided", "[16, 112] offset=-1"},
           {"[16, 64] offset=-1 swizzle=undecided", "[16, 64] offset=-1 swizzle=128B"}})
    expected.replace(expected.find(from), from.size(), to);
  EXPECT_EQ(ir::print(*passes::choose_swizzles(k, {})), expected);
}

// Every tile's swizzle is fixed by its creation.
struct DecidedTiles : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({16, 64}, Swizzle::none);
    auto t = shared_tensor<f16>({16, 64}, Swizzle::b64);
    store_shared(s, register_tensor<f16>({16, 64}, 1.0f));
    store_shared(t, load_shared(s));
  }
};

TEST(ChooseSwizzles, LeavesAKernelOfDecidedTilesAlone) {
  const ir::Kernel k = traced<DecidedTiles>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %s = alloc_shared<f16>[16, 64] offset=-1
    CHECK-NEXT: %s.1 = alloc_shared<f16>[16, 64] offset=-1 swizzle=64B
    CHECK-NOT: undecided
  )"));
  EXPECT_EQ(passes::choose_swizzles(k, {}), k);
}

}  // namespace
}  // namespace tessel::testing
