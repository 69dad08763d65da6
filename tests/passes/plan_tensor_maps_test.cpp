// plan_tensor_maps: collects the tensor maps of the TMA copies into the kernel's table, one per
// distinct (global view, box, swizzle), points each copy at its entry, and refuses a view that the
// host cannot encode at launch.
#include <sstream>

#include "tessel/ir/mutator.hpp"

#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

template <class S> ir::Kernel traced() {
  return lowered_before(
      Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(128, (f16*)nullptr, (f16*)nullptr),
      "plan_tensor_maps");
}

// Two loads of [32, 64] boxes of one view (one map), a store of one of them to another view.
struct CopiesByTma : Script {
  void operator()(Int32 m, Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = cdiv(m, 64);
    attrs.warps = 1;
    auto g_a = global_view(a, {m, 64});
    auto g_c = global_view(c, {m, 64});
    auto s = shared_tensor<f16>({2, 32, 64});
    auto bars = mbarrier.alloc({1});
    Int32 row = blockIdx.x * 64;
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8192);
      tma.global_to_shared(g_a, s[0], {row, 0}, bars[0]);
      tma.global_to_shared(g_a, s[1], {row + 32, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], 0);
    single_thread([&] {
      tma.shared_to_global(s[1], g_c, {row, 0});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

TEST(PlanTensorMaps, GivesEachDistinctViewAndBoxOneMap) {
  const ir::Kernel k = traced<CopiesByTma>();
  EXPECT_TRUE(file_check(ir::print(*k), R"(
    CHECK: tma.global_to_shared global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) at [%v, 0] to view<f16>(%s + 0, shape=[32, 64], strides=[64, 1]) dims [0, 1] on %bars[0]
    CHECK-NEXT: tma.global_to_shared global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) at [add(%v, 32), 0] to view<f16>(%s + 2048, shape=[32, 64], strides=[64, 1]) dims [0, 1] on %bars[0]
    CHECK: tma.shared_to_global view<f16>(%s + 2048, shape=[32, 64], strides=[64, 1]) to global<f16>(%arg2, shape=[%arg0, 64], strides=[64, 1]) at [%v, 0] dims [0, 1]
  )"));
  EXPECT_TRUE(file_check(ir::print(*k), "CHECK-NOT: tensor map"));
  const ir::Kernel out = passes::plan_tensor_maps(k, {});
  ASSERT_NE(out, k);
  EXPECT_TRUE(file_check(ir::print(*out), R"(
    CHECK: //   %bars: u64[1] at bytes [8192, 8200) aligned to 128, unswizzled
    CHECK-NEXT: // tensor map 0: global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) box [32, 64] unswizzled
    CHECK-NEXT: // tensor map 1: global<f16>(%arg2, shape=[%arg0, 64], strides=[64, 1]) box [32, 64] unswizzled
    CHECK-NEXT: %s = alloc_shared<f16>[2, 32, 64] offset=0
    CHECK: tma.global_to_shared global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) at [%v, 0] to view<f16>(%s + 0, shape=[32, 64], strides=[64, 1]) dims [0, 1] on %bars[0] by tensor map 0
    CHECK-NEXT: tma.global_to_shared global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) at [add(%v, 32), 0] to view<f16>(%s + 2048, shape=[32, 64], strides=[64, 1]) dims [0, 1] on %bars[0] by tensor map 0
    CHECK: tma.shared_to_global view<f16>(%s + 2048, shape=[32, 64], strides=[64, 1]) to global<f16>(%arg2, shape=[%arg0, 64], strides=[64, 1]) at [%v, 0] dims [0, 1] by tensor map 1
  )"));
  // The table under the header and each copy naming its entry are all that changes.
  std::istringstream before(ir::print(*k));
  std::string expected;
  const char* entries[] = {" by tensor map 0", " by tensor map 0", " by tensor map 1"};
  int copies = 0;
  for (std::string line; std::getline(before, line);) {
    if (line.rfind("  %s = alloc_shared", 0) == 0)
      expected +=
          "  // tensor map 0: global<f16>(%arg1, shape=[%arg0, 64], strides=[64, 1]) box [32, 64] unswizzled\n"
          "  // tensor map 1: global<f16>(%arg2, shape=[%arg0, 64], strides=[64, 1]) box [32, 64] unswizzled\n";
    if (line.find("tma.global_to_shared") != std::string::npos ||
        line.find("tma.shared_to_global") != std::string::npos)
      line += entries[copies++];
    expected += line + "\n";
  }
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(ir::print(*out), expected);
  ASSERT_EQ(out->tensor_maps.size(), 2u);
  EXPECT_EQ(out->tensor_maps[0].box, (std::vector<int>{32, 64}));
  EXPECT_EQ(passes::plan_tensor_maps(out, {}), out) << "planning again changes nothing";
}

struct NoTma : Script {
  void operator()(Int32 m, Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(c, {m, 64}), load_global(global_view(a, {m, 64}), {0, 0}, {4, 64}), {0, 0});
  }
};

TEST(PlanTensorMaps, LeavesAKernelWithoutTmaAlone) {
  const ir::Kernel k = traced<NoTma>();
  EXPECT_EQ(passes::plan_tensor_maps(k, {}), k);
}

struct ViewOfTheBlock : Script {
  static inline int line = 0;
  void operator()(Int32 m, Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = cdiv(m, 32);
    attrs.warps = 1;
    auto g = global_view(a, {m - blockIdx.x * 32, 64});
    auto s = shared_tensor<f16>({32, 64});
    single_thread([&] {
      line = __LINE__ + 1;
      tma.shared_to_global(s, g, {0, 0});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

TEST(PlanTensorMaps, RefusesAViewThatUsesTheBlockIndex) {
  const ir::Kernel k = traced<ViewOfTheBlock>();
  const std::string got = error_of_call([&] { passes::plan_tensor_maps(k, {}); });
  EXPECT_EQ(got,
            at(ViewOfTheBlock::line) +
                ": tma: the global view uses blockIdx.x, not a kernel parameter; a tensor map is made on the host at "
                "launch, so the view's address, shape and strides may use only parameters, constants and variables "
                "declared once from them, never assigned (move per-block offsets into the TMA offsets)");
}

struct ViewOfAVariable : Script {
  static inline int declared = 0, line = 0;
  void operator()(Int32 m, Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = 1;
    attrs.warps = 1;
    declared = __LINE__ + 1;
    Int32 rows = m;
    rows = rows / 2;
    auto g = global_view(a, {rows, 64});
    auto s = shared_tensor<f16>({32, 64});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 4096);
      line = __LINE__ + 1;
      tma.global_to_shared(g, s, {0, 0}, bars[0]);
    });
  }
};

TEST(PlanTensorMaps, RefusesAViewThatUsesAKernelVariable) {
  const ir::Kernel k = traced<ViewOfAVariable>();
  const std::string got = error_of_call([&] { passes::plan_tensor_maps(k, {}); });
  EXPECT_EQ(got,
            at(ViewOfAVariable::line) + ": tma: the global view uses the variable declared at " +
                at(ViewOfAVariable::declared) +
                ", not a kernel parameter; a tensor map is made on the host at launch, so the view's address, shape "
                "and strides may use only parameters, constants and variables declared once from them, never "
                "assigned (move per-block offsets into the TMA offsets)");
}

// A view whose rows are a variable declared once from a parameter: the table's view has the
// definition in its place, which the host evaluates.
struct ViewOfAVariableDeclaredOnce : Script {
  void operator()(Int32 m, Ptr<f16> a, Ptr<f16> c) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 rows = m / 2;
    auto g = global_view(a, {rows, 64});
    auto s = shared_tensor<f16>({32, 64});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 4096);
      tma.global_to_shared(g, s, {0, 0}, bars[0]);
    });
  }
};

TEST(PlanTensorMaps, AVariableDeclaredOnceIsReplacedByItsDefinition) {
  const ir::Kernel out = passes::plan_tensor_maps(traced<ViewOfAVariableDeclaredOnce>(), {});
  ASSERT_EQ(out->tensor_maps.size(), 1u);
  std::vector<const ir::ExprNode*> vars;
  ir::walk_expr(*out->tensor_maps[0].view->shape[0], [&](const ir::ExprNode& x) {
    if (x.kind == ir::NodeKind::Var) vars.push_back(&x);
  });
  EXPECT_EQ(vars, std::vector<const ir::ExprNode*>{out->params[0].get()}) << "the rows are m / 2, of the parameter m";
}

}  // namespace
}  // namespace tessel::testing
