// Which shared-memory loads ldmatrix can perform: a load_shared into the A or B fragment layout of
// mma_layouts() (16-bit elements) from rows of 16-byte chunks. The code generator emits these
// with ldmatrix; choose_swizzles swizzles the tiles they read.
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

}  // namespace tessel::ir
