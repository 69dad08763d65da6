// Layout rules of the warp-role instructions: they hold no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_SetMaxNReg(LayoutRules&, const ir::SetMaxNRegNode&) {}
void layout_rule_FastDivmod(LayoutRules&, const ir::FastDivmodNode&) {}

}  // namespace tessel::passes
