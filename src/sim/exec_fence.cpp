// Simulator semantics of fences: a proxy fence makes the warp's earlier generic-proxy writes, its
// stores and the cp.async copies of the groups it retired, visible to later async-proxy reads
// (TMA stores, wgmma and tcgen05 operands) that are ordered after it (happens_before.hpp).
#include "machine.hpp"

namespace tessel::sim {

void exec_FenceProxyAsync(Warp& w, const ir::FenceProxyAsyncNode&, Mask) {
  w.cta.scheduler.happens_before.fence_proxy(w.actor, w.clock[w.actor], w.clock[w.copy_actor]);
  w.tick();
}

}  // namespace tessel::sim
