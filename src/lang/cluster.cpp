// The cluster instruction group: the cluster's built-in values, cluster.sync(), the cluster
// shape of attrs, other blocks' shared tiles, and st.async into them.
#include "tile_tracing.hpp"

namespace tessel {

namespace {

Expr<int32_t> builtin(ir::BuiltinKind which) { return Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, which)); }

}  // namespace

ClusterInstructions::ClusterInstructions()
    : blockIdx{builtin(ir::BuiltinKind::ClusterBlockIdxX), builtin(ir::BuiltinKind::ClusterBlockIdxY),
               builtin(ir::BuiltinKind::ClusterBlockIdxZ)},
      clusterDim{builtin(ir::BuiltinKind::ClusterDimX), builtin(ir::BuiltinKind::ClusterDimY),
                 builtin(ir::BuiltinKind::ClusterDimZ)},
      clusterIdx{builtin(ir::BuiltinKind::ClusterIdxX), builtin(ir::BuiltinKind::ClusterIdxY),
                 builtin(ir::BuiltinKind::ClusterIdxZ)},
      blockRank(builtin(ir::BuiltinKind::ClusterBlockRank)) {}

void ClusterInstructions::sync(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::ClusterSyncNode>(loc));
}

void ClusterInstructions::arrive(MemoryOrder order, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (order != MemoryOrder::release && order != MemoryOrder::relaxed)
    throw Error(loc, fmt::format("cluster.arrive: an arrival is release (the default) or relaxed, not {}; the "
                                 "wait that follows it acquires",
                                 order == MemoryOrder::acquire ? "acquire" : "acq_rel"));
  Builder::current(loc).emit(ir::make<ir::ClusterArriveNode>(loc, order == MemoryOrder::relaxed));
}

void ClusterInstructions::wait(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::ClusterWaitNode>(loc));
}

RemoteSharedTensor SharedTensor::remote(const Dim& rank) const { return RemoteSharedTensor(*this, rank.ir()); }

void Instructions::store_shared_async(const RemoteSharedTensor& dst, const RegisterTensor& src, const Mbarrier& barrier,
                                      std::vector<Dim> offsets, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  detail::check_shared_store(dst.tile(), src, offsets, "store_shared_async", loc);
  b.emit(ir::make<ir::StoreSharedAsyncNode>(loc, dst.tile().ir(), src.ir(), detail::exprs_of(offsets), dst.rank(),
                                            barrier.ir()));
}

bool Attrs::Cluster::clustered() const {
  return std::any_of(extents_.begin(), extents_.end(), [](int e) { return e != 1; });
}

}  // namespace tessel
