// Which shared-memory accesses ldmatrix and stmatrix can perform: a load_shared into the A or B
// fragment layout of mma_layouts(), or a store_shared from its C layout, of 16-bit elements, in
// rows of 16-byte chunks. The code generator emits these with ldmatrix / stmatrix (sm_90+);
// choose_swizzles swizzles the tiles they touch.
#pragma once

#include <optional>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

enum class FragmentOperand { A, B };

struct LdmatrixAccess {
  FragmentOperand operand;
  int warps_m, warps_n;
};

// The fragment `n` loads and the warp split of its layout, when ldmatrix can do the load for a
// group of `warps` warps.
std::optional<LdmatrixAccess> ldmatrix_access(const LoadSharedNode& n, int warps);

// The warp split of the accumulator layout `n` stores, when stmatrix can do the store for a group
// of `warps` warps.
struct StmatrixAccess {
  int warps_m, warps_n;
};
std::optional<StmatrixAccess> stmatrix_access(const StoreSharedNode& n, int warps);

}  // namespace tessel::ir
