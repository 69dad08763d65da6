// The IR nodes of the tensor_core instruction family (nodes.def): mma.sync.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// out = a @ b + c on tensor cores (mma.sync): a [m, k] and b [k, n] in f16 or bf16 with c and out
// [m, n] in f32 (m16n8k16), in e4m3 or e5m2 (each) with c and out in f32 (m16n8k32, sm_89 and newer), or in i8 or
// u8 (either signedness each) with c and out in i32 (m16n8k32); all in the
// layouts of mma_layouts(m, n, k, warps_m, warps_n, a's type). The warp split is 0x0 from tracing until infer_layouts
// chooses it.
struct DotNode : StmtNode {
  DotNode(SourceLoc l, RegisterTensor out, RegisterTensor a, RegisterTensor b, RegisterTensor c, int warps_m,
          int warps_n)
      : StmtNode(NodeKind::Dot, std::move(l)),
        out(std::move(out)),
        a(std::move(a)),
        b(std::move(b)),
        c(std::move(c)),
        warps_m(warps_m),
        warps_n(warps_n) {}
  RegisterTensor out, a, b, c;
  int warps_m, warps_n;
  bool saturate = false;  // integer sums clamped to the i32 range after each k32 step (.satfinite)
  static constexpr auto operands() { return std::tuple{&DotNode::out, &DotNode::a, &DotNode::b, &DotNode::c}; }
};

}  // namespace tessel::ir
