// Tensor-core kernels on the simulator against host references.
#include "tensor_core_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(TensorCore, IntegerDotIsExactAndWraps) {
  check_integer_dot(Device::simulator(), 64, 64, 128, 1);
  check_integer_dot(Device::simulator(), 100, 72, 64, 2);  // partial blocks: loads fill with zeros
}

TEST(TensorCore, AccumulatorEpilogueThroughSharedMemory) {
  check_epilogue_through_shared<EpilogueThroughShared>(Device::simulator(), 64, 4);
  check_epilogue_through_shared<EpilogueWithOddAtoms>(Device::simulator(), 40, 5);
}

}  // namespace
}  // namespace tessel::testing
