// The variants of one kernel on the GPU: an aligned call gets the code without run-time tests, a
// call on views that start anywhere the general code, and neither is reused for the other.
// Skipped, visibly, without a GPU.
#include "../specialization_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using SpecializationOnGpu = GpuTest;

TEST_F(SpecializationOnGpu, EachVariantIsRightOnAlignedAndMisalignedViews) {
  Kernel<examples::ampere::MatmulV5Swizzled<f16>> kernel(Device::gpu());
  for (const auto [m, n, k] : {std::tuple{300, 257, 96}, std::tuple{512, 512, 512}, std::tuple{129, 200, 40}})
    for (int offset : {0, 1, 0, 3, 8}) check_matmul_at_offset(kernel, Device::gpu(), m, n, k, offset);
}

}  // namespace
}  // namespace tessel::testing
