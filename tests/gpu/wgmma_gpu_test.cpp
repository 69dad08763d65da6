// wgmma on the GPU against host references: K-major operands, and MN-major ones (whose
// descriptors and transpose bits only the hardware can confirm); skipped, visibly, without one.
#include "../mn_major_kernels.hpp"
#include "../wgmma_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using WgmmaOnGpu = GpuTest;

TEST_F(WgmmaOnGpu, KMajorOperandsMatchTheHostReference) {
  check_wgmma_kernel<WgmmaTile<f16, 64, 128, 64, false>, f16, 64, 128, 64>({}, 1, Device::gpu());
  check_wgmma_kernel<WgmmaTile<bf16, 64, 64, 32, true>, bf16, 64, 64, 32>({}, 1, Device::gpu());
}

// scale-d 0: the accumulator's old value (1000) must not reach C.
TEST_F(WgmmaOnGpu, AnMmaThatDoesNotAccumulateOverwrites) {
  check_wgmma_overwrite<f16, 64, 16>({}, Device::gpu());
  check_wgmma_overwrite<bf16, 128, 64>({}, Device::gpu());
}

TEST_F(WgmmaOnGpu, MnMajorBMatchesTheHostReference) {
  check_wgmma_mn_major_b<f16, 64, 64, false>({}, Device::gpu());
  check_wgmma_mn_major_b<bf16, 64, 64, true>({}, Device::gpu());
  check_wgmma_mn_major_b<bf16, 32, 32, false>({}, Device::gpu());
  check_wgmma_mn_major_b<f16, 16, 16, true>({}, Device::gpu());
}

TEST_F(WgmmaOnGpu, ATransposedAndBInBlocksMatchTheHostReference) {
  check_wgmma_mn_major_operands<f16, 128, 64, false>({}, Device::gpu());
  check_wgmma_mn_major_operands<bf16, 192, 32, true>({}, Device::gpu());
  check_wgmma_mn_major_operands<bf16, 64, 16, false>({}, Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
