// The IR nodes of the wgmma instruction family (nodes.def): wgmma (sm_90a).
#pragma once

#include "tessel/ir/core.hpp"

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
// acc += a @ b with wgmma.mma_async m64nNk16 (f16/bf16 operands, f32 accumulator), N = acc's
// columns. `a` [m, k] is a shared tile with K-major rows (SS) or a register tile in the wgmma A
// fragment layout (RS); `b` [k, n] is the transposed view of a K-major [n, k] shared tile; `acc`
// [m, n] is in the wgmma accumulator layout over the group's warpgroups (wgmma_layouts()).
struct WgmmaMmaNode : StmtNode {
  WgmmaMmaNode(SourceLoc l, RegisterTensor acc, SharedTensor a_shared, RegisterTensor a_registers, SharedTensor b)
      : StmtNode(NodeKind::WgmmaMma, std::move(l)),
        acc(std::move(acc)),
        a_shared(std::move(a_shared)),
        a_registers(std::move(a_registers)),
        b(std::move(b)) {}
  RegisterTensor acc;
  SharedTensor a_shared;       // null in the RS form
  RegisterTensor a_registers;  // null in the SS form
  SharedTensor b;
  int m() const { return acc->shape()[0]; }
  int n() const { return acc->shape()[1]; }
  int k() const { return b->shape[0]; }
  DType operand_type() const { return b->dtype; }
  // B is MN-major (a row-major [k, n] view, n contiguous) rather than K-major (the transpose of a
  // row-major [n, k] view).
  bool b_mn_major() const { return b->strides[1] == 1; }
  // The bytes of one of B's rows in shared memory: its k, or its n when MN-major.
  int b_row_bytes() const { return (b_mn_major() ? n() : k()) * dtype_bytes(b->dtype); }
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
