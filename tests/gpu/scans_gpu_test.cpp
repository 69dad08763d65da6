// Scans on the GPU; skipped, visibly, without one.
#include "../scans_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ScansOnGpu = GpuTest;

TEST_F(ScansOnGpu, AcrossWarpsAndWithinAWarp) {
  check_scans<float>(Device::gpu());
  check_scans<int32_t>(Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
