// The register layout of tcgen05.ld / tcgen05.st with the 32x32b shape (PTX ISA 9.7.16.8.3;
// hw-semantics.md §5.3): warp w reads lanes 32 (w mod 4) ... + 31 of tensor memory, thread l of
// it lane 32 (w mod 4) + l, and repetition j of the .xN form column j. A tile of `rows` lanes
// (32 per warp) and `cols` columns therefore sits one row per thread, the whole row in the
// thread's registers, column j in slot j:
//   tcgen05_32x32b(rows, cols) = spatial(rows, 1) * local(1, cols)
#pragma once

#include "tessel/layout/layout.hpp"

namespace tessel {

Layout tcgen05_32x32b(int rows, int cols);

}  // namespace tessel
