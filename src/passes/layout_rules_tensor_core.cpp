// Layout rules of the tensor-core instructions: the operands and the result of dot are anchored
// to mma fragments once infer_layouts picks the warp split.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_Dot(LayoutRules& r, const ir::DotNode& n) {
  const int a = r.index(n.a), b = r.index(n.b), c = r.index(n.c), out = r.define(n.out, "dot");
  r.constraints.dots.push_back(
      {&n, a, b, c, out, n.c->shape()[0], n.c->shape()[1], n.a->shape()[1], n.out->threads / 32, n.a->dtype, n.loc});
}

}  // namespace tessel::passes
