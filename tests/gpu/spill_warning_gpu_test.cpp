// A configuration that spills registers is refused under TESSEL_FAIL_ON_SPILL, naming the kernel
// and the bytes; skipped, visibly, without a GPU.
#include <cstdlib>

#include "gpu_test.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

// One warp holds a [32, 1024] f32 tile: 1024 registers per thread, four times what a thread has.
struct HugeRegisterTile : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32, 1024}), {0, 0}, {32, 1024},
                         Layout::spatial({32, 1}) * Layout::local({1, 1024}));
    store_global(global_view(x, {32, 1024}), exp(t) * t + t, {0, 0});
  }
};

using SpillsOnGpu = GpuTest;

TEST_F(SpillsOnGpu, ASpillingConfigurationIsRefusedUnderFailOnSpill) {
  setenv("TESSEL_FAIL_ON_SPILL", "1", 1);
  Buffer<float> x(Device::gpu(), std::vector<float>(32 * 1024, 0.5f));
  std::string message = "no error";
  try {
    Kernel<HugeRegisterTile> k(Device::gpu());
    k(x);
  } catch (const Error& e) {
    message = e.what();
  }
  unsetenv("TESSEL_FAIL_ON_SPILL");
  const std::string head = "kernel HugeRegisterTile for sm_90a spills registers (";
  EXPECT_EQ(message.substr(0, head.size()), head) << message;
  EXPECT_NE(message.find(" bytes spill stores, "), std::string::npos) << message;
  const std::string tail =
      " and TESSEL_FAIL_ON_SPILL=1; hold fewer values per thread (smaller register tiles, more warps)";
  ASSERT_GE(message.size(), tail.size());
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;
}

}  // namespace
}  // namespace tessel::testing
