// The IR nodes of the memory instruction family (nodes.def): data movement between global memory, shared memory and
// registers, and the block's barrier.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// A barrier over the threads of the group it runs in (bar.sync): barrier 0 (__syncthreads) for
// the whole block; a named barrier for a thread group of whole warps, numbered per group by
// allocate_barriers (kUnallocated from tracing until then).
struct SyncNode : StmtNode {
  static constexpr int kUnallocated = -1;
  static constexpr int kBlockBarrier = 0;
  static constexpr int kBarriers = 16;  // per block (PTX ISA 9.7.13.1)
  explicit SyncNode(SourceLoc l, int barrier = kBlockBarrier)
      : StmtNode(NodeKind::Sync, std::move(l)), barrier(barrier) {}
  int barrier;
  static constexpr auto operands() { return std::tuple<>{}; }
};
struct AllocSharedNode : StmtNode {
  AllocSharedNode(SourceLoc l, SharedTensor t, int64_t offset = -1, int alignment = 0)
      : StmtNode(NodeKind::AllocShared, std::move(l)), tensor(std::move(t)), offset(offset), alignment(alignment) {}
  SharedTensor tensor;
  int64_t offset;  // bytes into the block's shared memory; -1 until planned
  int alignment;   // the planner's alignment of `offset`, in bytes; 0 until planned
  static constexpr auto operands() { return std::tuple{&AllocSharedNode::tensor}; }
};
// The end of a shared allocation's life: plan_shared_memory may give its bytes to allocations that
// come after this statement. Nothing runs here.
struct FreeSharedNode : StmtNode {
  FreeSharedNode(SourceLoc l, SharedTensor t) : StmtNode(NodeKind::FreeShared, std::move(l)), tensor(std::move(t)) {}
  SharedTensor tensor;
  static constexpr auto operands() { return std::tuple{&FreeSharedNode::tensor}; }
};
// Elements outside the view's shape read as `fill`. With an `index` (load_global_gather), the
// coordinate along `index_dim` of the element at coordinates c is offsets[index_dim] + index[c]: an
// integer tile of the loaded tile's shape, or broadcast to it along extent-1 dimensions.
struct LoadGlobalNode : StmtNode {
  LoadGlobalNode(SourceLoc l, RegisterTensor out, GlobalTensor src, std::vector<Expr> offsets, double fill,
                 int vector = 0, RegisterTensor index = nullptr, int index_dim = -1)
      : StmtNode(NodeKind::LoadGlobal, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        fill(fill),
        vector(vector),
        index(std::move(index)),
        index_dim(index_dim) {}
  RegisterTensor out;
  GlobalTensor src;
  std::vector<Expr> offsets;
  double fill;
  int vector;            // elements per access (select_instructions); 0 until selected
  RegisterTensor index;  // null but for a gather
  int index_dim;
  static constexpr auto operands() {
    return std::tuple{&LoadGlobalNode::out, &LoadGlobalNode::src, &LoadGlobalNode::offsets,
                      optional(&LoadGlobalNode::index)};
  }
};
// Elements outside the view's shape are not written. An `index` makes it store_global_scatter, with
// coordinates as LoadGlobalNode's.
struct StoreGlobalNode : StmtNode {
  StoreGlobalNode(SourceLoc l, GlobalTensor dst, RegisterTensor src, std::vector<Expr> offsets, int vector = 0,
                  RegisterTensor index = nullptr, int index_dim = -1)
      : StmtNode(NodeKind::StoreGlobal, std::move(l)),
        dst(std::move(dst)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        vector(vector),
        index(std::move(index)),
        index_dim(index_dim) {}
  GlobalTensor dst;
  RegisterTensor src;
  std::vector<Expr> offsets;
  int vector;            // elements per access (select_instructions); 0 until selected
  RegisterTensor index;  // null but for a scatter
  int index_dim;
  static constexpr auto operands() {
    return std::tuple{&StoreGlobalNode::dst, &StoreGlobalNode::src, &StoreGlobalNode::offsets,
                      optional(&StoreGlobalNode::index)};
  }
};
// With a `rank`, the tile is the one at the same offset in the shared memory of the cluster's block
// of that rank (distributed shared memory: ld.shared::cluster through mapa). With an `index`
// (load_shared_gather, the block's own memory), coordinates are as LoadGlobalNode's, and elements
// whose indexed coordinate falls outside the tile read as `fill`.
struct LoadSharedNode : StmtNode {
  LoadSharedNode(SourceLoc l, RegisterTensor out, SharedTensor src, std::vector<Expr> offsets, Expr rank = nullptr,
                 MatrixAccess matrix = {}, int vector = 0, RegisterTensor index = nullptr, int index_dim = -1,
                 double fill = 0)
      : StmtNode(NodeKind::LoadShared, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        rank(std::move(rank)),
        matrix(matrix),
        vector(vector),
        index(std::move(index)),
        index_dim(index_dim),
        fill(fill) {}
  RegisterTensor out;
  SharedTensor src;
  std::vector<Expr> offsets;
  Expr rank;             // the owning block's cluster rank; null for the block's own shared memory
  MatrixAccess matrix;   // ldmatrix, when select_instructions chose it
  int vector;            // elements per access otherwise; 0 until selected
  RegisterTensor index;  // null but for a gather
  int index_dim;
  double fill;
  static constexpr auto operands() {
    return std::tuple{&LoadSharedNode::out, &LoadSharedNode::src, &LoadSharedNode::offsets,
                      optional(&LoadSharedNode::rank), optional(&LoadSharedNode::index)};
  }
};
// An `index` makes it store_shared_scatter: elements whose indexed coordinate falls outside the tile
// are not written.
struct StoreSharedNode : StmtNode {
  StoreSharedNode(SourceLoc l, SharedTensor dst, RegisterTensor src, std::vector<Expr> offsets, Expr rank = nullptr,
                  MatrixAccess matrix = {}, int vector = 0, RegisterTensor index = nullptr, int index_dim = -1)
      : StmtNode(NodeKind::StoreShared, std::move(l)),
        dst(std::move(dst)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        rank(std::move(rank)),
        matrix(matrix),
        vector(vector),
        index(std::move(index)),
        index_dim(index_dim) {}
  SharedTensor dst;
  RegisterTensor src;
  std::vector<Expr> offsets;
  Expr rank;             // as LoadSharedNode's
  MatrixAccess matrix;   // stmatrix, when select_instructions chose it
  int vector;            // elements per access otherwise; 0 until selected
  RegisterTensor index;  // null but for a scatter
  int index_dim;
  static constexpr auto operands() {
    return std::tuple{&StoreSharedNode::dst, &StoreSharedNode::src, &StoreSharedNode::offsets,
                      optional(&StoreSharedNode::rank), optional(&StoreSharedNode::index)};
  }
};

}  // namespace tessel::ir
