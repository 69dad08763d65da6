// Layout rules of the warp instructions: a tile's shuffle keeps its layout; a relayout's result has
// the layout the user gave, or the one its uses need, independent of its operand's; votes have no
// tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Shuffle(LayoutRules& r, const ir::ShuffleNode& n) {
  if (n.out) r.same(r.index(n.value.tensor), r.define(n.out, std::string(ir::shuffle_name(n.mode))));
}

void layout_rule_Vote(LayoutRules&, const ir::VoteNode&) {}

void layout_rule_Relayout(LayoutRules& r, const ir::RelayoutNode& n) {
  r.index(n.a);
  r.define(n.out, "convert_layout");
}

}  // namespace tessel::passes
