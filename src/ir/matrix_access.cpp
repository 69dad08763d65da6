#include "tessel/ir/matrix_access.hpp"

#include "tessel/layout/mma_atoms.hpp"

namespace tessel::ir {

namespace {

// Which fragment layout `out` is, if any, for `warps` warps.
std::optional<LdmatrixAccess> match_fragment(const LoadSharedNode& n, int warps) {
  const auto& shape = n.out->shape();
  if (shape.size() != 2 || dtype_bytes(n.out->dtype) != 2 || !n.out->has_layout()) return std::nullopt;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (shape[0] % (16 * wm) == 0 && shape[1] % 16 == 0 &&
        mma_layouts(shape[0], 8 * wn, shape[1], wm, wn).a == n.out->layout)
      return LdmatrixAccess{FragmentOperand::A, wm, wn};
    if (shape[0] % 16 == 0 && shape[1] % (8 * wn) == 0 &&
        mma_layouts(16 * wm, shape[1], shape[0], wm, wn).b == n.out->layout)
      return LdmatrixAccess{FragmentOperand::B, wm, wn};
  }
  return std::nullopt;
}

// The allocation's rows of 16-bit elements start on 16-byte boundaries.
bool allocation_rows_are_chunks(const SharedTensor& s) {
  for (size_t d = 0; d + 1 < s->allocation()->strides.size(); ++d)
    if (s->allocation()->strides[d] % 8 != 0) return false;
  return true;
}

// ldmatrix reads rows of 8 contiguous 16-bit elements starting on 16-byte boundaries.
bool rows_are_chunks(const LoadSharedNode& n, FragmentOperand op) {
  const SharedTensor& s = n.src;
  const int contiguous = op == FragmentOperand::A ? 1 : 0;  // the k dimension of the view
  if (s->strides[contiguous] != 1 || s->strides[1 - contiguous] % 8 != 0 || !allocation_rows_are_chunks(s)) return false;
  int64_t k_offset = 0;
  return as_const_int(n.offsets[contiguous], &k_offset) && k_offset % 8 == 0;
}

}  // namespace

std::optional<LdmatrixAccess> ldmatrix_access(const LoadSharedNode& n, int warps) {
  const auto match = match_fragment(n, warps);
  if (!match || !rows_are_chunks(n, match->operand)) return std::nullopt;
  return match;
}

std::optional<StmatrixAccess> stmatrix_access(const StoreSharedNode& n, int warps) {
  const RegisterTensor& tile = n.src;
  const SharedTensor& s = n.dst;
  const auto& shape = tile->shape();
  if (shape.size() != 2 || dtype_bytes(tile->dtype) != 2 || !tile->has_layout()) return std::nullopt;
  // stmatrix writes rows of 8 contiguous 16-bit elements starting on 16-byte boundaries.
  int64_t col_offset = 0;
  if (s->strides[1] != 1 || s->strides[0] % 8 != 0 || !allocation_rows_are_chunks(s) ||
      !as_const_int(n.offsets[1], &col_offset) || col_offset % 8 != 0)
    return std::nullopt;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (shape[0] % (16 * wm) == 0 && shape[1] % (8 * wn) == 0 && mma_layouts(shape[0], shape[1], 16, wm, wn).c == tile->layout)
      return StmatrixAccess{wm, wn};
  }
  return std::nullopt;
}

}  // namespace tessel::ir
