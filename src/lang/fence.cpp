// The fence instruction group.
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

}  // namespace tessel
