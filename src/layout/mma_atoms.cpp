#include "tessel/layout/mma_atoms.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tessel/error.hpp"

namespace tessel {

// Register digits (most significant first) of a0..a7: column half, row half, column pair.
Layout mma_m16n8k16_a() {
  return Layout::local({1, 2}) * Layout::local({2, 1}) * Layout::spatial({8, 4}) * Layout::local({1, 2});
}

// b0..b3: row half, row pair; lanes are column-major (groupID picks the column).
Layout mma_m16n8k16_b() { return Layout::local({2, 1}) * Layout::column_spatial({4, 8}) * Layout::local({2, 1}); }

// c0..c3: row half, column pair.
Layout mma_m16n8k16_c() { return Layout::local({2, 1}) * Layout::spatial({8, 4}) * Layout::local({1, 2}); }

MmaLayouts mma_layouts(int m, int n, int k, int warps_m, int warps_n) {
  if (warps_m <= 0 || warps_n <= 0 || m % (16 * warps_m) != 0 || n % (8 * warps_n) != 0 || k % 16 != 0)
    throw Error(fmt::format("mma_layouts: a {}x{}x{} tile does not split into m16n8k16 atoms over {}x{} warps (m must "
                            "be a multiple of {}, n of {}, k of 16)",
                            m, n, k, warps_m, warps_n, 16 * warps_m, 8 * warps_n));
  const int rm = m / 16 / warps_m, rn = n / 8 / warps_n, rk = k / 16;
  MmaLayouts l;
  l.a = Layout::local({rm, rk}) * Layout::spatial({warps_m, 1}) * Layout::replicated(2, warps_n) * mma_m16n8k16_a();
  l.b = Layout::local({rk, rn}) * Layout::replicated(2, warps_m) * Layout::spatial({1, warps_n}) * mma_m16n8k16_b();
  l.c = Layout::local({rm, rn}) * Layout::spatial({warps_m, warps_n}) * mma_m16n8k16_c();
  return l;
}

std::vector<WarpSplit> mma_warp_splits(int m, int n, int k, int warps) {
  std::vector<WarpSplit> splits;
  if (k % 16 != 0) return splits;
  for (int wm = warps; wm >= 1; --wm)
    if (warps % wm == 0 && m % (16 * wm) == 0 && n % (8 * (warps / wm)) == 0) splits.push_back({wm, warps / wm});
  std::stable_sort(splits.begin(), splits.end(), [&](const WarpSplit& x, const WarpSplit& y) {
    return m / x.m + n / x.n < m / y.m + n / y.n;
  });
  return splits;
}

}  // namespace tessel
