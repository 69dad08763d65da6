// Warpgroup tensor-core (wgmma, sm_90a) fragment layouts in the layout algebra. A warpgroup is 4
// aligned warps (128 threads); warp w of it owns rows 16w..16w+15 of the m64 tile, and inside its
// rows each warp holds what an mma.sync m16n8k16 fragment holds (PTX ISA 9.7.15.5.1, "Register
// Fragments"; hw-semantics.md §4.4). With lane = 4 * groupID + threadID:
//   accumulator d[i], i in [0, N/2), f32:
//     row = 16w + groupID + 8 * ((i >> 1) & 1),  col = 8 * (i >> 2) + 2 * threadID + (i & 1)
//   A from registers a[i], i in [0, 8), f16/bf16 (two per 32-bit register):
//     row = 16w + groupID + 8 * ((i >> 1) & 1),  col = 8 * (i >> 2) + 2 * threadID + (i & 1)
//   A from registers a[i], i in [0, 16), 8-bit types (four per 32-bit register):
//     row = 16w + groupID + 8 * ((i >> 2) & 1),  col = 16 * (i >> 3) + 4 * threadID + (i & 3)
//   A from registers a[i], i in [0, 4), tf32 (one per 32-bit register):
//     row = 16w + groupID + 8 * (i & 1),  col = 4 * (i >> 1) + threadID
// The s32 accumulator of 8-bit integer operands is laid out as the f32 one.
#pragma once

#include "tessel/dtype.hpp"
#include "tessel/layout/layout.hpp"

namespace tessel {

// wgmma's instruction shape for f16/bf16 operands: m64 nN k16, N a multiple of 8 up to 256.
inline constexpr int kWgmmaM = 64, kWgmmaK = 16, kWgmmaMaxN = 256;
// fp8 operands (is_fp8: e4m3, e5m2; A and B may differ) are read K-major only; 8-bit integer
// operands (is_byte_integer: s8, u8, A and B may differ) go K-major into an s32 accumulator.
// The N of an instruction with `operand` type: a multiple of 8 up to 256; for 8-bit integers, 8,
// 16, 24 or a multiple of 16 from 32 (PTX ISA 9.7.15.5.2, and ptxas refuses m64n40k32.s32).
inline bool wgmma_n_is_legal(int n, DType operand = DType::F16) {
  const bool listed = !is_byte_integer(operand) || n <= 32 || n % 16 == 0;
  return n >= 8 && n <= kWgmmaMaxN && n % 8 == 0 && listed;
}
// The k of one instruction: 32 bytes of each operand row, k16 for f16/bf16, k32 for 8-bit types and
// k8 for tf32.
inline int wgmma_k(DType operand) { return 32 / dtype_bytes(operand); }

// The m64xN f32 accumulator of one warpgroup.
Layout wgmma_m64nNk16_c(int n);
// The m64xk16 f16/bf16 A operand of one warpgroup, from registers.
Layout wgmma_m64nNk16_a();
// The m64xk32 A operand of 8-bit types (fp8, s8, u8) of one warpgroup, from registers.
Layout wgmma_m64nNk32_a();
// The m64xk8 tf32 A operand of one warpgroup, from registers.
Layout wgmma_m64nNk8_a();

// Layouts for `warpgroups` warpgroups computing C[m, n] += A[m, k] B[k, n] by wgmma m64nNkK
// with N = n and K = wgmma_k(operand) (A and B of `operand`'s type): the warpgroups split m
// (warpgroup g owns rows 64g + 64 * warpgroups * r for repetition r), each repeating the m64 atom
// m / (64 * warpgroups) times. The register digits put the repetitions outermost, so the
// accumulator of repetition r is slots [r * n/2, (r+1) * n/2) and the A fragment of (repetition r,
// k-step s) is slots [a * (r * k/K + s), ... + a), with a = 8 for 16-bit types, 16 for 8-bit and 4
// for tf32.
// Throws tessel::Error when the shapes do not split so.
struct WgmmaLayouts {
  Layout a, c;
};
WgmmaLayouts wgmma_layouts(int m, int n, int k, int warpgroups, DType operand = DType::F16);

}  // namespace tessel
