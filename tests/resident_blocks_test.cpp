// attrs.resident_blocks: the blocks whose registers must fit on a multiprocessor at once, as
// __launch_bounds__'s minimum, and the limits the trace and the verifier hold it to.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "tessel/cli/host_check.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/target_limits.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

// y = 3 x over n floats, with `warps` warps a block and `blocks` resident blocks asked for.
struct ScaleResident : Script {
  int warps = 8;
  int blocks = 3;
  int shared_floats = 0;
  static Space space() {
    return tune("warps, blocks, shared_floats",
                {&ScaleResident::warps, &ScaleResident::blocks, &ScaleResident::shared_floats},
                {{8, 3, 0}, {8, 9, 0}, {8, -1, 0}, {1, 32, 0}, {8, 3, 20000}});
  }
  static constexpr int line = __LINE__ + 5;
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 256 * warps);
    attrs.warps = warps;
    if (shared_floats) shared_tensor<float>({shared_floats});
    attrs.resident_blocks = blocks;
    auto g_x = global_view(x, {n}), g_y = global_view(y, {n});
    store_global(g_y, load_global(g_x, {blockIdx.x * 256 * warps}, {256 * warps}) * 3.0f, {blockIdx.x * 256 * warps});
  }
};

// A producer warpgroup gives registers to a consumer one, which setmaxnreg does for one block a
// multiprocessor.
struct ResidentBesideSetmaxnreg : Script {
  static constexpr int line = __LINE__ + 4;
  void operator()(Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 12;
    attrs.resident_blocks = 2;
    warp_group(0, [&] { setmaxnreg.decrease(40); });
    warp_group(1, [&] {
      setmaxnreg.increase(232);
      store_global(global_view(y, {128}), register_tensor<float>({128}, 1.0f), {0});
    });
  }
};

Kernel<ScaleResident> configured(const std::string& configuration, const std::string& arch = "sm_90a") {
  return Kernel<ScaleResident>(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration});
}

TEST(ResidentBlocks, AreTheLaunchBoundsMinimumAndRunAsAnyKernel) {
  const int n = 5000;
  const std::vector<float> x = cli::random_vector<float>(size_t(n), 3, -2.0f, 2.0f);
  Buffer<float> dx(Device::simulator(), x), y(Device::simulator(), cli::poisoned<float>(size_t(n)));
  Kernel<ScaleResident> k = configured("warps=8, blocks=3, shared_floats=0");
  EXPECT_TRUE(testing::file_check(k.cuda_source(n, dx, y), R"(
    CHECK: extern "C" __global__ void __launch_bounds__(256, 3) tessel_ScaleResident(
  )"));
  EXPECT_NE(ir::print(*k.traced(n, dx, y)).find(" warps=8 resident_blocks=3 "), std::string::npos);
  k(n, dx, y);
  const std::vector<float> out = y.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[size_t(i)], 3.0f * x[size_t(i)]) << i;
}

TEST(ResidentBlocks, AreHeldToWhatAMultiprocessorHolds) {
  const auto error = [](const std::string& configuration) {
    return testing::error_of_call([&] { configured(configuration).lowered(1, (float*)nullptr, (float*)nullptr); });
  };
  const ir::TargetLimits& limits = ir::target_limits(ir::Arch::Sm80);
  EXPECT_EQ(error("warps=8, blocks=9, shared_floats=0"),
            fmt::format("{}:{}: kernel ScaleResident: attrs.resident_blocks is 9; a multiprocessor holds 1 to 8 blocks "
                        "of 256 threads ({} threads and {} blocks at most)",
                        __FILE__, ScaleResident::line, limits.max_threads_per_sm, limits.max_blocks_per_sm));
  EXPECT_EQ(error("warps=8, blocks=-1, shared_floats=0"),
            fmt::format("{}:{}: kernel ScaleResident: attrs.resident_blocks is -1; a multiprocessor holds 1 to 8 "
                        "blocks of 256 threads ({} threads and {} blocks at most)",
                        __FILE__, ScaleResident::line, limits.max_threads_per_sm, limits.max_blocks_per_sm));
  EXPECT_EQ(error("warps=1, blocks=32, shared_floats=0"), "no error");
  EXPECT_EQ(error("warps=8, blocks=3, shared_floats=20000"),
            fmt::format("{}:{}: kernel ScaleResident: attrs.resident_blocks is 3, but a multiprocessor of sm_90a holds "
                        "only 2 blocks of 80000 bytes of shared memory (233472 bytes, 1024 of them kept for each "
                        "block)",
                        __FILE__, ScaleResident::line));
  EXPECT_EQ(testing::error_of_call([] {
              Kernel<ResidentBesideSetmaxnreg>(Device::simulator(), KernelOptions{"sm_90a"}).lowered((float*)nullptr);
            }),
            fmt::format("{0}:{1}: kernel ResidentBesideSetmaxnreg: attrs.resident_blocks is 2, but setmaxnreg at "
                        "{0}:{2} moves registers between the warpgroups of one block a multiprocessor; leave "
                        "resident_blocks unset or at 1",
                        __FILE__, ResidentBesideSetmaxnreg::line, ResidentBesideSetmaxnreg::line + 1));
}

}  // namespace
}  // namespace tessel
