// Layout rules of cluster launch control: no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_ClcTryCancel(LayoutRules&, const ir::ClcTryCancelNode&) {}
void layout_rule_ClcQuery(LayoutRules&, const ir::ClcQueryNode&) {}

}  // namespace tessel::passes
