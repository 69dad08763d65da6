// When each kind of wait holds, and how the deadlock report describes it.
#include "machine.hpp"
#include "tessel/layout/tcgen05_atoms.hpp"

namespace tessel::sim {

bool holds(const Warp& w, const WaitCondition& c) {
  return std::visit(PerCondition{
                        [&](const BarrierWait& b) { return w.cta.barriers[size_t(b.barrier)].phases != b.phase; },
                        [&](const CopyGroupWait& g) {
                          for (int lane = 0; lane < 32; ++lane)
                            if ((g.lanes >> lane & 1) &&
                                w.cta.async_copies.pending_groups(w.thread(lane)) > g.max_pending)
                              return false;
                          return true;
                        },
                        [&](const WgmmaGroupWait& g) { return w.cta.wgmma.pending_groups(w) <= g.max_pending; },
                        [&](const MbarrierPhaseWait& m) { return w.cta.mbarriers.phase_completed(m.barrier, m.parity); },
                        [&](const BulkGroupWait& g) {
                          for (int lane = 0; lane < 32; ++lane)
                            if ((g.lanes >> lane & 1) && w.cta.tma.pending_groups(w.thread(lane)) > g.max_pending)
                              return false;
                          return true;
                        },
                        [&](const TensorMemoryWait& t) {
            const int free = w.cta.tensor_memory.free_columns();
            return fmt::format("waiting at {} (tcgen05.alloc) for {} free columns of tensor memory ({} of {} are "
                               "free{})",
                               at, t.columns, free, kTmemColumns,
                               free >= t.columns ? fmt::format(", but not {} in one aligned run", t.columns) : "");
          },
      },
      wait.until);
}

}  // namespace tessel::sim
