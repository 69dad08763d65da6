#include "tessel/ir/fast_divmod.hpp"

#include "tessel/error.hpp"

namespace tessel::ir {

DivisorMagic divisor_magic(uint32_t d) {
  TESSEL_CHECK(d > 0, "magic numbers of divisor 0");
  uint32_t l = 0;
  while ((uint64_t(1) << l) < d) ++l;
  // 2^l - d < d, so the quotient is below 2^32 and the multiplier fits in 32 bits.
  const uint64_t m = (((uint64_t(1) << l) - d) << 32) / d + 1;
  return {uint32_t(m), l};
}

uint32_t fast_divide(uint32_t x, DivisorMagic magic) {
  const auto t = uint32_t((uint64_t(x) * magic.multiplier) >> 32);
  const uint32_t first = magic.log2 < 1 ? magic.log2 : 1;
  const uint32_t second = magic.log2 > 0 ? magic.log2 - 1 : 0;
  return (t + ((x - t) >> first)) >> second;
}

int32_t fast_divide(int32_t x, DivisorMagic magic) {
  const uint32_t magnitude = x < 0 ? 0u - uint32_t(x) : uint32_t(x);
  const uint32_t q = fast_divide(magnitude, magic);
  return x < 0 ? int32_t(0u - q) : int32_t(q);
}

}  // namespace tessel::ir
