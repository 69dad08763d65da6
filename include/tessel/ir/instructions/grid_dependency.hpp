// The IR nodes of the grid dependency instruction family (nodes.def): programmatic dependent
// launch, where a kernel may start before the kernel launched ahead of it on its stream has ended.
#pragma once

#include <optional>

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// griddepcontrol.wait: the executing thread waits until the grids its launch depends on have
// completed and their memory operations are visible to it. A kernel that has one is launched as a
// programmatic dependent of the kernel before it, so what it does before the wait may overlap that
// kernel.
struct GridDependencyWaitNode : StmtNode {
  explicit GridDependencyWaitNode(SourceLoc l) : StmtNode(NodeKind::GridDependencyWait, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};

// griddepcontrol.launch_dependents: once every block of the grid has executed it or ended, the
// kernel launched after this one on its stream may start. It orders no memory.
struct LaunchDependentsNode : StmtNode {
  explicit LaunchDependentsNode(SourceLoc l) : StmtNode(NodeKind::LaunchDependents, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};

// Whether the kernel waits for the grids before it: then it is launched as their programmatic
// dependent.
bool waits_for_prior_grids(const KernelNode& k);
// The line of the kernel's first grid_dependency.wait() in its body's order; none if it has none.
std::optional<SourceLoc> first_grid_dependency_wait(const KernelNode& k);

}  // namespace tessel::ir
