// What a blocked warp waits for. A warp that must wait records a condition and yields; the
// scheduler re-checks every blocked warp's condition each round and makes it ready once the
// condition holds, and the deadlock report describes the conditions of the warps left waiting.
//
// Adding a way to wait is one alternative in WaitCondition; the compiler then lists every place that must handle
// it: `holds` and `describe` below, and each AsyncAgent::complete_needed_by.
#pragma once

#include <string>
#include <variant>

#include "tessel/ir/ir.hpp"

namespace tessel::sim {

using Mask = uint32_t;
class Warp;

// A CTA barrier (bar.sync): id 0 is the block barrier of sync(), whose phase completes when every
// thread of the block arrived; named barriers (ids 1..15) complete at a sub-group's count.
struct BarrierWait {
  int barrier;
  int phase;            // the barrier's completed phases when the warp arrived: released by the next one
  int arrived_threads;  // threads of this warp that arrived
};

// cp.async.wait_group: every waiting thread has at most `max_pending` committed copy groups in
// flight (counting from its oldest incomplete group).
struct CopyGroupWait {
  Mask lanes;
  int max_pending;
};

// wgmma.wait_group: the warp has at most `max_pending` committed wgmma groups in flight.
struct WgmmaGroupWait {
  int max_pending;
};

// mbarrier.wait: the phase of parity `parity` of the mbarrier at shared byte `barrier` completed
// (mbarriers.hpp). A `timed` wait (try_wait) also ends, without the phase, when the scheduler
// finds nothing else to run.
struct MbarrierPhaseWait {
  int64_t barrier;
  int64_t parity;
  bool timed;
};

// cp.async.bulk.wait_group[.read]: every waiting thread has at most `max_pending` committed bulk
// groups of TMA stores in flight. The TMA engine reads a store's source and writes global memory
// in one step, so `read` changes only what the report says.
struct BulkGroupWait {
  Mask lanes;
  int max_pending;
  bool read;
};

// tcgen05.alloc: `columns` columns of the block's tensor memory are free (aligned to their count).
struct TensorMemoryWait {
  int columns;
};

// cluster.sync() (barrier.cluster.arrive + wait): every thread of every block of the cluster
// arrived at the cluster barrier's phase the warp arrived at.
struct ClusterBarrierWait {
  int phase;                           // the cluster barrier's completed phases when the warp arrived
  int arrived_threads;                 // threads of this warp that arrived
  const SourceLoc* arrival = nullptr;  // a cluster.wait's: its warp's cluster.arrive
};

using WaitCondition = std::variant<BarrierWait, CopyGroupWait, WgmmaGroupWait, MbarrierPhaseWait, BulkGroupWait,
                                   TensorMemoryWait, ClusterBarrierWait>;

// A blocked warp's wait: where in the user's kernel, and until what.
struct Wait {
  const SourceLoc* at;  // the waiting instruction's user line
  WaitCondition until;
};

// A visitor made of one lambda per kind of condition. Without a catch-all lambda, a new kind does
// not compile until every visit handles it.
template <class... F> struct PerCondition : F... { using F::operator()...; };

bool holds(const Warp& w, const WaitCondition& c);
// "waiting at sync() at file:line (32 of its 32 threads arrived)"
std::string describe(const Warp& w, const Wait& wait);

}  // namespace tessel::sim
