// Layout rules of the tcgen05 instructions: a tcgen05.load creates its tile in the 32x32b layout
// of tcgen05.ld, and a tcgen05.store needs its source in the same layout (tcgen05_32x32b()). Both
// are requirements of the same priority as pins: the hardware leaves no choice.
#include "layout_rules.hpp"
#include "tessel/layout/tcgen05_atoms.hpp"

namespace tessel::passes {

void layout_rule_Tcgen05Alloc(LayoutRules&, const ir::Tcgen05AllocNode&) {}

void layout_rule_Tcgen05Dealloc(LayoutRules&, const ir::Tcgen05DeallocNode&) {}

void layout_rule_Tcgen05Mma(LayoutRules&, const ir::Tcgen05MmaNode&) {}

void layout_rule_Tcgen05Commit(LayoutRules&, const ir::Tcgen05CommitNode&) {}

void layout_rule_Tcgen05Copy(LayoutRules&, const ir::Tcgen05CopyNode&) {}

void layout_rule_Tcgen05Load(LayoutRules& r, const ir::Tcgen05LoadNode& n) {
  const int out = r.define(n.out, "tcgen05.load");
  r.constraints.pins.push_back({tcgen05_32x32b(n.src->shape[0], n.src->shape[1]), out,
                                "is needed in the tcgen05.ld 32x32b layout by", "tcgen05.load", n.loc});
}

void layout_rule_Tcgen05Store(LayoutRules& r, const ir::Tcgen05StoreNode& n) {
  r.constraints.pins.push_back({tcgen05_32x32b(n.dst->shape[0], n.dst->shape[1]), r.index(n.src),
                                "is needed in the tcgen05.st 32x32b layout by", "tcgen05.store", n.loc});
}

void layout_rule_Tcgen05Wait(LayoutRules&, const ir::Tcgen05WaitNode&) {}

}  // namespace tessel::passes
