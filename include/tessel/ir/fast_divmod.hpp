// fast_divmod's arithmetic, shared by the launch (which computes a divisor's magic numbers once),
// the simulator (which divides as the generated code does) and the tests.
//
// x / d for a 32-bit d > 0 is a multiply-high and two shifts (Granlund and Montgomery, "Division by
// invariant integers using multiplication", PLDI 1994, section 4): with l = ceil(log2 d) and
// m = floor(2^32 * (2^l - d) / d) + 1, which fits in 32 bits,
//   t = umulhi(m, x);  x / d = (t + ((x - t) >> min(l, 1))) >> max(l - 1, 0)
// for every unsigned 32-bit x. A signed x divides its magnitude and takes its sign back, which
// truncates toward zero as C's `/` does.
#pragma once

#include <cstdint>

namespace tessel::ir {

struct DivisorMagic {
  uint32_t multiplier = 0;
  uint32_t log2 = 0;  // ceil(log2 d)
};

DivisorMagic divisor_magic(uint32_t d);  // d > 0
uint32_t fast_divide(uint32_t x, DivisorMagic magic);
int32_t fast_divide(int32_t x, DivisorMagic magic);

}  // namespace tessel::ir
