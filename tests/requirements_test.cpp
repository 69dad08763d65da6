// Script::require: every launch checks the conditions on the host before the kernel runs, and
// names the user's line, the message and the parameters' values; a condition on what a launch
// cannot know is refused when the kernel is lowered; exported launchers check the same conditions.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "source_line.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

// Scales x [n] in rows of 4, which it requires (of a value computed from n, which the launch
// computes as it does the grid).
struct RowsOfFour : Script {
  static constexpr const char* param_names[] = {"n", "scale", "x"};
  void operator()(Int32 n, Float32 scale, Ptr<float> x) {
    Int32 rows = n / 4;
    require(rows * 4 == n && n <= 1024, "n must be a multiple of 4, at most 1024");
    attrs.blocks = rows;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {rows, 4}), {blockIdx.x, 0}, {1, 4});
    store_global(global_view(x, {rows, 4}), t * scale, {blockIdx.x, 0});
  }
};

TEST(Requirements, ALaunchThatMeetsThemRuns) {
  Buffer<float> x(Device::simulator(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  Kernel<RowsOfFour> k(Device::simulator());
  k(8, 2.0f, x);
  EXPECT_EQ(x.download(), (std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16}));
}

TEST(Requirements, ALaunchThatFailsOneIsRefusedWithTheValues) {
  Buffer<float> x(Device::simulator(), std::vector<float>(8, 1.0f));
  const std::string where = source_at("tests/requirements_test.cpp", "require(rows * 4 == n && n <= 1024");
  EXPECT_EQ(error_of<RowsOfFour>(6, 2.0f, x),
            where + ": kernel RowsOfFour: n must be a multiple of 4, at most 1024 (this launch has n = 6)");
  EXPECT_EQ(error_of<RowsOfFour>(2048, 2.0f, x),
            where + ": kernel RowsOfFour: n must be a multiple of 4, at most 1024 (this launch has n = 2048)");
  EXPECT_EQ(x.download(), std::vector<float>(8, 1.0f));  // the kernel did not run
}

// y = 3x over [n] in blocks of `block` elements, which must divide n: a requirement that reads a
// hyperparameter, so that each call runs a candidate that meets it.
struct TriplesWholeBlocks : Script {
  int block = 256;
  static constexpr const char* param_names[] = {"n", "x", "y"};
  static Space space() { return tune("block", &TriplesWholeBlocks::block, {256, 128}); }
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    require(n % block == 0, "n must be a multiple of block");
    attrs.blocks = cdiv(n, block);
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n}), {blockIdx.x * block}, {block});
    store_global(global_view(y, {n}), t * 3.0f, {blockIdx.x * block});
  }
};

// Calls of one size bucket, first tuned (a timer on the simulator) and then not, each run a
// candidate their sizes meet; a call no candidate meets gets the requirement's error.
TEST(Requirements, OnesThatReadAHyperparameterRuleOutTheCandidatesACallDoesNotMeet) {
  KernelOptions tuned;
  tuned.tuning_timer = [](const std::string& hyperparameters) {
    return hyperparameters == "block=256" ? 1.0 : 2.0;  // 256 wins wherever it may run
  };
  // 384 first rules 256 out as its candidates are built; 512 first binds 256 to the size bucket
  // that 384 then falls in, whose launch chooses again.
  for (const std::vector<int>& calls : {std::vector<int>{384, 512, 384, 640, 1024}, std::vector<int>{512, 384, 1024}})
    for (const KernelOptions& options : {KernelOptions{}, tuned}) {
      Kernel<TriplesWholeBlocks> k(Device::simulator(), options);
      for (int n : calls) {
        std::vector<float> values(static_cast<size_t>(n)), want(values.size());
        for (int i = 0; i < n; ++i) want[size_t(i)] = 3.0f * (values[size_t(i)] = float(i % 29) - 14.0f);
        Buffer<float> x(Device::simulator(), values), y(Device::simulator(), std::vector<float>(values.size(), -1.0f));
        k(n, x, y);
        EXPECT_EQ(y.download(), want) << n;
        // Untuned, the first candidate that meets the call; tuned, a result of the same size bucket
        // (recorded by an earlier run) may choose 128 where 256 could run too.
        if (!options.tuning_timer || n % 256 != 0)
          EXPECT_EQ(k.stats().hyperparameters, n % 256 == 0 ? "block=256" : "block=128") << n;
      }
      Buffer<float> x(Device::simulator(), 100);
      // Every candidate ruled out by one statement: its error, as a launch reports it.
      EXPECT_EQ(error_of_call([&] { k(100, x, x); }),
                source_at("tests/requirements_test.cpp", "require(n % block == 0") +
                    ": kernel TriplesWholeBlocks: n must be a multiple of block (this launch has n = 100)");
    }
}

struct RequiresABlockIndex : Script {
  static constexpr const char* param_names[] = {"n", "x"};
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = n;
    attrs.warps = 1;
    require(blockIdx.x < n, "the block must lie in the grid");
    store_global(global_view(x, {n}), register_tensor<float>({1}, 1.0f), {blockIdx.x});
  }
};

TEST(Requirements, AConditionALaunchCannotEvaluateIsRefused) {
  Buffer<float> x(Device::simulator(), 4);
  EXPECT_EQ(error_of<RequiresABlockIndex>(4, x),
            source_at("tests/requirements_test.cpp", "require(blockIdx.x < n") +
                ": require(\"the block must lie in the grid\") of kernel RequiresABlockIndex uses blockIdx.x, which is "
                "only known inside the kernel");
}

TEST(Requirements, TheExportedLauncherChecksThem) {
  Kernel<RowsOfFour> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string header = aot::launcher_header({k.exported("rows_of_four", 8, 2.0f, (float*)nullptr)});
  const std::string check =
      "if (!(tessel_aot::detail::binary(tessel_aot::detail::Op::And, 1, false, "
      "tessel_aot::detail::binary(tessel_aot::detail::Op::Eq, 32, true, "
      "tessel_aot::detail::binary(tessel_aot::detail::Op::Mul, 32, true, "
      "tessel_aot::detail::binary(tessel_aot::detail::Op::Div, 32, true, tessel_v[0], int64_t(4)), int64_t(4)), "
      "tessel_v[0]), tessel_aot::detail::binary(tessel_aot::detail::Op::Le, 32, true, tessel_v[0], int64_t(1024))))) "
      "throw Error(\"" +
      source_at("tests/requirements_test.cpp", "require(rows * 4 == n && n <= 1024") +
      ": \" + tessel_kernel + \": n must be a multiple of 4, at most 1024 (this launch has \" + \"n = \" + "
      "std::to_string(tessel_v[0]) + \")\");";
  EXPECT_NE(header.find(check), std::string::npos) << header.substr(0, 6000);
}

// A condition on the device alone reads no parameter of the call: the message has no values.
struct ManyMultiprocessors : Script {
  static constexpr const char* param_names[] = {"x"};
  void operator()(Ptr<float> x) {
    require(multiprocessors >= 100000, "needs 100000 multiprocessors");
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(x, {32}), load_global(global_view(x, {32}), {0}, {32}) * 2.0f, {0});
  }
};

TEST(Requirements, AConditionOnTheDeviceAloneNamesNoValues) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  const std::string where = source_at("tests/requirements_test.cpp", "require(multiprocessors >= 100000");
  EXPECT_EQ(error_of<ManyMultiprocessors>(x), where + ": kernel ManyMultiprocessors: needs 100000 multiprocessors");
  Kernel<ManyMultiprocessors> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string header = aot::launcher_header({k.exported("many_multiprocessors", (float*)nullptr)});
  EXPECT_NE(header.find("tessel_kernel + \": needs 100000 multiprocessors\");"), std::string::npos)
      << header.substr(0, 6000);
}

}  // namespace
}  // namespace tessel::testing
