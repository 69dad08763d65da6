// The grid dependency instruction group.
#include "tessel/lang/script.hpp"

namespace tessel {

void GridDependencyInstructions::wait(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::GridDependencyWaitNode>(loc));
}

void GridDependencyInstructions::launch_dependents(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::LaunchDependentsNode>(loc));
}

}  // namespace tessel
