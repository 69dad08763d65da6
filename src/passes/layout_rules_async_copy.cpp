// Layout rules of cp.async: it moves shared and global memory only, so it has no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_CopyAsync(LayoutRules&, const ir::CopyAsyncNode&) {}
void layout_rule_CopyAsyncCommit(LayoutRules&, const ir::CopyAsyncCommitNode&) {}
void layout_rule_CopyAsyncWait(LayoutRules&, const ir::CopyAsyncWaitNode&) {}

}  // namespace tessel::passes
