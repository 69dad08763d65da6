// plan_tensor_memory: marks the kernel's last tcgen05.alloc, when it is not inside a loop or a
// branch, to relinquish the block's permit to allocate; sets the kernel's CTA group from its
// allocations; reports a block holding more than 512 columns at once, and allocations of two CTA
// groups.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

template <class S> ir::Kernel traced() {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_100a"}).traced(4), "plan_tensor_memory",
                        ir::Arch::Sm100a);
}

template <class S> std::string plan_error() {
  const ir::Kernel k = traced<S>();
  return error_of_call([&] { passes::plan_tensor_memory(k, {ir::Arch::Sm100a}); });
}

// 64 and 256 columns, then 512 once both are freed: the last is the one that relinquishes.
struct AllocatesThreeTimes : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto first = tcgen05.alloc<float>({128, 64});
    auto second = tcgen05.alloc<float>({128, 256});
    sync();
    tcgen05.dealloc(first);
    tcgen05.dealloc(second);
    auto whole = tcgen05.alloc<float>({128, 512});
    sync();
    tcgen05.dealloc(whole);
  }
};

TEST(PlanTensorMemory, TheLastAllocationRelinquishesThePermit) {
  const ir::Kernel k = traced<AllocatesThreeTimes>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %tmem: tmem<f32>[128, 64] = tcgen05.alloc columns=64 address=%tmem_address
    CHECK: %tmem.1: tmem<f32>[128, 256] = tcgen05.alloc columns=256 address=%tmem_address.1
    CHECK: tcgen05.dealloc %tmem
    CHECK: tcgen05.dealloc %tmem.1
    CHECK: %tmem.2: tmem<f32>[128, 512] = tcgen05.alloc columns=512 address=%tmem_address.2
    CHECK: tcgen05.dealloc %tmem.2
  )"));
  EXPECT_TRUE(file_check(ir::print(*k), "CHECK-NOT: relinquish"));
  const ir::Kernel out = passes::plan_tensor_memory(k, {ir::Arch::Sm100a});
  ASSERT_NE(out, k);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: %tmem: tmem<f32>[128, 64] = tcgen05.alloc columns=64 address=%tmem_address
    CHECK-NOT: relinquish
    CHECK: %tmem.2: tmem<f32>[128, 512] = tcgen05.alloc columns=512 address=%tmem_address.2 relinquish
    CHECK-NOT: relinquish
  )"));
  // The mark is all that changes.
  std::string expected = ir::print(*k);
  const std::string last = "tcgen05.alloc columns=512 address=%tmem_address.2";
  expected.insert(expected.find(last) + last.size(), " relinquish");
  EXPECT_EQ(ir::print(*out), expected);
  EXPECT_EQ(out->tcgen05_cta_group, 1);
  EXPECT_EQ(passes::plan_tensor_memory(out, {ir::Arch::Sm100a}), out) << "planned already";
}

// The allocation is in a loop: a later iteration allocates again, so none relinquishes.
struct AllocatesInALoop : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    for (Int32 i : range(0, n)) {
      auto t = tcgen05.alloc<float>({128, 32});
      sync();
      tcgen05.dealloc(t);
    }
  }
};

TEST(PlanTensorMemory, LeavesAKernelWhoseLastAllocationIsInALoopAlone) {
  const ir::Kernel k = traced<AllocatesInALoop>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: for %i in range(0, %arg0, 1) {
    CHECK-NEXT: %tmem_address = alloc_shared<u32>[1] offset=0
    CHECK-NEXT: thread_group(begin=0, count=32) {
    CHECK-NEXT: %tmem: tmem<f32>[128, 32] = tcgen05.alloc columns=32 address=%tmem_address
    CHECK-NOT: relinquish
  )"));
  EXPECT_EQ(passes::plan_tensor_memory(k, {ir::Arch::Sm100a}), k);
}

// The pair form: clusters of two blocks allocate together.
struct AllocatesForThePair : Script {
  void operator()(Int32 n) {
    attrs.cluster = {2, 1, 1};
    attrs.blocks = 2;
    attrs.warps = 4;
    auto t = tcgen05.alloc<float>({128, 64}, CtaGroup::two);
    sync();
    tcgen05.dealloc(t);
  }
};

TEST(PlanTensorMemory, SetsTheKernelsCtaGroupFromItsAllocations) {
  const ir::Kernel k = traced<AllocatesForThePair>();
  EXPECT_EQ(k->tcgen05_cta_group, 1);
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: %tmem: tmem<f32>[128, 64] = tcgen05.alloc columns=64 address=%tmem_address pair
    CHECK-NOT: relinquish
  )"));
  const ir::Kernel out = passes::plan_tensor_memory(k, {ir::Arch::Sm100a});
  EXPECT_EQ(out->tcgen05_cta_group, 2);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: %tmem: tmem<f32>[128, 64] = tcgen05.alloc columns=64 address=%tmem_address pair relinquish
  )"));
}

struct HoldsTooMuch : Script {
  static inline int line = 0;
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto all = tcgen05.alloc<float>({128, 512});
    line = __LINE__ + 1;
    auto more = tcgen05.alloc<float>({128, 20});
    sync();
    tcgen05.dealloc(more);
    tcgen05.dealloc(all);
  }
};

TEST(PlanTensorMemory, ReportsTheAllocationBeyondFiveHundredTwelveColumns) {
  const std::string got = plan_error<HoldsTooMuch>();
  EXPECT_EQ(got, at(HoldsTooMuch::line) +
                     ": tcgen05.alloc: this allocation of 32 columns brings the tensor memory the "
                     "block holds at once to 544 columns; a block has 512: deallocate earlier "
                     "allocations first or allocate fewer columns");
}

struct MixesCtaGroups : Script {
  static inline int first = 0, line = 0;
  void operator()(Int32 n) {
    attrs.cluster = {2, 1, 1};
    attrs.blocks = 2;
    attrs.warps = 4;
    first = __LINE__ + 1;
    auto one = tcgen05.alloc<float>({128, 32});
    line = __LINE__ + 1;
    auto two = tcgen05.alloc<float>({128, 32}, CtaGroup::two);
    sync();
    tcgen05.dealloc(two);
    tcgen05.dealloc(one);
  }
};

TEST(PlanTensorMemory, ReportsAllocationsOfTwoCtaGroups) {
  const std::string got = plan_error<MixesCtaGroups>();
  EXPECT_EQ(got,
            at(MixesCtaGroups::line) + ": tcgen05.alloc: this allocation is CtaGroup::two, but the one at " +
                at(MixesCtaGroups::first) +
                " is CtaGroup::one; every tcgen05 instruction of a kernel uses one CTA group (PTX ISA 9.7.16.7.1), "
                "so allocate all tensor memory with the same CtaGroup");
}

}  // namespace
}  // namespace tessel::testing
