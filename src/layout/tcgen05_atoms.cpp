#include "tessel/layout/tcgen05_atoms.hpp"

namespace tessel {

Layout tcgen05_32x32b(int rows, int cols) { return Layout::spatial({rows, 1}) * Layout::local({1, cols}); }

}  // namespace tessel
