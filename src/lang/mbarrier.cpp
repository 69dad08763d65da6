// The mbarrier instruction group: allocation with its initialization, arrivals, transaction
// counts and parity waits.
#include "tessel/lang/script.hpp"

namespace tessel {

Mbarrier MbarrierArray::operator[](const ViewIndex& index) const {
  const SourceLoc& loc = index.loc;
  Builder& b = Builder::current(loc);
  if (index.dim.is_constant()) {
    if (index.dim.value() < 0 || index.dim.value() >= size())
      throw Error(loc, fmt::format("barrier index {} is out of range: the barrier array allocated at {} has {} "
                                   "barriers",
                                   index.dim.value(), words_->loc.str(), size()));
    return Mbarrier(ir::MbarrierRef{words_, index.dim.ir()});
  }
  // Snapshot the index: the barrier is the one the index named when indexed.
  ir::Var v = ir::make_var(ir::Type{DType::I32}, "bar", loc);
  b.emit(ir::make<ir::DeclareNode>(loc, v, index.dim.ir()));
  return Mbarrier(ir::MbarrierRef{words_, v});
}

MbarrierArray MbarrierInstructions::alloc(std::vector<int> counts, loc_t l) {
  return alloc(std::move(counts), MemberOf{}, l);
}

MbarrierArray MbarrierInstructions::alloc(std::vector<int> counts, const MemberOf& owner, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  const ir::ThreadRange group = b.group(loc);
  if (b.inside_thread_group() && group.count != b.attrs().warps * 32)
    throw Error(loc, fmt::format("mbarrier.alloc inside a thread group of {}: tessel initializes the barriers and "
                                 "then syncs the whole block, which the threads outside the group never reach; "
                                 "allocate the barriers outside the thread group",
                                 group.str()));
  if (counts.empty()) throw Error(loc, "mbarrier.alloc: no counts given; pass one count per barrier");
  ir::SharedTensorNode array{DType::U64, {int(counts.size())}, {1}, nullptr, nullptr, "bars", loc, 0};
  array.owner = owner.description;
  auto words = ir::make<ir::SharedTensorNode>(std::move(array));
  b.emit(ir::make<ir::AllocSharedNode>(loc, words));
  auto init = ir::make<ir::MbarrierInitNode>(loc, words, std::move(counts));
  b.emit(ir::make<ir::ThreadGroupNode>(loc, 0, 1, ir::seq({init}, loc)));
  // The init's fence.mbarrier_init (release at cluster scope) and a cluster barrier publish the
  // barriers to the other blocks of the cluster before they arrive or multicast (hw-semantics §7.1).
  if (b.attrs().cluster.clustered()) {
    b.emit(ir::make<ir::ClusterSyncNode>(loc, true));
  } else {
    if (!b.mbarriers_allocated_without_cluster) b.mbarriers_allocated_without_cluster = loc;
    b.emit(ir::make<ir::SyncNode>(loc));
  }
  return MbarrierArray(words);
}

Mbarrier MbarrierInstructions::alloc(int count, loc_t l) { return alloc(std::vector<int>{count}, l)[0]; }

Mbarrier MbarrierInstructions::alloc(loc_t l) {
  return alloc(Builder::current(SourceLoc::from(l)).group(SourceLoc::from(l)).count, l);
}

RemoteMbarrier Mbarrier::remote(const Dim& rank) const { return RemoteMbarrier(ref_, rank.ir()); }

void MbarrierInstructions::arrive(const RemoteMbarrier& bar, const Dim& count, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::MbarrierRemoteArriveNode>(loc, bar.ir(), bar.rank(), count.ir(), nullptr));
}

void MbarrierInstructions::arrive_and_expect_tx(const RemoteMbarrier& bar, const Dim& bytes, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::MbarrierRemoteArriveNode>(loc, bar.ir(), bar.rank(), nullptr, bytes.ir()));
}

void MbarrierInstructions::arrive(const Mbarrier& bar, const Dim& count, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::MbarrierArriveNode>(loc, bar.ir(), count.ir()));
}

void MbarrierInstructions::arrive_and_expect_tx(const Mbarrier& bar, const Dim& bytes, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::MbarrierArriveExpectTxNode>(loc, bar.ir(), bytes.ir()));
}

void MbarrierInstructions::expect_tx(const Mbarrier& bar, const Dim& bytes, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::MbarrierExpectTxNode>(loc, bar.ir(), bytes.ir()));
}

namespace {

ir::WaitSemantics ir_semantics(WaitSemantics sem) {
  switch (sem) {
    case WaitSemantics::acquire: return ir::WaitSemantics::Acquire;
    case WaitSemantics::relaxed: return ir::WaitSemantics::Relaxed;
  }
  TESSEL_CHECK(false, "unknown wait semantics {}", int(sem));
}

ir::WaitScope ir_scope(WaitScope scope) {
  switch (scope) {
    case WaitScope::cta: return ir::WaitScope::Cta;
    case WaitScope::cluster: return ir::WaitScope::Cluster;
  }
  TESSEL_CHECK(false, "unknown wait scope {}", int(scope));
}

}  // namespace

void MbarrierInstructions::wait_parity(const Mbarrier& bar, ir::Expr parity, WaitSemantics sem, WaitScope scope,
                                       const SourceLoc& loc) {
  Builder::current(loc).emit(
      ir::make<ir::MbarrierWaitNode>(loc, bar.ir(), std::move(parity), ir_semantics(sem), ir_scope(scope)));
}

Expr<bool> MbarrierInstructions::try_wait_parity(const Mbarrier& bar, ir::Expr parity, WaitSemantics sem,
                                                 WaitScope scope, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  ir::Var ready = ir::make_var(ir::Type{DType::Bool}, "ready", loc);
  b.emit(ir::make<ir::DeclareNode>(loc, ready, ir::const_int(0, DType::Bool)));
  b.emit(
      ir::make<ir::MbarrierTryWaitNode>(loc, ready, bar.ir(), std::move(parity), ir_semantics(sem), ir_scope(scope)));
  return Expr<bool>(ready);
}

}  // namespace tessel
