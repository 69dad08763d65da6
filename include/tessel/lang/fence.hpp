// The fence instruction group (PTX ISA, membar/fence): `fence.proxy_async()` orders the executing
// thread's generic-proxy accesses (ordinary loads and stores, cp.async) before its later
// async-proxy ones (TMA, wgmma operands) and the reverse, on one state space (sm_90a);
// `fence.acq_rel()` and `fence.sc()` order its memory accesses for other threads, as the memory
// consistency model's release and acquire patterns say (docs/language.md, "Memory fences").
#pragma once

#include <source_location>

#include "tessel/lang/memory_model.hpp"
#include "tessel/lang/values.hpp"

namespace tessel {

// The memory a proxy fence covers: the block's shared memory (the usual case, before a TMA store
// or a wgmma reads a tile that threads wrote), the cluster's, global memory, or all of them.
enum class ProxySpace { shared_cta, shared_cluster, global, all };

class FenceInstructions {
 public:
  using loc_t = std::source_location;

  // fence.proxy.async.<space>, executed by every thread that runs it: each thread that wrote the
  // data fences its own writes, then the threads sync before the async-proxy reader is issued.
  void proxy_async(ProxySpace space = ProxySpace::shared_cta, loc_t loc = loc_t::current());

  // fence.acq_rel.<scope>: the thread's accesses before the fence are released by its next strong
  // write (an atomic of any order, relaxed included) to whoever acquires that write, and what its
  // strong reads before the fence saw released is acquired for its accesses after it. Cluster
  // scope needs sm_90a.
  void acq_rel(MemoryScope scope = MemoryScope::gpu, loc_t loc = loc_t::current());
  // fence.sc.<scope>: the same, and every fence.sc whose scope includes this thread, and whose
  // thread this one's scope includes, is ordered with it: the later acquires what the earlier
  // released (a total order of the sequentially consistent fences).
  void sc(MemoryScope scope = MemoryScope::gpu, loc_t loc = loc_t::current());
};

}  // namespace tessel
