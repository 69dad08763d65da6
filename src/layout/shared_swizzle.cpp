#include "tessel/layout/shared_swizzle.hpp"

#include <set>

namespace tessel {

int bank_groups_touched(int row_bytes, int bits, int chunk) {
  std::set<int64_t> groups;
  for (int r = 0; r < 8; ++r) groups.insert((swizzle_byte(int64_t(r) * row_bytes + chunk * 16, bits) / 16) % 8);
  return int(groups.size());
}

int conflict_free_swizzle_bits(int row_bytes) {
  for (int bits = 0; bits <= 3; ++bits) {
    bool free = true;
    for (int chunk = 0; chunk * 16 < row_bytes && free; ++chunk)
      free = bank_groups_touched(row_bytes, bits, chunk) == 8;
    if (free) return bits;
  }
  return 3;
}

}  // namespace tessel
