// Layout rules of clusters: store_shared_async takes its values in any layout.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_ClusterSync(LayoutRules&, const ir::ClusterSyncNode&) {}
void layout_rule_ClusterArrive(LayoutRules&, const ir::ClusterArriveNode&) {}
void layout_rule_ClusterWait(LayoutRules&, const ir::ClusterWaitNode&) {}
void layout_rule_StoreSharedAsync(LayoutRules& r, const ir::StoreSharedAsyncNode& n) { r.index(n.src); }

}  // namespace tessel::passes
