// plan_fast_divmods: gives each distinct grid-constant divisor of a fast_divmod three parameters
// that the launch computes (the divisor and its magic numbers), turns a divisor that is a constant
// into / and %, and reports a divisor that is not the same for the whole grid.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

template <class S> ir::Kernel traced() {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(100, 200), "plan_fast_divmods");
}

template <class S> std::string plan_error() {
  const ir::Kernel k = traced<S>();
  return error_of_call([&] { passes::plan_fast_divmods(k, {}); });
}

// Two divisions by the tiles of a row (a variable declared once from n), one by m, one by a
// variable that is 8.
struct Rasterizes : Script {
  void operator()(Int32 m, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 tiles_n = cdiv(n, 16);
    auto [row, col] = fast_divmod(blockIdx.x, tiles_n);
    auto [row2, col2] = fast_divmod(blockIdx.x + 1, tiles_n);
    auto [q, r] = fast_divmod(blockIdx.x, m);
    Int32 eight = 8;
    auto [q8, r8] = fast_divmod(blockIdx.x, eight);
  }
};

TEST(PlanFastDivmods, DerivesEachDistinctDivisorsMagicOnce) {
  const ir::Kernel k = traced<Rasterizes>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: kernel Rasterizes(%arg0: i32, %arg1: i32 [multiple of 8]) blocks=[1] warps=1 shared=0 {
    CHECK-NEXT: %v: i32 = div(sub(add(%arg1, 16), 1), 16)
    CHECK: %v.1, %v.2 = fast_divmod(blockIdx.x, %v)
    CHECK: %v.3, %v.4 = fast_divmod(add(blockIdx.x, 1), %v)
    CHECK: %v.5, %v.6 = fast_divmod(blockIdx.x, %arg0)
    CHECK: %v.7: i32 = 8
    CHECK: %v.8, %v.9 = fast_divmod(blockIdx.x, %v.7)
  )"));
  const ir::Kernel out = passes::plan_fast_divmods(k, {});
  ASSERT_NE(out, k);
  // The divisor of tiles_n is its definition, over the parameters; the two divisions by it share
  // their magic numbers; the division by 8 is / and %.
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: kernel Rasterizes(%arg0: i32, %arg1: i32 [multiple of 8], %divisor: i32, %divisor_multiplier: u32, %divisor_log2: u32, %divisor.1: i32, %divisor_multiplier.1: u32, %divisor_log2.1: u32) blocks=[1] warps=1 shared=0 {
    CHECK-NEXT: // %divisor = fast_divmod divisor div(sub(add(%arg1, 16), 1), 16), at launch
    CHECK-NEXT: // %divisor_multiplier = fast_divmod multiplier of div(sub(add(%arg1, 16), 1), 16), at launch
    CHECK-NEXT: // %divisor_log2 = fast_divmod ceil(log2) of div(sub(add(%arg1, 16), 1), 16), at launch
    CHECK-NEXT: // %divisor.1 = fast_divmod divisor %arg0, at launch
    CHECK-NEXT: // %divisor_multiplier.1 = fast_divmod multiplier of %arg0, at launch
    CHECK-NEXT: // %divisor_log2.1 = fast_divmod ceil(log2) of %arg0, at launch
    CHECK-NEXT: %v: i32 = div(sub(add(%arg1, 16), 1), 16)
    CHECK-NEXT: %v.1: i32 = 0
    CHECK-NEXT: %v.2: i32 = 0
    CHECK-NEXT: %v.1, %v.2 = fast_divmod(blockIdx.x, %divisor) magic=(%divisor_multiplier, %divisor_log2)
    CHECK-NEXT: %v.3: i32 = 0
    CHECK-NEXT: %v.4: i32 = 0
    CHECK-NEXT: %v.3, %v.4 = fast_divmod(add(blockIdx.x, 1), %divisor) magic=(%divisor_multiplier, %divisor_log2)
    CHECK-NEXT: %v.5: i32 = 0
    CHECK-NEXT: %v.6: i32 = 0
    CHECK-NEXT: %v.5, %v.6 = fast_divmod(blockIdx.x, %divisor.1) magic=(%divisor_multiplier.1, %divisor_log2.1)
    CHECK-NEXT: %v.7: i32 = 8
    CHECK-NEXT: %v.8: i32 = 0
    CHECK-NEXT: %v.9: i32 = 0
    CHECK-NEXT: %v.8 = div(blockIdx.x, 8)
    CHECK-NEXT: %v.9 = mod(blockIdx.x, 8)
    CHECK-NEXT: }
  )"));
  EXPECT_EQ(out->derived_params.size(), 6u);
  EXPECT_EQ(passes::plan_fast_divmods(out, {}), out) << "every fast_divmod is planned";
}

struct DividesByOtherwise : Script {
  void operator()(Int32 m, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto [q, r] = fast_divmod(blockIdx.x, 16);  // traced as / and %
  }
};

TEST(PlanFastDivmods, LeavesAKernelWithoutFastDivmodsAlone) {
  const ir::Kernel k = traced<DividesByOtherwise>();
  EXPECT_TRUE(file_check(ir::print(*k), "CHECK-NOT: fast_divmod"));
  EXPECT_EQ(passes::plan_fast_divmods(k, {}), k);
}

struct DividesByTheBlock : Script {
  static inline int line = 0;
  void operator()(Int32 m, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(n, blockIdx.y + 1);
  }
};

TEST(PlanFastDivmods, ReportsADivisorThatDependsOnTheBlock) {
  const std::string got = plan_error<DividesByTheBlock>();
  EXPECT_EQ(got, at(DividesByTheBlock::line) +
                     ": fast_divmod: the divisor must be the same for the whole grid (computed on the host from the "
                     "kernel's parameters at launch), but it depends on blockIdx.y; divide with / and % instead");
}

struct DividesByAnAssignedVariable : Script {
  static inline int declared = 0, line = 0;
  void operator()(Int32 m, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    declared = __LINE__ + 1;
    Int32 d = n;
    d = d + 1;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(m, d);
  }
};

TEST(PlanFastDivmods, ReportsADivisorThatIsAssigned) {
  using S = DividesByAnAssignedVariable;
  const std::string got = plan_error<S>();
  EXPECT_EQ(got, at(S::line) +
                     ": fast_divmod: the divisor must be the same for the whole grid (computed "
                     "on the host from the kernel's parameters at launch), but it depends on "
                     "the kernel variable created at " +
                     at(S::declared) + ", which is assigned or is a loop's variable; divide with / and % instead");
}

struct DividesByZero : Script {
  static inline int line = 0;
  void operator()(Int32 m, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 zero = 0;
    line = __LINE__ + 1;
    auto [q, r] = fast_divmod(m, zero);
  }
};

TEST(PlanFastDivmods, ReportsADivisorThatIsZero) {
  const std::string got = plan_error<DividesByZero>();
  EXPECT_EQ(got, at(DividesByZero::line) + ": fast_divmod: the divisor is 0");
}

}  // namespace
}  // namespace tessel::testing
