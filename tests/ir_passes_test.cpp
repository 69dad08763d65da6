// The printer as a contract, each pass before/after, the pipeline's IR dumps, and the verifier.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "examples.hpp"
#include "filecheck.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/verifier.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel {
namespace {

struct Tiny : Script {
  int block = 256;
  void operator()(Int32 n, Ptr<float> x) {
    Int32 blocks = cdiv(n, block);
    attrs.blocks = blocks;
    attrs.warps = 2;
    auto s = shared_tensor<float>({block});
    auto s2 = shared_tensor<f16>({3});
    Int32 offset = blockIdx.x * block + 0;
    auto t = load_global(global_view(x, {n}), {offset}, {block});
    store_shared(s, t * 1.0f);
    sync();
    store_global(global_view(x, {n}), load_shared(s), {offset});
  }
};

ir::Kernel traced_tiny() {
  Kernel<Tiny> k(Device::simulator());
  return k.traced(1000, (float*)nullptr);
}

TEST(Printer, IsDeterministicAcrossTraces) {
  EXPECT_EQ(ir::print(*traced_tiny()), ir::print(*traced_tiny()));
  const auto& e = examples::find_example("matmul_simt");
  EXPECT_EQ(ir::print(*e.ir({64, 64, 64}, true)), ir::print(*e.ir({64, 64, 64}, true)));
}

TEST(Printer, ShowsTheTracedKernel) {
  EXPECT_TRUE(testing::file_check(ir::print(*traced_tiny()), R"(
    CHECK: kernel Tiny(%arg0: i32 [multiple of 8], %arg1: ptr<f32> [16-byte aligned]) blocks=[%v] warps=2 shared=-1 {
    CHECK-NEXT: %v: i32 = div(sub(add(%arg0, 256), 1), 256)
    CHECK-NEXT: %s = alloc_shared<f32>[256] offset=-1 swizzle=undecided
    CHECK-NEXT: %s.1 = alloc_shared<f16>[3] offset=-1 swizzle=undecided
    CHECK-NEXT: %v.1: i32 = add(mul(blockIdx.x, 256), 0)
    CHECK-NEXT: %r: reg<f32> unresolved[256] over 64 threads = load_global global<f32>(%arg1, shape=[%arg0], strides=[1]) at [%v.1]
    CHECK-NEXT: %r.1: reg<f32> unresolved[256] over 64 threads = mul(%r, 1:f32)
    CHECK-NEXT: store_shared %r.1 to %s at [0]
    CHECK-NEXT: sync
  )"));
}

TEST(Passes, InferLayoutsResolvesEveryTile) {
  const ir::Kernel k = traced_tiny();
  const ir::Kernel out = passes::infer_layouts(k, {});
  EXPECT_NE(out, k);
  EXPECT_TRUE(testing::file_check(ir::print(*out), R"(
    CHECK: %r: reg<f32> layout[256](d0=64x4; threads=d0.0; local=d0.1) = load_global
    CHECK-NEXT: %r.1: reg<f32> layout[256](d0=64x4; threads=d0.0; local=d0.1) = mul(%r, 1:f32)
    CHECK: %r.2: reg<f32> layout[256](d0=64x4; threads=d0.0; local=d0.1) = load_shared %s at [0]
  )"));
  EXPECT_EQ(passes::infer_layouts(out, {}), out) << "a pass that changes nothing returns its input";
}

TEST(Passes, InlineGridValuesReplacesBodyVariables) {
  const ir::Kernel k = traced_tiny();
  const ir::Kernel out = passes::inline_launch_values(k, {});
  EXPECT_NE(out, k);
  EXPECT_TRUE(testing::file_check(ir::print(*out), "CHECK: blocks=[div(sub(add(%arg0, 256), 1), 256)]"));
  EXPECT_EQ(passes::inline_launch_values(out, {}), out) << "a pass that changes nothing returns its input";
}

TEST(Passes, SimplifyFoldsIdentities) {
  const ir::Kernel out = passes::simplify_scalars(traced_tiny(), {});
  EXPECT_TRUE(testing::file_check(ir::print(*out), R"(
    CHECK: %v.1: i32 = mul(blockIdx.x, 256)
  )"));
  EXPECT_EQ(passes::simplify_scalars(out, {}), out);
}

TEST(Passes, SharedMemoryPlanAlignsEveryAllocation) {
  const ir::Kernel out = passes::plan_shared_memory(traced_tiny(), {});
  EXPECT_EQ(out->shared_bytes, 1024 + 6);
  EXPECT_TRUE(testing::file_check(ir::print(*out), R"(
    CHECK: shared=1030 {
    CHECK-NEXT: // shared memory plan: 1030 bytes in 2 allocations
    CHECK-NEXT: //   %s: f32[256] at bytes [0, 1024) aligned to 128, unswizzled
    CHECK-NEXT: //   %s.1: f16[3] at bytes [1024, 1030) aligned to 128, unswizzled
    CHECK: %s = alloc_shared<f32>[256] offset=0
    CHECK-NEXT: %s.1 = alloc_shared<f16>[3] offset=1024
  )"));
}

TEST(Passes, PipelineIsListedAndVerifiedAndDumpsOnlyChanges) {
  std::vector<std::string> names;
  for (const auto& p : passes::pipeline()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"inline_launch_values", "infer_layouts", "contract_multiply_adds",
                                             "simplify_scalars", "check_transaction_bytes", "check_arrival_counts",
                                             "check_async_copy_waits", "check_shared_handoffs", "plan_reductions",
                                             "select_instructions", "choose_swizzles", "plan_shared_memory",
                                             "plan_tensor_maps", "allocate_barriers", "plan_fast_divmods",
                                             "plan_multiprocessors", "plan_trace_buffer", "plan_tensor_memory"}));

  const auto dir = std::filesystem::temp_directory_path() / "tessel-dump-test";
  std::filesystem::remove_all(dir);
  setenv("TESSEL_DUMP_IR", dir.c_str(), 1);
  std::vector<passes::PassTiming> timings;
  const ir::Kernel lowered = passes::lower(traced_tiny(), {}, &timings);
  unsetenv("TESSEL_DUMP_IR");
  ASSERT_EQ(timings.size(), 18u);
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{
                       "Tiny.00.traced.ir", "Tiny.01.inline_launch_values.ir", "Tiny.02.infer_layouts.ir",
                       "Tiny.04.simplify_scalars.ir", "Tiny.10.select_instructions.ir", "Tiny.11.choose_swizzles.ir",
                       "Tiny.12.plan_shared_memory.ir"}));  // no multiply-adds, four checks, no reductions or
                                                            // tensor maps: unchanged
  std::ifstream last(dir / "Tiny.12.plan_shared_memory.ir");
  std::string text((std::istreambuf_iterator<char>(last)), {});
  EXPECT_EQ(text, ir::print(*lowered));
  // Lowering an already-lowered kernel changes nothing, so nothing but the input is dumped.
  std::filesystem::remove_all(dir);
  setenv("TESSEL_DUMP_IR", dir.c_str(), 1);
  passes::lower(lowered, {});
  unsetenv("TESSEL_DUMP_IR");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

TEST(Verifier, RejectsATileUsedOutsideItsScope) {
  // Built by hand: a tile defined inside a loop and stored after it.
  auto layout = Layout::spatial({32});
  auto tile =
      ir::make<ir::RegisterTensorNode>(DType::F32, std::vector<int>{32}, 32, layout, "r", SourceLoc{"k.cpp", 3});
  auto i = ir::make_var(ir::Type{}, "i");
  auto body = ir::seq({ir::make<ir::AllocRegisterNode>(SourceLoc{"k.cpp", 3}, tile, ir::const_float(1))});
  auto ptr = ir::make_var(ir::Type{DType::F32, true}, "p");
  auto g = ir::make<ir::GlobalTensorNode>(
      ir::GlobalTensorNode{DType::F32, ptr, {ir::const_int(32)}, {ir::const_int(1)}, "g", {}});
  auto k = std::make_shared<ir::KernelNode>();
  k->name = "k";
  k->params = {ptr};
  k->blocks = {ir::const_int(1)};
  k->warps = 1;
  k->body =
      ir::seq({ir::make<ir::ForNode>(SourceLoc{}, i, ir::const_int(0), ir::const_int(2), ir::const_int(1), 0, body),
               ir::make<ir::StoreGlobalNode>(SourceLoc{"k.cpp", 5}, g, tile, std::vector<ir::Expr>{ir::const_int(0)})});
  try {
    ir::verify(*k, ir::Arch::Sm90a);
    FAIL() << "verified";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:5: the register tile created at k.cpp:3 is used outside the scope that created it");
  }
}

}  // namespace
}  // namespace tessel
