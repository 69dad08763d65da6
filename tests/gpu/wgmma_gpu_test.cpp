// wgmma on the GPU against host references: K-major operands, MN-major ones (whose descriptors
// and transpose bits only the hardware can confirm), and 8-bit integer and fp8 register operands;
// skipped, visibly, without one.
#include "../mn_major_kernels.hpp"
#include "../wgmma_kernels.hpp"
#include "../wgmma_operand_types_kernels.hpp"
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

// s8/u8 into an s32 accumulator that wraps, shared or register A; fp8 with A in registers.
TEST_F(WgmmaOnGpu, EightBitAndTf32OperandsMatchTheHostReference) {
  check_wgmma_types<int8_t, int8_t, int32_t, 64, 64, 128, false>({}, 1, Device::gpu());
  check_wgmma_types<uint8_t, int8_t, int32_t, 64, 48, 64, false>({}, 2, Device::gpu());
  check_wgmma_types<int8_t, uint8_t, int32_t, 64, 24, 32, true>({}, 3, Device::gpu());
  check_wgmma_types<uint8_t, uint8_t, int32_t, 128, 32, 128, true, true, 8>({}, 4, Device::gpu());
  check_wgmma_types<int8_t, int8_t, int32_t, 128, 256, 64, false>({}, 5, Device::gpu());
  check_wgmma_types<int8_t, uint8_t, int32_t, 64, 16, 64, false, false>({}, 6, Device::gpu());
  check_wgmma_types<uint8_t, int8_t, int32_t, 64, 8, 128, true, false>({}, 7, Device::gpu());
  check_wgmma_types<f8e4m3, f8e4m3, float, 64, 64, 128, true>({}, 8, Device::gpu());
  check_wgmma_types<f8e5m2, f8e4m3, float, 128, 40, 32, true, true, 8>({}, 9, Device::gpu());
  check_wgmma_types<f8e4m3, f8e5m2, float, 64, 16, 64, true, false>({}, 10, Device::gpu());
  check_wgmma_types<int8_t, int8_t, int32_t, 64, 64, 128, false, true, 4, true>({}, 11, Device::gpu());
  check_wgmma_types<uint8_t, uint8_t, int32_t, 128, 32, 128, true, true, 8, true>({}, 12, Device::gpu());
  check_wgmma_types<tf32, tf32, float, 64, 64, 32, false>({}, 13, Device::gpu());
  check_wgmma_types<tf32, tf32, float, 64, 40, 16, true>({}, 14, Device::gpu());
  check_wgmma_types<tf32, tf32, float, 128, 24, 8, true, true, 8>({}, 15, Device::gpu());
  check_wgmma_types<tf32, tf32, float, 64, 16, 32, false, false>({}, 16, Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
