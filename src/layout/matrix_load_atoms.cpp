#include "tessel/layout/matrix_load_atoms.hpp"

#include <fmt/format.h>

#include "tessel/error.hpp"

namespace tessel {

Layout ldmatrix_fragment(int blocks_down, int blocks_across, bool transposed) {
  const int count = blocks_down * blocks_across;
  if (blocks_down <= 0 || blocks_across <= 0 || (count != 1 && count != 2 && count != 4))
    throw Error(fmt::format("ldmatrix moves 1, 2 or 4 8x8 matrices, not {}x{}", blocks_down, blocks_across));
  // Register digits: block column, then block row (matrix j = column * blocks_down + row).
  const Layout blocks = Layout::local({1, blocks_across}) * Layout::local({blocks_down, 1});
  // Within a matrix: lane 4g + t holds row g, columns 2t and 2t + 1; transposed, rows 2t and
  // 2t + 1 of column g (lanes column-major over [4, 8]).
  const Layout matrix = transposed ? Layout::column_spatial({4, 8}) * Layout::local({2, 1})
                                   : Layout::spatial({8, 4}) * Layout::local({1, 2});
  return blocks * matrix;
}

Layout stmatrix_fragment(int blocks_down, int blocks_across, bool transposed) {
  return ldmatrix_fragment(blocks_down, blocks_across, transposed);
}

}  // namespace tessel
