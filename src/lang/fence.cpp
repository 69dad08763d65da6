// The fence instruction group.
#include "memory_model.hpp"
#include "tessel/lang/script.hpp"

namespace tessel {

void FenceInstructions::proxy_async(ProxySpace space, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  const ir::ProxyFenceSpace s = [&] {
    switch (space) {
      case ProxySpace::shared_cta: return ir::ProxyFenceSpace::SharedCta;
      case ProxySpace::shared_cluster: return ir::ProxyFenceSpace::SharedCluster;
      case ProxySpace::global: return ir::ProxyFenceSpace::Global;
      case ProxySpace::all: return ir::ProxyFenceSpace::All;
    }
    TESSEL_CHECK(false, "unknown proxy space {}", int(space));
  }();
  Builder::current(loc).emit(ir::make<ir::FenceProxyAsyncNode>(loc, s));
}

void FenceInstructions::acq_rel(MemoryScope scope, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(
      ir::make<ir::MemoryFenceNode>(loc, ir::FenceSemantics::AcqRel, detail::ir_memory_scope(scope)));
}

void FenceInstructions::sc(MemoryScope scope, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(
      ir::make<ir::MemoryFenceNode>(loc, ir::FenceSemantics::Sc, detail::ir_memory_scope(scope)));
}

}  // namespace tessel
