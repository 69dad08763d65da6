// The IR nodes of the async_copy instruction family (nodes.def): cp.async.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// cp.async: global -> shared without passing through registers, completing asynchronously.
// Each thread of the group copies the runs of `layout` it owns (chosen by select_instructions;
// empty until then); elements outside the view are zero-filled.
struct CopyAsyncNode : StmtNode {
  CopyAsyncNode(SourceLoc l, GlobalTensor src, SharedTensor dst, std::vector<Expr> offsets, Layout layout,
                int vector = 0)
      : StmtNode(NodeKind::CopyAsync, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        layout(std::move(layout)),
        vector(vector) {}
  GlobalTensor src;
  SharedTensor dst;
  std::vector<Expr> offsets;
  Layout layout;  // how the copy is split over the group's first layout.num_threads() threads
  // Elements per cp.async (4, 8 or 16 bytes); 1 where runs are shorter than 4 bytes and the copy
  // is synchronous; 0 until selected.
  int vector;
  // Instead of a layout, the tile's runs of `vector` elements, in row-major order, taken by the
  // group's threads in turn (thread t copies runs t, t + threads, ...): where no layout spreads
  // the tile over more than a few threads, its extents having few factors of two (a halo's 130).
  bool in_turn = false;
  static constexpr auto operands() {
    return std::tuple{&CopyAsyncNode::src, &CopyAsyncNode::dst, &CopyAsyncNode::offsets};
  }
};
// Closes the thread's current group of cp.async operations.
struct CopyAsyncCommitNode : StmtNode {
  explicit CopyAsyncCommitNode(SourceLoc l) : StmtNode(NodeKind::CopyAsyncCommit, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the thread's committed groups are incomplete; `all` also
// commits and waits for everything (cp.async.wait_all).
struct CopyAsyncWaitNode : StmtNode {
  CopyAsyncWaitNode(SourceLoc l, int pending, bool all)
      : StmtNode(NodeKind::CopyAsyncWait, std::move(l)), pending(pending), all(all) {}
  int pending;
  bool all;
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
