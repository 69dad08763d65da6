// Tensor-core kernels on the GPU; skipped, visibly, without one.
#include "../tensor_core_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using TensorCoreOnGpu = GpuTest;

TEST_F(TensorCoreOnGpu, IntegerDotIsExactAndWraps) {
  check_integer_dot(Device::gpu(), 64, 64, 128, 1);
  check_integer_dot(Device::gpu(), 100, 72, 64, 2);
  check_integer_dot(Device::gpu(), 512, 256, 1024, 3);
}

TEST_F(TensorCoreOnGpu, IntegerDotTakesEitherSignednessForEachOperand) {
  check_integer_dot<UnsignedSignedDot>(Device::gpu(), 512, 256, 1024, 4);
  check_integer_dot<SignedUnsignedDot>(Device::gpu(), 100, 72, 64, 5);
  check_integer_dot<UnsignedDot>(Device::gpu(), 64, 64, 128, 6);
}

TEST_F(TensorCoreOnGpu, SaturatingIntegerDotClampsAtTheI32Limits) {
  check_integer_dot<SaturatingDot>(Device::gpu(), 64, 64, 128, 8);
  check_integer_dot<SaturatingDot>(Device::gpu(), 512, 256, 1024, 9);
}

TEST_F(TensorCoreOnGpu, Fp8DotMatchesTheHostReference) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "fp8 dot needs sm_90a here";
  check_fp8_dot(Device::gpu(), 64, 64, 128, 6);
  check_fp8_dot(Device::gpu(), 512, 256, 256, 8);
  check_fp8_dot<Fp8MixedDot>(Device::gpu(), 100, 72, 64, 7);
}

TEST_F(TensorCoreOnGpu, Tf32DotMatchesTheHostReference) {
  check_tf32_dot(Device::gpu(), 64, 64, 128, 11);
  check_tf32_dot(Device::gpu(), 512, 256, 256, 13);
  check_tf32_dot(Device::gpu(), 100, 72, 64, 12);
}

TEST_F(TensorCoreOnGpu, AccumulatorEpilogueThroughSharedMemory) {
  check_epilogue_through_shared<EpilogueThroughShared>(Device::gpu(), 64, 4);
  check_epilogue_through_shared<EpilogueWithOddAtoms>(Device::gpu(), 40, 5);
}

}  // namespace
}  // namespace tessel::testing
