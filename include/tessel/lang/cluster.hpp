// The cluster instruction group (`cluster.sync()`, `cluster.blockRank`, ...): the blocks of a
// cluster (attrs.cluster, sm_90a+) run at the same time and reach each other's shared memory and
// mbarriers. Arrivals on a peer's barrier are mbarrier.arrive(bar.remote(rank)); TMA multicast is
// tma.global_to_shared(..., Multicast{mask}).
#pragma once

#include <source_location>

#include "tessel/lang/memory_model.hpp"
#include "tessel/lang/tensors.hpp"

namespace tessel {

// The blocks of the cluster an operation reaches: bit r set for cluster rank r
// (tma.global_to_shared, tcgen05.commit, clc.try_cancel).
struct Multicast {
  Dim cta_mask;
};

// Kernel-side built-in index vectors (blockIdx, gridDim, the cluster's).
struct Index3 {
  Expr<int32_t> x, y, z;
};

class ClusterInstructions {
 public:
  using loc_t = std::source_location;
  ClusterInstructions();

  // The block's index within its cluster (%cluster_ctaid), the cluster's shape (attrs.cluster)
  // and the cluster's index in the grid (%clusterid). Clusters tile the grid, so these are
  // blockIdx % clusterDim and blockIdx / clusterDim.
  Index3 blockIdx;
  Index3 clusterDim;
  Index3 clusterIdx;
  // The block's rank in its cluster (%cluster_ctarank): blockIdx.x + clusterDim.x * (blockIdx.y +
  // clusterDim.y * blockIdx.z). Ranks name blocks in remote arrivals and multicast masks.
  Expr<int32_t> blockRank;

  // barrier.cluster.arrive (release) + wait (acquire), run by every thread of the block: returns
  // once every thread of the cluster that has not exited arrived, and their earlier accesses are
  // then visible. End a kernel whose blocks reach each other's shared memory or barriers with it, so
  // that no block ends while others still use its memory.
  void sync(loc_t loc = loc_t::current());
  // cluster.sync() in two halves, so that independent work runs between them (the prologue of a
  // kernel while the other blocks start, say). arrive() by whole warps: `order` release (the
  // default) makes the warp's accesses before it visible after the others' wait(); relaxed orders
  // nothing, for a barrier that only says "this block runs". wait() by the warps that arrived, once
  // each after its arrival: returns once every thread of the cluster that has not exited arrived in
  // that phase.
  void arrive(MemoryOrder order = MemoryOrder::release, loc_t loc = loc_t::current());
  void wait(loc_t loc = loc_t::current());
};

}  // namespace tessel
