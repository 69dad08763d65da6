// The IR nodes of the cluster instruction family (nodes.def): clusters.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of the cluster that has
// not exited arrives, then waits for the others; the accesses before it are visible to all after.
struct ClusterSyncNode : StmtNode {
  explicit ClusterSyncNode(SourceLoc l) : StmtNode(NodeKind::ClusterSync, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
