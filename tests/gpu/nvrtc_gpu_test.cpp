// NVRTC beside a driver: every compile reports ptxas's figures, the second of the same program too
// (NVRTC's own cache, which the driver holds, would return it without them). Skipped, visibly,
// without a GPU.
#include "gpu_test.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel {
namespace {

using NvrtcOnGpu = testing::GpuTest;

TEST_F(NvrtcOnGpu, TheSameProgramCompiledTwiceReportsItsRegistersBothTimes) {
  const runtime::CompileRequest request{
      .source = "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] = __expf(x[threadIdx.x]) * 3.0f; }\n",
      .kernel_name = "twice",
      .arch = "sm_90a",
      .headers = {},
      .options = {}};
  for (int compile = 1; compile <= 2; ++compile) {
    const runtime::CompileResult r = runtime::compile_to_cubin(request);
    EXPECT_GT(r.resources.registers, 0) << "compile " << compile << ":\n" << r.log;
    EXPECT_EQ(r.resources.spill_store_bytes, 0) << "compile " << compile;
  }
}

}  // namespace
}  // namespace tessel
