#include "tessel/layout/wgmma_atoms.hpp"

#include <fmt/format.h>

#include "tessel/error.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel {

// Warps split the 64 rows in four; each warp repeats the m16n8 C fragment n/8 times along n, the
// repetition being the most significant register digit (d[i]'s i >> 2).
Layout wgmma_m64nNk16_c(int n) {
  if (!wgmma_n_is_legal(n))
    throw Error(fmt::format("wgmma has no m64n{}k16 shape: N must be a multiple of 8 from 8 to {}", n, kWgmmaMaxN));
  return Layout::spatial({4, 1}) * Layout::local({1, n / 8}) * mma_m16n8k16_c();
}

Layout wgmma_m64nNk16_a() { return Layout::spatial({4, 1}) * mma_m16n8k16_a(); }

// Each warp holds what an mma.sync m16n8k32 s8 A fragment holds, for every 8-bit type.
Layout wgmma_m64nNk32_a() { return Layout::spatial({4, 1}) * mma_m16n8k32_s8_a(); }

// Each warp holds what an mma.sync m16n8k8 tf32 A fragment holds.
Layout wgmma_m64nNk8_a() { return Layout::spatial({4, 1}) * mma_m16n8k8_tf32_a(); }

WgmmaLayouts wgmma_layouts(int m, int n, int k, int warpgroups, DType operand) {
  const int step = wgmma_k(operand);
  if (warpgroups <= 0 || m % (kWgmmaM * warpgroups) != 0 || k % step != 0 || !wgmma_n_is_legal(n, operand))
    throw Error(
        fmt::format("wgmma_layouts: a {}x{}x{} tile of {} does not split into m64n{}k{} instructions over {} "
                    "warpgroups (m must be a multiple of {}, k of {}, n a multiple of 8 from 8 to {}{})",
                    m, n, k, dtype_name(operand), n, step, warpgroups, kWgmmaM * warpgroups, step, kWgmmaMaxN,
                    is_byte_integer(operand) ? ", and of 16 above 32 for 8-bit integers" : ""));
  const int rm = m / kWgmmaM / warpgroups, rk = k / step;
  WgmmaLayouts l;
  l.a = Layout::local({rm, rk}) * Layout::spatial({warpgroups, 1}) *
        (step == kWgmmaK ? wgmma_m64nNk16_a()
         : step == 8     ? wgmma_m64nNk8_a()
                         : wgmma_m64nNk32_a());
  l.c = Layout::local({rm, 1}) * Layout::spatial({warpgroups, 1}) * wgmma_m64nNk16_c(n);
  return l;
}

}  // namespace tessel
