// Layout rules of clusters: no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_ClusterSync(LayoutRules&, const ir::ClusterSyncNode&) {}

}  // namespace tessel::passes
