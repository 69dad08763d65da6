// The fence instruction group: `fence.proxy_async()` orders the executing thread's generic-proxy
// accesses (ordinary loads and stores, cp.async) before its later async-proxy ones (TMA, wgmma
// operands) and the reverse, on one state space (PTX ISA, membar/fence; sm_90a).
#pragma once

#include <source_location>

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
};

}  // namespace tessel
