// Tensor-core kernels on the simulator against host references.
#include "tensor_core_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(TensorCore, IntegerDotIsExactAndWraps) {
  check_integer_dot(Device::simulator(), 64, 64, 128, 1);
  check_integer_dot(Device::simulator(), 100, 72, 64, 2);  // partial blocks: loads fill with zeros
}

}  // namespace
}  // namespace tessel::testing
