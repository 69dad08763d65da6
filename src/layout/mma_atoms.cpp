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

// a0..a15: column half, row half, column quad (one 32-bit register). fp8's m16n8k32 fragments are
// those of s8 (PTX ISA 9.7.14.5.8).
Layout mma_m16n8k32_s8_a() {
  return Layout::local({1, 2}) * Layout::local({2, 1}) * Layout::spatial({8, 4}) * Layout::local({1, 4});
}

// b0..b7: row half, row quad (one 32-bit register); lanes are column-major.
Layout mma_m16n8k32_s8_b() { return Layout::local({2, 1}) * Layout::column_spatial({4, 8}) * Layout::local({4, 1}); }

// tf32's m16n8k8 (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32): a0..a3: column half, row
// half, one element a register.
Layout mma_m16n8k8_tf32_a() { return Layout::local({1, 2}) * Layout::local({2, 1}) * Layout::spatial({8, 4}); }

// b0, b1: row half; lanes are column-major.
Layout mma_m16n8k8_tf32_b() { return Layout::local({2, 1}) * Layout::column_spatial({4, 8}); }

const MmaAtom& mma_atom(DType operand) {
  static const MmaAtom half{16, 8, 16, mma_m16n8k16_a(), mma_m16n8k16_b(), mma_m16n8k16_c()};
  static const MmaAtom tf32{16, 8, 8, mma_m16n8k8_tf32_a(), mma_m16n8k8_tf32_b(), mma_m16n8k16_c()};
  static const MmaAtom eight_bit{16, 8, 32, mma_m16n8k32_s8_a(), mma_m16n8k32_s8_b(), mma_m16n8k16_c()};
  switch (operand) {
    case DType::F16:
    case DType::BF16: return half;
    case DType::I8:
    case DType::U8:
    case DType::F8E4M3:
    case DType::F8E5M2: return eight_bit;
    case DType::TF32: return tf32;
    case DType::Bool:
    case DType::I16:
    case DType::U16:
    case TESSEL_PACKED_DTYPES:
    case DType::I32:
    case DType::U32:
    case DType::I64:
    case DType::U64:
    case DType::F32:
    case DType::F64:
    case DType::E8M0: break;
  }
  throw Error(fmt::format("tensor cores have no mma.sync shape for {} operands", dtype_name(operand)));
}

MmaLayouts mma_layouts(int m, int n, int k, int warps_m, int warps_n, DType operand) {
  const MmaAtom& atom = mma_atom(operand);
  if (warps_m <= 0 || warps_n <= 0 || m % (atom.m * warps_m) != 0 || n % (atom.n * warps_n) != 0 || k % atom.k != 0)
    throw Error(
        fmt::format("mma_layouts: a {}x{}x{} tile does not split into m{}n{}k{} atoms over {}x{} warps (m "
                    "must be a multiple of {}, n of {}, k of {})",
                    m, n, k, atom.m, atom.n, atom.k, warps_m, warps_n, atom.m * warps_m, atom.n * warps_n, atom.k));
  const int rm = m / atom.m / warps_m, rn = n / atom.n / warps_n, rk = k / atom.k;
  MmaLayouts l;
  l.a = Layout::local({rm, rk}) * Layout::spatial({warps_m, 1}) * Layout::replicated(2, warps_n) * atom.a;
  l.b = Layout::local({rk, rn}) * Layout::replicated(2, warps_m) * Layout::spatial({1, warps_n}) * atom.b;
  l.c = Layout::local({rm, rn}) * Layout::spatial({warps_m, warps_n}) * atom.c;
  return l;
}

std::vector<WarpSplit> mma_warp_splits(int m, int n, int k, int warps, DType operand) {
  const MmaAtom& atom = mma_atom(operand);
  std::vector<WarpSplit> splits;
  if (k % atom.k != 0) return splits;
  for (int wm = warps; wm >= 1; --wm)
    if (warps % wm == 0 && m % (atom.m * wm) == 0 && n % (atom.n * (warps / wm)) == 0)
      splits.push_back({wm, warps / wm});
  std::stable_sort(splits.begin(), splits.end(),
                   [&](const WarpSplit& x, const WarpSplit& y) { return m / x.m + n / x.n < m / y.m + n / y.n; });
  return splits;
}

}  // namespace tessel
