// What the verifier reports on the kernel as traced: values and views that outlive the body that
// made them (at the line that uses them, naming the line that made them), and instructions run by
// a thread group that nodes.def says cannot run them.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "expect_error.hpp"

namespace tessel {
namespace {

int made = 0, used = 0;

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

float* no_data = nullptr;

struct ValueUsedAfterItsLoop : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    std::optional<Int32> doubled;
    for (Int32 i : range(0, n)) {
      made = __LINE__ + 1;
      doubled = Int32(i * 2);
    }
    auto ones = register_tensor<float>({32}, 1.0f);
    used = __LINE__ + 1;
    store_global(global_view(x, {n}), ones, {*doubled});
  }
};

TEST(VerifierDiagnostics, ValueUsedAfterItsLoop) {
  const std::string got = testing::error_of<ValueUsedAfterItsLoop>(64, no_data);
  EXPECT_EQ(got, loc(used) + ": a kernel value created at " + loc(made) +
                     " is used here, outside the body that created it (a range, if_, while_ or thread group body); "
                     "values live until the end of that body: create it before the body (e.g. Var<int32_t> v = 0;) "
                     "and assign it inside");
}

// The copy std::vector makes is declared inside the standard library; the report names the line
// that created the value it copies.
struct ValueKeptInAVectorAfterItsLoop : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    std::vector<Int32> kept;
    for (Int32 i : range(0, n)) {
      made = __LINE__ + 1;
      Int32 doubled = i * 2;
      kept.push_back(doubled);
    }
    auto ones = register_tensor<float>({32}, 1.0f);
    used = __LINE__ + 1;
    store_global(global_view(x, {n}), ones, {kept[0]});
  }
};

TEST(VerifierDiagnostics, AValueCopiedIntoAVectorIsReportedAtTheLineThatCreatedIt) {
  const std::string got = testing::error_of<ValueKeptInAVectorAfterItsLoop>(64, no_data);
  EXPECT_EQ(got, loc(used) + ": a kernel value created at " + loc(made) +
                     " is used here, outside the body that created it (a range, if_, while_ or thread group body); "
                     "values live until the end of that body: create it before the body (e.g. Var<int32_t> v = 0;) "
                     "and assign it inside");
}

struct ValueAssignedAfterItsBranch : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    std::optional<Int32> kept;
    if_(n > 0, [&] {
      made = __LINE__ + 1;
      kept = Int32(n + 1);
    });
    used = __LINE__ + 1;
    *kept = n;
  }
};

TEST(VerifierDiagnostics, ValueAssignedAfterItsBranch) {
  const std::string got = testing::error_of<ValueAssignedAfterItsBranch>(64, no_data);
  EXPECT_EQ(got, loc(used) + ": assignment to a kernel variable created at " + loc(made) +
                     ", after the body that created it (a range, if_, while_ or thread group body) has ended; create "
                     "it before that body");
}

struct ViewUsedAfterItsLoop : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({4, 32});
    std::optional<SharedTensor> row;
    for (Int32 i : range(0, 4)) {
      made = __LINE__ + 1;
      row = s[i];
    }
    used = __LINE__ + 1;
    auto t = load_shared(*row);
    store_global(global_view(x, {n}), t, {0});
  }
};

TEST(VerifierDiagnostics, SharedViewUsedAfterItsLoop) {
  const std::string got = testing::error_of<ViewUsedAfterItsLoop>(64, no_data);
  EXPECT_EQ(got, loc(used) + ": the shared view made at " + loc(made) +
                     " is used here, outside the body that made it (a range, if_, while_ or thread group body); a view "
                     "made from a run-time index lives until the end of that body: make the view where it is used");
}

struct DotInAGroupThatSplitsWarps : Script {
  void operator()(Ptr<f16> a, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 2;
    thread_group(16, 32, [&] {
      auto ta = load_global(global_view(a, {16, 16}), {0, 0}, {16, 16});
      auto tb = load_global(global_view(a, {16, 16}), {0, 0}, {16, 8});
      auto acc = register_tensor<float>({16, 8}, 0.0f);
      used = __LINE__ + 1;
      auto d = dot(ta, tb, acc);
      store_global(global_view(c, {16, 8}), d, {0, 0});
    });
  }
};

TEST(VerifierDiagnostics, WarpInstructionInAGroupThatSplitsWarps) {
  const std::string got = testing::error_of<DotInAGroupThatSplitsWarps>((f16*)nullptr, no_data);
  EXPECT_EQ(got, loc(used) +
                     ": dot is executed by whole warps, but it runs in a thread group of threads 16..47; "
                     "make the group start and end at multiples of 32 threads");
}

}  // namespace
}  // namespace tessel
