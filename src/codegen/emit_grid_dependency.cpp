// Programmatic dependent launch: griddepcontrol.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_GridDependencyWait(Emitter& e, const ir::GridDependencyWaitNode& n) {
  e.line(ptx_asm(Ptx::GridDependencyWait, e.arch, {}) + e.comment(n.loc, "grid_dependency.wait"));
}

void emit_LaunchDependents(Emitter& e, const ir::LaunchDependentsNode& n) {
  e.line(ptx_asm(Ptx::LaunchDependents, e.arch, {}) + e.comment(n.loc, "grid_dependency.launch_dependents"));
}

}  // namespace tessel::codegen
