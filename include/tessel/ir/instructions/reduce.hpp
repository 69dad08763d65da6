// The IR nodes of the reduce instruction family (nodes.def): reductions and scans along a dimension of a register tile.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

enum class ReduceOp : uint8_t { Sum, Max, Min };
std::string_view op_name(ReduceOp op);
// A reduction whose dimension spans warps combines each warp's partial result through `scratch`, a
// shared allocation of [warps along dim, out's elements] that plan_reductions gives it, between
// two barriers of the thread group (`barrier`, numbered by allocate_barriers). Within a warp,
// `scratch` is null and the lanes combine with shuffles.
// With `position` (a Max or Min only), the reduction also gives each extreme's first position along
// `dim` as i32, carried beside the value in one pass (through `position_scratch` across warps); a
// NaN loses to every number, and a line of NaNs alone has the extent as its position.
struct ReduceNode : StmtNode {
  static constexpr int kUnallocated = -1;
  ReduceNode(SourceLoc l, RegisterTensor out, ReduceOp op, RegisterTensor a, int dim)
      : StmtNode(NodeKind::Reduce, std::move(l)), out(std::move(out)), op(op), a(std::move(a)), dim(dim) {}
  RegisterTensor out;  // extent 1 along `dim`
  ReduceOp op;
  RegisterTensor a;
  int dim;
  RegisterTensor position;  // out's shape and layout
  SharedTensor scratch;
  SharedTensor position_scratch;
  int barrier = kUnallocated;
  static constexpr auto operands() {
    return std::tuple{&ReduceNode::out, &ReduceNode::a, optional(&ReduceNode::position), optional(&ReduceNode::scratch),
                      optional(&ReduceNode::position_scratch)};
  }
};
// The reduction's name in messages: "sum", "max", "min", or "argmax", "argmin" with positions.
std::string reduction_name(const ReduceNode& n);

// A prefix combination along `dim` (cumsum, cummax, cummin): out's element at position k combines
// a's elements at positions 0..k, or 0..k-1 when `exclusive` (the first being the operation's
// identity). a's layout must walk the dimension in scan order (Layout::scan_order); across warps
// the warps' totals go through `scratch` between two barriers, as a reduction's partials do.
struct ScanNode : StmtNode {
  ScanNode(SourceLoc l, RegisterTensor out, ReduceOp op, RegisterTensor a, int dim, bool exclusive)
      : StmtNode(NodeKind::Scan, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        dim(dim),
        exclusive(exclusive) {}
  RegisterTensor out;  // a's shape and layout
  ReduceOp op;
  RegisterTensor a;
  int dim;
  bool exclusive;
  SharedTensor scratch;
  int barrier = ReduceNode::kUnallocated;
  static constexpr auto operands() { return std::tuple{&ScanNode::out, &ScanNode::a, optional(&ScanNode::scratch)}; }
};

}  // namespace tessel::ir
