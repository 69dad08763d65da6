// Philox random numbers on the GPU: the same words and uniform values as the host reference.
#include "../random_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using RandomOnGpu = GpuTest;

TEST_F(RandomOnGpu, EveryWordAndUniformValueMatchesTheReference) {
  check_random_numbers(Device::gpu(), 100003, 12345, 0x0123456789abcdefull);
}

}  // namespace
}  // namespace tessel::testing
