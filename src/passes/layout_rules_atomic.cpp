// Layout rules of the atomics: a tile atomic's old values come back in the layout of its values,
// and a compare-and-exchange's expected values and a scatter's positions share it.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_AtomicScalar(LayoutRules&, const ir::AtomicScalarNode&) {}

void layout_rule_AtomicTensor(LayoutRules& r, const ir::AtomicTensorNode& n) {
  const int values = r.index(n.value);
  if (n.compare) r.same(values, r.index(n.compare));
  if (n.index) r.same(values, r.index(n.index));
  if (n.out)
    r.same(values,
           r.define(n.out, fmt::format("atomic.{}fetch_{}", n.index ? "scatter_" : "", ir::atomic_op_name(n.op))));
}

}  // namespace tessel::passes
