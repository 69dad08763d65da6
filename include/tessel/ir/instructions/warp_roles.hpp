// The IR nodes of the warp_roles instruction family (nodes.def): warp roles: register reallocation and grid-constant
// division.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// setmaxnreg.inc / .dec (sm_90a): each warpgroup running it changes its warps' register count to
// `registers` per thread (a multiple of 8 in 24..256).
struct SetMaxNRegNode : StmtNode {
  SetMaxNRegNode(SourceLoc l, bool increase, int registers)
      : StmtNode(NodeKind::SetMaxNReg, std::move(l)), increase(increase), registers(registers) {}
  bool increase;
  int registers;
  static constexpr auto operands() { return std::tuple<>{}; }
};
// quotient, remainder = x / divisor, x % divisor (both variables declared before, of x's type, i32
// or u32) for a divisor that is the same for the whole grid. Traced with the divisor as an
// expression of the kernel's parameters; plan_fast_divmods makes it a parameter the launch
// computes, with its magic numbers (ir/fast_divmod.hpp) in `multiplier` and `log2`.
struct FastDivmodNode : StmtNode {
  FastDivmodNode(SourceLoc l, Var quotient, Var remainder, Expr x, Expr divisor, Expr multiplier = nullptr,
                 Expr log2 = nullptr)
      : StmtNode(NodeKind::FastDivmod, std::move(l)),
        quotient(std::move(quotient)),
        remainder(std::move(remainder)),
        x(std::move(x)),
        divisor(std::move(divisor)),
        multiplier(std::move(multiplier)),
        log2(std::move(log2)) {}
  Var quotient, remainder;
  Expr x, divisor;
  Expr multiplier, log2;  // null until planned
  bool planned() const { return multiplier != nullptr; }
  static constexpr auto operands() {
    return std::tuple{&FastDivmodNode::x, &FastDivmodNode::divisor, optional(&FastDivmodNode::multiplier),
                      optional(&FastDivmodNode::log2)};
  }
  static constexpr auto results() { return std::tuple{&FastDivmodNode::quotient, &FastDivmodNode::remainder}; }
};

}  // namespace tessel::ir
