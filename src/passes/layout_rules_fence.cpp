// Layout rules of fences: no register tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_FenceProxyAsync(LayoutRules&, const ir::FenceProxyAsyncNode&) {}
void layout_rule_MemoryFence(LayoutRules&, const ir::MemoryFenceNode&) {}

}  // namespace tessel::passes
