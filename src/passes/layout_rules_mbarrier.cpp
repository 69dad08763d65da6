// Layout rules of mbarriers: they touch barrier words in shared memory and scalars only, so they
// have no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_MbarrierInit(LayoutRules&, const ir::MbarrierInitNode&) {}
void layout_rule_MbarrierArrive(LayoutRules&, const ir::MbarrierArriveNode&) {}
void layout_rule_MbarrierArriveExpectTx(LayoutRules&, const ir::MbarrierArriveExpectTxNode&) {}
void layout_rule_MbarrierRemoteArrive(LayoutRules&, const ir::MbarrierRemoteArriveNode&) {}
void layout_rule_MbarrierExpectTx(LayoutRules&, const ir::MbarrierExpectTxNode&) {}
void layout_rule_MbarrierWait(LayoutRules&, const ir::MbarrierWaitNode&) {}
void layout_rule_MbarrierTryWait(LayoutRules&, const ir::MbarrierTryWaitNode&) {}

}  // namespace tessel::passes
