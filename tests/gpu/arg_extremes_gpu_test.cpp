// argmax and argmin on the GPU; skipped, visibly, without one.
#include "../arg_extremes_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ArgExtremesOnGpu = GpuTest;

TEST_F(ArgExtremesOnGpu, FirstPositionOfTheExtremeAcrossWarps) {
  check_arg_extremes<int32_t>(Device::gpu());
  check_arg_extremes<float>(Device::gpu());
  check_arg_extremes<bf16>(Device::gpu());
  check_arg_extremes<f16>(Device::gpu());
  check_arg_extremes<int64_t>(Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
