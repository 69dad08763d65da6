// Layout rules of the memory instructions: loads create tiles (pinned when the user gave a layout),
// stores only name them.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Sync(LayoutRules&, const ir::SyncNode&) {}
void layout_rule_AllocShared(LayoutRules&, const ir::AllocSharedNode&) {}
void layout_rule_FreeShared(LayoutRules&, const ir::FreeSharedNode&) {}
void layout_rule_LoadGlobal(LayoutRules& r, const ir::LoadGlobalNode& n) { r.define(n.out, "load_global"); }
void layout_rule_StoreGlobal(LayoutRules& r, const ir::StoreGlobalNode& n) { r.index(n.src); }
void layout_rule_LoadShared(LayoutRules& r, const ir::LoadSharedNode& n) { r.define(n.out, "load_shared"); }
void layout_rule_StoreShared(LayoutRules& r, const ir::StoreSharedNode& n) { r.index(n.src); }

}  // namespace tessel::passes
