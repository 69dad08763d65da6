// Simulator semantics of clusters: the cluster barrier of cluster.sync() (or of cluster.arrive()
// and cluster.wait()), which every thread of every block of the cluster reaches once per phase, the blocks that
// multicasts and pair operations reach, and st.async into their shared memory.
#include "machine.hpp"
#include "memory_access.hpp"

namespace tessel::sim {

namespace {

// barrier.cluster.arrive and wait are .aligned: every thread of a warp that has not returned
// executes them together (threads that have returned count as exited).
void require_whole_warp_at_cluster_barrier(const Warp& w, Mask mask, std::string_view call, const SourceLoc& loc) {
  if ((mask | w.returned) != 0xffffffffu)
    throw Error(loc, fmt::format("{} is executed by whole warps, but only {} lanes of warp {} of block {} reach it (is "
                                 "it inside an if_ that part of the warp takes?)",
                                 call, popcount(mask), w.id, w.cta.block_name()));
}

// Each thread arrives once a phase: an arrival waits for its phase before the next.
void require_no_arrival_in_flight(const Warp& w, std::string_view call, const SourceLoc& loc) {
  if (w.cluster_arrival)
    throw Error(loc, fmt::format("{} by warp {} of block {}, which arrived at the cluster barrier at {} and has not "
                                 "waited since: a thread arrives once a phase, so call cluster.wait() in between",
                                 call, w.id, w.cta.block_name(), w.cluster_arrival->at->str()));
}

}  // namespace

void exec_ClusterSync(Warp& w, const ir::ClusterSyncNode& n, Mask mask) {
  const std::string_view call = n.publishes_barriers
                                    ? "mbarrier.alloc (whose cluster.sync() publishes the barriers to the cluster)"
                                    : "cluster.sync()";
  require_whole_warp_at_cluster_barrier(w, mask, call, n.loc);
  require_no_arrival_in_flight(w, call, n.loc);
  w.cta.arrive_at_cluster_barrier(w, mask, n.loc);
  w.cta.wait_at_cluster_barrier(w, n.loc);
}

void exec_ClusterArrive(Warp& w, const ir::ClusterArriveNode& n, Mask mask) {
  require_whole_warp_at_cluster_barrier(w, mask, "cluster.arrive()", n.loc);
  require_no_arrival_in_flight(w, "cluster.arrive()", n.loc);
  w.cta.arrive_at_cluster_barrier(w, mask, n.loc, n.relaxed);
}

void exec_ClusterWait(Warp& w, const ir::ClusterWaitNode& n, Mask mask) {
  require_whole_warp_at_cluster_barrier(w, mask, "cluster.wait()", n.loc);
  if (!w.cluster_arrival)
    throw Error(n.loc,
                fmt::format("cluster.wait() by warp {} of block {}, which has not arrived at the cluster barrier "
                            "since its last wait: call cluster.arrive() before it",
                            w.id, w.cta.block_name()));
  w.cta.wait_at_cluster_barrier(w, n.loc, true);
}

std::vector<Cta*> multicast_blocks(Warp& w, int64_t mask, const ir::MbarrierRef& barrier, int lane,
                                   const SourceLoc& loc, std::string_view operation, std::string_view receives) {
  const int blocks = w.cta.kernel.cluster_blocks();
  if (mask <= 0 || mask >= (int64_t(1) << blocks))
    throw Error(loc,
                fmt::format("{}: the multicast mask {:#x} {} the cluster of {} blocks (thread {} of block {}); set "
                            "bit r for each block rank r in 0..{} that {}",
                            operation, mask, mask == 0 ? "names no block of" : "names blocks outside", blocks,
                            w.thread(lane), w.cta.block_name(), blocks - 1, receives));
  const int64_t barrier_byte = mbarrier_byte(w, barrier, lane, loc, operation);
  const int index = int((barrier_byte - w.cta.shared_offsets.at(barrier.array->allocation())) / 8);
  const std::string issuer = w.cta.block_name();
  std::vector<Cta*> targets;
  for (int rank = 0; rank < blocks; ++rank) {
    if (!(mask >> rank & 1)) continue;
    Cta& target = w.cta.scheduler.cluster_peer(w.cta, rank);
    if (target.ended())
      throw Error(loc, fmt::format("{}: multicast to block {} (cluster rank {}), which has ended (thread {} of block "
                                   "{}); end every block of the cluster with cluster.sync() so that none ends while "
                                   "others still send to it",
                                   operation, target.block_name(), rank, w.thread(lane), issuer));
    target.mbarriers.at(barrier_byte, *barrier.array->allocation(), index,
                        fmt::format("{} multicast to block {}", operation, target.block_name()),
                        {&loc, w.thread(lane), issuer});
    targets.push_back(&target);
  }
  return targets;
}

Cta& cluster_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation,
                   std::string_view reaches, std::string_view still) {
  const int blocks = w.cta.kernel.cluster_blocks();
  if (rank < 0 || rank >= blocks)
    throw Error(loc, fmt::format("{}: block rank {} is outside the cluster of {} blocks (thread {} of block {}); ranks "
                                 "run from 0 to {}",
                                 operation, rank, blocks, w.thread(lane), w.cta.block_name(), blocks - 1));
  Cta& target = w.cta.scheduler.cluster_peer(w.cta, int(rank));
  if (target.ended())
    throw Error(loc,
                fmt::format("{}: thread {} of block {} {} block {} (cluster rank {}), which has ended; end every "
                            "block of the cluster with cluster.sync() so that none ends while others still {}",
                            operation, w.thread(lane), w.cta.block_name(), reaches, target.block_name(), rank, still));
  return target;
}

Cta& remote_shared_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation,
                         bool write) {
  const std::string_view reaches = write ? "writes the shared memory of" : "reads the shared memory of";
  Cta& owner = cluster_block(w, rank, lane, loc, operation, reaches, "use its shared memory");
  if (&owner == &w.cta) return owner;
  // The warp knows the owner runs once it passed a cluster barrier (whose phase every block's
  // threads complete, a relaxed arrival too), or through something the owner released: its warps'
  // first epochs are their start.
  if (w.passed_cluster_barrier) return owner;
  for (const auto& warp : owner.warps)
    if (w.clock[warp->actor] > 0) return owner;
  throw Error(
      loc, fmt::format("{}: thread {} of block {} {} block {} (cluster rank {}) before anything ordered the "
                       "access after that block started; another block's shared memory may be used once that "
                       "block runs, which a cluster.sync() before the first such access guarantees",
                       operation, w.thread(lane), w.cta.block_name(), reaches, owner.block_name(), owner.cluster_rank));
}

// Each run of n.vector slots of a thread holding the first replica of its elements is one st.async,
// captured now and landing in the receiver when it completes (AsyncStoreUnit).
void exec_StoreSharedAsync(Warp& w, const ir::StoreSharedAsyncNode& n, Mask mask) {
  constexpr std::string_view operation = "store_shared_async";
  const auto offsets = eval_all(w, n.offsets, mask);
  const Lanes view = n.dst->offset ? w.eval(n.dst->offset, mask) : Lanes{};
  const SharedOwners owners(w, n.rank, mask, n.loc, operation, true);
  const auto& src = w.tile(n.src.get());
  const int local = n.src->layout.local_size(), bytes = dtype_bytes(n.dst->dtype);
  const ir::SharedTensorNode& barriers = *n.barrier.array->allocation();
  uint8_t run[16];
  int64_t start = 0;
  for_each_element(w, n.src.get(), mask, [&](int lane, int t, int l, const int* c) {
    if (!first_replica(n.src->layout, t)) return;
    const SharedAddress a = shared_address(w, n.dst, view, lane, offsets, c, n.loc);
    const int slot = l % n.vector;
    if (slot == 0) start = a.byte;
    TESSEL_CHECK(a.byte == start + int64_t(slot) * bytes && start % (int64_t(n.vector) * bytes) == 0,
                 "store_shared_async at {}: a run of {} elements that is not contiguous and aligned", n.loc.str(),
                 n.vector);
    store_value(n.dst->dtype, run + slot * bytes, src[size_t(lane) * local + l]);
    if (slot + 1 < n.vector) return;
    Cta& target = owners(lane);
    const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, operation);
    target.mbarriers.at(barrier, barriers, int((barrier - w.cta.shared_offsets.at(&barriers)) / 8),
                        fmt::format("{} to block {}", operation, target.block_name()),
                        {&n.loc, w.thread(lane), w.cta.block_name()});
    w.cta.async_stores.issue(w.thread(lane), target, start, run, n.vector * bytes, barrier, w.clock, n.loc);
  });
  w.tick();
  w.cta.scheduler.issued(w.cta.async_stores);
}

Cta& pair_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation) {
  const int blocks = w.cta.kernel.cluster_blocks();
  if (rank < 0 || rank >= blocks || rank / 2 != w.cta.cluster_rank / 2)
    throw Error(loc, fmt::format("{}: block rank {} is not in the pair of block {} (cluster rank {}), which is ranks "
                                 "{} and {} (thread {}); a pair is the two blocks whose ranks differ in bit 0",
                                 operation, rank, w.cta.block_name(), w.cta.cluster_rank, w.cta.cluster_rank & ~1,
                                 w.cta.cluster_rank | 1, w.thread(lane)));
  Cta& target = w.cta.scheduler.cluster_peer(w.cta, int(rank));
  if (target.ended())
    throw Error(loc, fmt::format("{}: thread {} of block {} reaches block {} (cluster rank {}) of its pair, which has "
                                 "ended; end every block of the cluster with cluster.sync() so that none ends while "
                                 "its pair still uses it",
                                 operation, w.thread(lane), w.cta.block_name(), target.block_name(), rank));
  return target;
}

}  // namespace tessel::sim
