// plan_multiprocessors: replaces every use of `multiprocessors` in the body by one parameter that
// the launch fills with the device's SM count; the grid keeps the built-in.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

template <class S> ir::Kernel traced() {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(100), "plan_multiprocessors");
}

// A persistent grid striding over the tiles by the SM count, which the body uses twice.
struct Persistent : Script {
  void operator()(Int32 tiles) {
    attrs.blocks = min(tiles, multiprocessors);
    attrs.warps = 1;
    for (Int32 tile : range(blockIdx.x, tiles, multiprocessors)) {
      Int32 last = multiprocessors - 1;
    }
  }
};

TEST(PlanMultiprocessors, TurnsTheBodysUsesIntoOneParameter) {
  const ir::Kernel k = traced<Persistent>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: kernel Persistent(%arg0: i32) blocks=[min(%arg0, multiprocessors)] warps=1 shared=0 {
    CHECK-NEXT: for %i in range(blockIdx.x, %arg0, multiprocessors) {
    CHECK-NEXT: %v: i32 = sub(multiprocessors, 1)
    CHECK-NEXT: }
    CHECK-NEXT: }
  )"));
  const ir::Kernel out = passes::plan_multiprocessors(k, {});
  ASSERT_NE(out, k);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: kernel Persistent(%arg0: i32, %multiprocessors: i32) blocks=[min(%arg0, multiprocessors)] warps=1 shared=0 {
    CHECK-NEXT: // %multiprocessors = the device's multiprocessor count, at launch
    CHECK-NEXT: for %i in range(blockIdx.x, %arg0, %multiprocessors) {
    CHECK-NEXT: %v: i32 = sub(%multiprocessors, 1)
    CHECK-NEXT: }
    CHECK-NEXT: }
  )"));
  ASSERT_EQ(out->derived_params.size(), 1u);
  EXPECT_EQ(out->derived_params[0].value, ir::DerivedValue::Multiprocessors);
  EXPECT_EQ(out->derived_params[0].param, out->params.back());
  EXPECT_EQ(passes::plan_multiprocessors(out, {}), out) << "no use is left";
}

// Only the grid uses the SM count.
struct PersistentGridOnly : Script {
  void operator()(Int32 tiles) {
    attrs.blocks = min(tiles, multiprocessors);
    attrs.warps = 1;
    for (Int32 tile : range(blockIdx.x, tiles, gridDim.x)) {
      Int32 last = tile - 1;
    }
  }
};

TEST(PlanMultiprocessors, LeavesAKernelWhoseBodyDoesNotUseItAlone) {
  const ir::Kernel k = traced<PersistentGridOnly>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: blocks=[min(%arg0, multiprocessors)]
    CHECK-NOT: multiprocessors
  )"));
  EXPECT_EQ(passes::plan_multiprocessors(k, {}), k);
}

}  // namespace
}  // namespace tessel::testing
