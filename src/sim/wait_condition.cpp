// When each kind of wait holds, and how the deadlock report describes it.
#include "machine.hpp"

namespace tessel::sim {

bool holds(const Warp& w, const WaitCondition& c) {
  return std::visit(
      PerCondition{
          [&](const BarrierWait& b) { return w.cta.barriers[size_t(b.barrier)].phases != b.phase; },
          [&](const CopyGroupWait& g) {
            for (int lane = 0; lane < 32; ++lane)
              if ((g.lanes >> lane & 1) && w.cta.async_copies.pending_groups(w.thread(lane)) > g.max_pending)
                return false;
            return true;
          },
          [&](const WgmmaGroupWait& g) { return w.cta.wgmma.pending_groups(w) <= g.max_pending; },
          [&](const MbarrierPhaseWait& m) { return w.cta.mbarriers.phase_completed(m.barrier, m.parity); },
          [&](const BulkGroupWait& g) {
            for (int lane = 0; lane < 32; ++lane)
              if ((g.lanes >> lane & 1) && w.cta.tma.pending_groups(w.thread(lane)) > g.max_pending) return false;
            return true;
          },
          [&](const TensorMemoryWait& t) { return w.cta.tensor_memory.can_allocate(t.columns); },
          [&](const ClusterBarrierWait& b) {
            return w.cta.scheduler.cluster_peer(w.cta, 0).cluster_barrier.phases != b.phase;
          },
      },
      c);
}

std::string describe(const Warp& w, const Wait& wait) {
  const std::string at = wait.at->str();
  return std::visit(
      PerCondition{
          [&](const BarrierWait& b) {
            const std::string barrier = b.barrier == Cta::kBlockBarrier
                                            ? std::string("sync()")
                                            : fmt::format("sync() of barrier {}", b.barrier);
            return fmt::format("waiting at {} at {} ({} of its 32 threads arrived)", barrier, at, b.arrived_threads);
          },
          [&](const CopyGroupWait& g) {
            int pending = 0;
            for (int lane = 0; lane < 32; ++lane)
              if (g.lanes >> lane & 1) pending = std::max(pending, w.cta.async_copies.pending_groups(w.thread(lane)));
            return fmt::format(
                "waiting at {} until at most {} copy groups of each of its threads are in flight ({} "
                "are)",
                at, g.max_pending, pending);
          },
          [&](const WgmmaGroupWait& g) {
            return fmt::format("waiting at {} until at most {} wgmma groups of its warpgroup are running ({} are)", at,
                               g.max_pending, w.cta.wgmma.pending_groups(w));
          },
          [&](const MbarrierPhaseWait& m) {
            const MbarrierState& b = w.cta.mbarriers.all().at(m.barrier);
            return fmt::format("waiting at {}{} for {} to complete its phase of parity {}", at,
                               m.timed ? " (try_wait)" : "", barrier_name(*b.array, b.index), m.parity);
          },
          [&](const BulkGroupWait& g) {
            int pending = 0;
            for (int lane = 0; lane < 32; ++lane)
              if (g.lanes >> lane & 1) pending = std::max(pending, w.cta.tma.pending_groups(w.thread(lane)));
            return fmt::format(
                "waiting at {} until at most {} TMA bulk groups of its issuing thread are in flight{} "
                "({} are)",
                at, g.max_pending, g.read ? " (reads)" : "", pending);
          },
          [&](const TensorMemoryWait& t) {
            const int free = w.cta.tensor_memory.free_columns();
            return fmt::format(
                "waiting at {} (tcgen05.alloc) for {} free columns of tensor memory ({} of {} are "
                "free{})",
                at, t.columns, free, kTmemColumns,
                free >= t.columns ? fmt::format(", but not {} in one aligned run", t.columns) : "");
          },
          [&](const ClusterBarrierWait& b) {
            if (b.arrival)
              return fmt::format("waiting at cluster.wait() at {} ({} of its 32 threads arrived at {})", at,
                                 b.arrived_threads, b.arrival->str());
            return fmt::format("waiting at cluster.sync() at {} ({} of its 32 threads arrived)", at, b.arrived_threads);
          },
      },
      wait.until);
}

}  // namespace tessel::sim
