// The IR nodes of the wgmma instruction family (nodes.def): wgmma (sm_90a).
#pragma once

#include "tessel/ir/core.hpp"
#include "tessel/ir/mma_operand.hpp"

namespace tessel::ir {

// wgmma (sm_90a only): warpgroup tensor-core instructions, run by whole warpgroups. A wgmma.mma
// is asynchronous: it reads its shared operands and its register operands at a time of the
// tensor core's choosing before the wait_group that retires its group.
//
// Orders the warpgroup's register accesses before the wgmma.mma that follow (wgmma.fence).
struct WgmmaFenceNode : StmtNode {
  explicit WgmmaFenceNode(SourceLoc l) : StmtNode(NodeKind::WgmmaFence, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// acc += a @ b with wgmma.mma_async m64nNk16 (f16/bf16 operands of one type) or m64nNk32 (fp8
// operands, e4m3 or e5m2 each, or 8-bit integers, s8 or u8 each), an f32 accumulator (s32 for
// integers), N = acc's columns. `a` [m, k] is a shared operand (SS; mma_operand.hpp) or a register
// tile in the wgmma A fragment layout of its type (RS); `b` [k, n] is a shared operand, K-major or
// (f16/bf16) MN-major; `acc` [m, n] is in the wgmma accumulator layout over the group's warpgroups
// (wgmma_layouts()). Without `accumulate`, acc = a @ b: the first instruction of each row block
// ignores acc's old value (PTX's scale-d = 0).
struct WgmmaMmaNode : StmtNode {
  WgmmaMmaNode(SourceLoc l, RegisterTensor acc, SharedTensor a_shared, RegisterTensor a_registers, SharedTensor b,
               bool accumulate = true)
      : StmtNode(NodeKind::WgmmaMma, std::move(l)),
        acc(std::move(acc)),
        a_shared(std::move(a_shared)),
        a_registers(std::move(a_registers)),
        b(std::move(b)),
        accumulate(accumulate) {}
  RegisterTensor acc;
  SharedTensor a_shared;       // null in the RS form
  RegisterTensor a_registers;  // null in the SS form
  SharedTensor b;
  bool accumulate;
  bool saturate = false;  // integer sums clamped to the i32 range after each instruction (.satfinite)
  int m() const { return acc->shape()[0]; }
  int n() const { return acc->shape()[1]; }
  int k() const { return b_operand().k; }
  DType operand_type() const { return b->dtype; }  // B's; A's has as many bytes
  DType a_type() const { return a_shared ? a_shared->dtype : a_registers->dtype; }
  MmaOperand a_operand() const { return mma_operand(*a_shared, 1); }  // the SS form's
  MmaOperand b_operand() const { return mma_operand(*b, 0); }
  static constexpr auto operands() {
    return std::tuple{&WgmmaMmaNode::acc, optional(&WgmmaMmaNode::a_registers), optional(&WgmmaMmaNode::a_shared),
                      &WgmmaMmaNode::b};
  }
};
// Closes the warpgroup's group of wgmma.mma issued since the last commit.
struct WgmmaCommitGroupNode : StmtNode {
  explicit WgmmaCommitGroupNode(SourceLoc l) : StmtNode(NodeKind::WgmmaCommitGroup, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the warpgroup's committed wgmma groups are incomplete.
struct WgmmaWaitGroupNode : StmtNode {
  WgmmaWaitGroupNode(SourceLoc l, int pending) : StmtNode(NodeKind::WgmmaWaitGroup, std::move(l)), pending(pending) {}
  int pending;
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
