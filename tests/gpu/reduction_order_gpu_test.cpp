// Sums and scans on the GPU give the bits the simulator is checked against; skipped, visibly,
// without one.
#include "../reduction_order_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ReductionOrderOnGpu = GpuTest;

TEST_F(ReductionOrderOnGpu, SumsAndScansCombineAsTheSimulatorDoes) {
  check_reduction_order<float>(Device::gpu());
  check_reduction_order<f16>(Device::gpu());
  check_reduction_order<bf16>(Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
