// The trace instructions: regions of a kernel's timeline.
#include "tessel/lang/script.hpp"
#include "tile_tracing.hpp"

namespace tessel {

void Instructions::trace_region(const std::string& name, const std::function<void()>& body, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  if (name.empty()) throw Error(loc, "trace_region: give the region a name, as the timeline shows it");
  if (!b.group(loc).whole_warps())
    throw Error(loc, fmt::format("trace_region \"{}\": whole warps record a region, and the thread group {} splits a "
                                 "warp",
                                 name, b.group(loc).str()));
  b.emit(ir::make<ir::TraceMarkNode>(loc, name, true));
  body();
  b.emit(ir::make<ir::TraceMarkNode>(loc, name, false));
}

}  // namespace tessel
