// Layout rules of the memory instructions: loads create tiles (pinned when the user gave a layout),
// stores only name them; a gather's or scatter's indices take the moved tile's layout, reduced along
// the dimensions they are broadcast over.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Sync(LayoutRules&, const ir::SyncNode&) {}
void layout_rule_AllocShared(LayoutRules&, const ir::AllocSharedNode&) {}
void layout_rule_FreeShared(LayoutRules&, const ir::FreeSharedNode&) {}
void layout_rule_LoadGlobal(LayoutRules& r, const ir::LoadGlobalNode& n) {
  const std::string_view call = n.index ? "load_global_gather" : "load_global";
  const int out = r.define(n.out, std::string(call));
  if (n.index) r.operand({n.index}, out, call, n.loc);
}

void layout_rule_StoreGlobal(LayoutRules& r, const ir::StoreGlobalNode& n) {
  const int src = r.index(n.src);
  if (n.index) r.operand({n.index}, src, "store_global_scatter", n.loc);
}
void layout_rule_LoadShared(LayoutRules& r, const ir::LoadSharedNode& n) {
  const std::string_view call = n.index ? "load_shared_gather" : "load_shared";
  const int out = r.define(n.out, std::string(call));
  if (n.index) r.operand({n.index}, out, call, n.loc);
}

void layout_rule_StoreShared(LayoutRules& r, const ir::StoreSharedNode& n) {
  const int src = r.index(n.src);
  if (n.index) r.operand({n.index}, src, "store_shared_scatter", n.loc);
}

}  // namespace tessel::passes
