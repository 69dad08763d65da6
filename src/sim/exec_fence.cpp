// Simulator semantics of fences: a proxy fence makes the generic-proxy writes ordered before it (the
// warp's stores, the cp.async copies of the groups it retired, and what it acquired) to the memory of
// its space visible to async-proxy reads (TMA copies, wgmma and tcgen05 operands) ordered after it; a memory fence
// acquires what the warp's relaxed reads before it saw released, and releases the warp's clock to its strong writes
// after it (happens_before.hpp). Lanes of one warp share the warp's clock, so one lane's fence is the warp's.
#include "machine.hpp"

namespace tessel::sim {

void exec_FenceProxyAsync(Warp& w, const ir::FenceProxyAsyncNode& n, Mask) {
  w.cta.scheduler.happens_before.fence_proxy(w.actor, w.clock, n.space);
  w.tick();
}

void exec_MemoryFence(Warp& w, const ir::MemoryFenceNode& n, Mask) {
  w.cta.scheduler.happens_before.memory_fence(w.actor, w.clock, n.scope, n.sem == ir::FenceSemantics::Sc, &n.loc);
  w.tick();
}

}  // namespace tessel::sim
