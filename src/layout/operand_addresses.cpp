#include "tessel/layout/operand_addresses.hpp"

#include "tessel/error.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel {

int64_t k_major_operand_address(int64_t start, int64_t stride, int swizzle_bits, int row, int k, int elem_bytes) {
  TESSEL_CHECK(swizzle_bits >= 1, "the simulator reads only swizzled K-major tensor-core operands");
  const int64_t span = int64_t(16) << swizzle_bits;
  return swizzle_byte(start + (row % 8) * span + (row / 8) * stride + int64_t(k) * elem_bytes, swizzle_bits);
}

int64_t mn_major_operand_address(int64_t start, int64_t leading, int64_t stride, int swizzle_bits, int row, int k,
                                 int elem_bytes) {
  TESSEL_CHECK(swizzle_bits >= 1, "the simulator reads only swizzled MN-major tensor-core operands");
  const int64_t span = int64_t(16) << swizzle_bits, per_span = span / elem_bytes;
  return swizzle_byte(
      start + (row % per_span) * elem_bytes + (row / per_span) * leading + (k % 8) * span + (k / 8) * stride,
      swizzle_bits);
}

}  // namespace tessel
