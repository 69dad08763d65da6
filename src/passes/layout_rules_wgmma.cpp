// Layout rules of the wgmma instructions: the accumulator of wgmma.mma is anchored to the wgmma
// accumulator fragment, and a register A operand to the wgmma A fragment, over the warpgroups of
// the group that runs it (wgmma_layouts()). Both are requirements of the same priority as pins:
// the hardware leaves no choice.
#include "layout_rules.hpp"
#include "tessel/layout/wgmma_atoms.hpp"

namespace tessel::passes {

void layout_rule_WgmmaFence(LayoutRules&, const ir::WgmmaFenceNode&) {}

void layout_rule_WgmmaMma(LayoutRules& r, const ir::WgmmaMmaNode& n) {
  const WgmmaLayouts l = wgmma_layouts(n.m(), n.n(), n.k(), n.acc->threads / 128, n.operand_type());
  r.constraints.pins.push_back(
      {l.c, r.index(n.acc), "is needed as the wgmma accumulator fragment by", "wgmma.mma", n.loc});
  if (n.a_registers)
    r.constraints.pins.push_back(
        {l.a, r.index(n.a_registers), "is needed as the wgmma A fragment by", "wgmma.mma", n.loc});
}

void layout_rule_WgmmaCommitGroup(LayoutRules&, const ir::WgmmaCommitGroupNode&) {}

void layout_rule_WgmmaWaitGroup(LayoutRules&, const ir::WgmmaWaitGroupNode&) {}

}  // namespace tessel::passes
