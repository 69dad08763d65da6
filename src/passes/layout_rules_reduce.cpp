// Layout rules of the reductions (the result is the operand's layout reduced along the dimension)
// and of the scans (the result has the operand's layout).
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Reduce(LayoutRules& r, const ir::ReduceNode& n) {
  const std::string op(ir::op_name(n.op));
  r.constraints.reductions.push_back({r.index(n.a), r.define(n.out, op), n.dim, op, n.loc});
}

void layout_rule_Scan(LayoutRules& r, const ir::ScanNode& n) {
  r.same(r.index(n.a), r.define(n.out, fmt::format("cum{}", ir::op_name(n.op))));
}

}  // namespace tessel::passes
