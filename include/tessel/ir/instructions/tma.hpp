// The IR nodes of the tma instruction family (nodes.def): TMA copies.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// TMA (cp.async.bulk.tensor) instructions are issued by the first thread of the thread group that
// runs them; the others skip them. Their bulk groups are that thread's.

// global <- shared through a tensor map: writes the tile `src` as the box at `offsets` of `dst`.
// The tile's dimensions are `dims` of the view (increasing); the box has extent 1 in the others.
// Elements outside the view are not written. The TMA engine reads `src` at any time until a
// wait_group(read) retires the store's bulk group.
struct TmaStoreNode : StmtNode {
  TmaStoreNode(SourceLoc l, SharedTensor src, GlobalTensor dst, std::vector<Expr> offsets, std::vector<int> dims,
               int tensor_map = -1)
      : StmtNode(NodeKind::TmaStore, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        dims(std::move(dims)),
        tensor_map(tensor_map) {}
  SharedTensor src;
  GlobalTensor dst;
  std::vector<Expr> offsets;  // one per dimension of dst
  std::vector<int> dims;      // one per dimension of src
  int tensor_map;             // index into KernelNode::tensor_maps; -1 until plan_tensor_maps
  static constexpr auto operands() {
    return std::tuple{&TmaStoreNode::src, &TmaStoreNode::dst, &TmaStoreNode::offsets};
  }
};
// shared <- global through a tensor map: the box at `offsets` of `src` lands in the tile `dst` as
// its image (elements outside the view read as zero) and completes its bytes on `barrier`
// (complete-tx). The tile's dimensions are `dims` of the view, as for stores. Until the barrier's
// phase completes, the tile's bytes belong to the TMA engine. With a `cta_mask` (multicast,
// .multicast::cluster), the box lands at the tile's offset in every block of the cluster whose rank
// bit is set, and completes its bytes on each one's barrier at `barrier`'s offset.
struct TmaLoadNode : StmtNode {
  TmaLoadNode(SourceLoc l, GlobalTensor src, SharedTensor dst, std::vector<Expr> offsets, std::vector<int> dims,
              MbarrierRef barrier, int tensor_map = -1, Expr cta_mask = nullptr, Expr barrier_rank = nullptr)
      : StmtNode(NodeKind::TmaLoad, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        dims(std::move(dims)),
        barrier(std::move(barrier)),
        tensor_map(tensor_map),
        cta_mask(std::move(cta_mask)),
        barrier_rank(std::move(barrier_rank)) {}
  GlobalTensor src;
  SharedTensor dst;
  std::vector<Expr> offsets;  // one per dimension of src
  std::vector<int> dims;      // one per dimension of dst
  MbarrierRef barrier;
  int tensor_map;  // index into KernelNode::tensor_maps; -1 until plan_tensor_maps
  Expr cta_mask;   // bit r: cluster rank r receives the box; null: this block only
  // The cluster rank of the block of this block's pair whose barrier the bytes complete on
  // (cta_group::2, sm_100a); null: the receiving block's own.
  Expr barrier_rank;
  static constexpr auto operands() {
    return std::tuple{&TmaLoadNode::src,
                      &TmaLoadNode::dst,
                      &TmaLoadNode::offsets,
                      &TmaLoadNode::barrier,
                      optional(&TmaLoadNode::cta_mask),
                      optional(&TmaLoadNode::barrier_rank)};
  }
};
// shared::cluster <- shared::cta, a bulk copy of bytes (cp.async.bulk.shared::cluster.shared::cta):
// the tile `src` of this block lands in the tile `dst` of the block of cluster rank `rank` and
// completes its bytes on that block's barrier at `barrier`'s offset (complete-tx). Until the
// barrier's phase completes, the TMA engine may read `src` and write the destination's `dst`.
struct TmaSharedToClusterNode : StmtNode {
  TmaSharedToClusterNode(SourceLoc l, SharedTensor src, SharedTensor dst, Expr rank, MbarrierRef barrier)
      : StmtNode(NodeKind::TmaSharedToCluster, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        rank(std::move(rank)),
        barrier(std::move(barrier)) {}
  SharedTensor src;
  SharedTensor dst;  // the tile at the same offset in the block of `rank`
  Expr rank;
  MbarrierRef barrier;  // the barrier at the same offset in the block of `rank`
  static constexpr auto operands() {
    return std::tuple{&TmaSharedToClusterNode::src, &TmaSharedToClusterNode::dst, &TmaSharedToClusterNode::rank,
                      &TmaSharedToClusterNode::barrier};
  }
};
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes, without a tensor map: the
// dense tile `dst` receives, in row-major order, the run of elements of one row of `src` that
// starts at `offsets`, and the copy completes its bytes on `barrier`.
struct TmaBulkLoadNode : StmtNode {
  TmaBulkLoadNode(SourceLoc l, GlobalTensor src, SharedTensor dst, std::vector<Expr> offsets, MbarrierRef barrier)
      : StmtNode(NodeKind::TmaBulkLoad, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        barrier(std::move(barrier)) {}
  GlobalTensor src;
  SharedTensor dst;
  std::vector<Expr> offsets;  // one per dimension of src
  MbarrierRef barrier;
  static constexpr auto operands() {
    return std::tuple{&TmaBulkLoadNode::src, &TmaBulkLoadNode::dst, &TmaBulkLoadNode::offsets,
                      &TmaBulkLoadNode::barrier};
  }
};
// cp.async.bulk.global.shared::cta.bulk_group, without a tensor map: the dense tile `src`, in
// row-major order, to the run of one row of `dst` that starts at `offsets`, in the issuing thread's
// bulk group.
struct TmaBulkStoreNode : StmtNode {
  TmaBulkStoreNode(SourceLoc l, SharedTensor src, GlobalTensor dst, std::vector<Expr> offsets)
      : StmtNode(NodeKind::TmaBulkStore, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)) {}
  SharedTensor src;
  GlobalTensor dst;
  std::vector<Expr> offsets;  // one per dimension of dst
  static constexpr auto operands() {
    return std::tuple{&TmaBulkStoreNode::src, &TmaBulkStoreNode::dst, &TmaBulkStoreNode::offsets};
  }
};
// Closes the issuing thread's current bulk group of TMA stores (cp.async.bulk.commit_group).
struct TmaCommitNode : StmtNode {
  explicit TmaCommitNode(SourceLoc l) : StmtNode(NodeKind::TmaCommit, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the issuing thread's bulk groups are incomplete: with `read`,
// until their reads of shared memory are done (the source may be overwritten); without, until
// their writes to global memory are done too.
struct TmaWaitNode : StmtNode {
  TmaWaitNode(SourceLoc l, int pending, bool read)
      : StmtNode(NodeKind::TmaWait, std::move(l)), pending(pending), read(read) {}
  int pending;
  bool read;
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
