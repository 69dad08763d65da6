// select_instructions: records how each data movement is carried out: the widest vector of global
// accesses over a unit-stride last dimension, of shared stores, and of cp.async (with the copy's
// split over the threads); ldmatrix for mma fragments read from shared tiles; stmatrix (sm_90+) for
// 16-bit accumulators written to them.
#include "pass_test.hpp"
#include "tessel/ir/mutator.hpp"

namespace tessel::testing {
namespace {

template <class S> ir::Kernel traced(ir::Arch arch = ir::Arch::Sm90a) {
  return lowered_before(
      Kernel<S>(Device::simulator(), KernelOptions{std::string(ir::arch_name(arch))}).traced(1, (float*)nullptr),
      "select_instructions", arch);
}

// Rows of floats from global to shared and back, a column-major store, and a cp.async.
struct MovesRows : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto rows = global_view(x, {32, 64});
    auto columns = global_view(x, {64, 32}, {1, 64});
    auto s = shared_tensor<float>({32, 64});
    auto s2 = shared_tensor<float>({8, 64});
    store_shared(s, load_global(rows, {0, 0}, {32, 64}));
    sync();
    store_global(columns, load_shared(s), {0, 0});
    copy_async(rows, s2, {8, 0});
    copy_async_wait_all();
  }
};

TEST(SelectInstructions, ChoosesTheWidestVectorsTheRunsAllow) {
  const ir::Kernel k = traced<MovesRows>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: = load_global global<f32>(%arg1, shape=[32, 64], strides=[64, 1]) at [0, 0]
    CHECK-NEXT: store_shared %r to %s at [0, 0]
    CHECK: store_global %r.1 to global<f32>(%arg1, shape=[64, 32], strides=[1, 64]) at [0, 0]
    CHECK-NEXT: copy_async global<f32>(%arg1, shape=[32, 64], strides=[64, 1]) at [8, 0] to %s.1
  )"));
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK-NOT: vector=
    CHECK-NOT: by layout
  )"));
  const ir::Kernel out = passes::select_instructions(k, {});
  ASSERT_NE(out, k);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: = load_global global<f32>(%arg1, shape=[32, 64], strides=[64, 1]) at [0, 0] vector=4
    CHECK-NEXT: store_shared %r to %s at [0, 0] vector=4
    CHECK-NEXT: sync
    CHECK-NEXT: = load_shared %s at [0, 0]
    CHECK-NEXT: store_global %r.1 to global<f32>(%arg1, shape=[64, 32], strides=[1, 64]) at [0, 0]
    CHECK-NEXT: copy_async global<f32>(%arg1, shape=[32, 64], strides=[64, 1]) at [8, 0] to %s.1 by layout[8,64](d0=4x2 d1=16x4; threads=d0.1,d1.0; local=d0.0,d1.1)
    CHECK-NEXT: copy_async_wait_all
  )"));
  int copies = 0;
  ir::walk(out->body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::CopyAsync) return;
    const auto& copy = static_cast<const ir::CopyAsyncNode&>(s);
    EXPECT_EQ(copy.vector, 4) << "16 bytes per cp.async";
    EXPECT_EQ(copy.layout.num_threads(), 32);
    ++copies;
  });
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(passes::select_instructions(out, {}), out) << "everything is selected";
}

// mma.sync operands loaded from shared tiles, the f16 result stored to one.
struct MmaThroughShared : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s_a = shared_tensor<f16>({16, 16});
    auto s_b = shared_tensor<f16>({8, 16});
    auto s_c = shared_tensor<f16>({16, 8});
    auto c = dot(load_shared(s_a), load_shared(s_b.transpose()), register_tensor<float>({16, 8}, 0.0f));
    store_shared(s_c, c.to<f16>());
  }
};

TEST(SelectInstructions, ReadsFragmentsByLdmatrixAndWritesThemByStmatrix) {
  const ir::Kernel k = traced<MmaThroughShared>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: = load_shared view<f16>(%s.1 + 0, shape=[16, 8], strides=[1, 16]) at [0, 0]
    CHECK-NEXT: = load_shared %s at [0, 0]
    CHECK: store_shared %r.3 to %s.2 at [0, 0]
  )"));
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK-NOT: ldmatrix
    CHECK-NOT: stmatrix
    CHECK-NOT: vector=
  )"));
  const ir::Kernel out = passes::select_instructions(k, {ir::Arch::Sm90a});
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: = load_shared view<f16>(%s.1 + 0, shape=[16, 8], strides=[1, 16]) at [0, 0] by ldmatrix B over 1x1 warps
    CHECK-NEXT: = load_shared %s at [0, 0] by ldmatrix A over 1x1 warps
    CHECK: store_shared %r.3 to %s.2 at [0, 0] by stmatrix over 1x1 warps
  )"));
  // stmatrix exists from sm_90: on sm_80 the store is a vector one.
  const ir::Kernel ampere = traced<MmaThroughShared>(ir::Arch::Sm80);
  const std::string sm80 = ir::print(*passes::select_instructions(ampere, {ir::Arch::Sm80}));
  EXPECT_TRUE(file_check(sm80, R"(
    CHECK: = load_shared %s at [0, 0] by ldmatrix A over 1x1 warps
    CHECK-NOT: stmatrix
    CHECK: store_shared %r.3 to %s.2 at [0, 0] vector=2
  )"));
}

// A load and a store over a view whose last dimension is strided: one element per access.
struct MovesColumns : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto columns = global_view(x, {64, 32}, {1, 64});
    store_global(columns, load_global(columns, {0, 0}, {64, 32}) * 2.0f, {0, 0});
  }
};

// The vectors of global accesses, 0 until selected (the printer shows neither 0 nor 1).
std::vector<int> global_vectors(const ir::Kernel& k) {
  std::vector<int> vectors;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    if (s.kind == ir::NodeKind::LoadGlobal) vectors.push_back(static_cast<const ir::LoadGlobalNode&>(s).vector);
    if (s.kind == ir::NodeKind::StoreGlobal) vectors.push_back(static_cast<const ir::StoreGlobalNode&>(s).vector);
  });
  return vectors;
}

TEST(SelectInstructions, SelectsSingleElementsOverAStridedLastDimension) {
  const ir::Kernel k = traced<MovesColumns>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: = load_global global<f32>(%arg1, shape=[64, 32], strides=[1, 64]) at [0, 0]
    CHECK: store_global %r.1 to global<f32>(%arg1, shape=[64, 32], strides=[1, 64]) at [0, 0]
  )"));
  EXPECT_EQ(global_vectors(k), (std::vector<int>{0, 0}));
  const ir::Kernel out = passes::select_instructions(k, {});
  ASSERT_NE(out, k);
  EXPECT_EQ(global_vectors(out), (std::vector<int>{1, 1}));
  EXPECT_EQ(ir::print(*out), ir::print(*k));
  EXPECT_EQ(passes::select_instructions(out, {}), out);
}

// Scalars and a block sync: no data movement to select.
struct MovesNothing : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 twice = n * 2;
    sync();
    twice = twice + 1;
  }
};

TEST(SelectInstructions, LeavesAKernelWithoutDataMovementAlone) {
  const ir::Kernel k = traced<MovesNothing>();
  EXPECT_EQ(passes::select_instructions(k, {}), k);
}

}  // namespace
}  // namespace tessel::testing
