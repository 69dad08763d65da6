// Layout rules of programmatic dependent launch: no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_GridDependencyWait(LayoutRules&, const ir::GridDependencyWaitNode&) {}
void layout_rule_LaunchDependents(LayoutRules&, const ir::LaunchDependentsNode&) {}

}  // namespace tessel::passes
