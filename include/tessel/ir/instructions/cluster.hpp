// The IR nodes of the cluster instruction family (nodes.def): clusters.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of the cluster that has
// not exited arrives, then waits for the others; the accesses before it are visible to all after.
// `publishes_barriers`: the one mbarrier.alloc ends with in a kernel with clusters, which messages
// name as the alloc's.
struct ClusterSyncNode : StmtNode {
  explicit ClusterSyncNode(SourceLoc l, bool publishes_barriers = false)
      : StmtNode(NodeKind::ClusterSync, std::move(l)), publishes_barriers(publishes_barriers) {}
  bool publishes_barriers;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// barrier.cluster.arrive(.release | .relaxed).aligned: the cluster barrier of cluster.sync() in two
// halves, so that work goes on between them. Each thread arrives once a phase; a release arrival
// makes the warp's accesses before it visible to the threads its phase's wait lets go, a relaxed
// one orders nothing.
struct ClusterArriveNode : StmtNode {
  ClusterArriveNode(SourceLoc l, bool relaxed) : StmtNode(NodeKind::ClusterArrive, std::move(l)), relaxed(relaxed) {}
  bool relaxed;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// barrier.cluster.wait.acquire.aligned: waits until every thread of the cluster that has not exited
// has arrived in the phase of the warp's own arrival, and acquires what their arrivals released.
struct ClusterWaitNode : StmtNode {
  explicit ClusterWaitNode(SourceLoc l) : StmtNode(NodeKind::ClusterWait, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};

// st.async.shared::cluster.mbarrier::complete_tx::bytes: the elements of `src` (each thread its own,
// the first replica of each) go to `offsets` of the tile `dst` in the shared memory of the cluster's
// block of rank `rank`, and complete their bytes on that block's barrier at `barrier`'s offset
// (complete-tx). They land any time until that barrier's phase completes. `vector` elements make
// one access of 4, 8 or 16 bytes (select_instructions); 0 until selected.
struct StoreSharedAsyncNode : StmtNode {
  StoreSharedAsyncNode(SourceLoc l, SharedTensor dst, RegisterTensor src, std::vector<Expr> offsets, Expr rank,
                       MbarrierRef barrier, int vector = 0)
      : StmtNode(NodeKind::StoreSharedAsync, std::move(l)),
        dst(std::move(dst)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        rank(std::move(rank)),
        barrier(std::move(barrier)),
        vector(vector) {}
  SharedTensor dst;  // the tile at the same offset in the block of `rank`
  RegisterTensor src;
  std::vector<Expr> offsets;
  Expr rank;
  MbarrierRef barrier;  // the barrier at the same offset in the block of `rank`
  int vector;
  static constexpr auto operands() {
    return std::tuple{&StoreSharedAsyncNode::dst, &StoreSharedAsyncNode::src, &StoreSharedAsyncNode::offsets,
                      &StoreSharedAsyncNode::rank, &StoreSharedAsyncNode::barrier};
  }
};

}  // namespace tessel::ir
