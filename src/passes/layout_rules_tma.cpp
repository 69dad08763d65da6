// Layout rules of TMA: it moves shared and global memory only, so it has no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_TmaStore(LayoutRules&, const ir::TmaStoreNode&) {}
void layout_rule_TmaLoad(LayoutRules&, const ir::TmaLoadNode&) {}
void layout_rule_TmaSharedToCluster(LayoutRules&, const ir::TmaSharedToClusterNode&) {}
void layout_rule_TmaBulkLoad(LayoutRules&, const ir::TmaBulkLoadNode&) {}
void layout_rule_TmaBulkStore(LayoutRules&, const ir::TmaBulkStoreNode&) {}
void layout_rule_TmaCommit(LayoutRules&, const ir::TmaCommitNode&) {}
void layout_rule_TmaWait(LayoutRules&, const ir::TmaWaitNode&) {}

}  // namespace tessel::passes
