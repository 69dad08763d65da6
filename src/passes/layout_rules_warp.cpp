// Layout rules of the warp instructions: a tile's shuffle keeps its layout; votes have no tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Shuffle(LayoutRules& r, const ir::ShuffleNode& n) {
  if (n.out) r.same(r.index(n.value.tensor), r.define(n.out, std::string(ir::shuffle_name(n.mode))));
}

void layout_rule_Vote(LayoutRules&, const ir::VoteNode&) {}

}  // namespace tessel::passes
