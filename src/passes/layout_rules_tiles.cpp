// Layout rules of the register-tile instructions: elementwise results share their full-shape
// operands' layout and broadcast the others; casts, copies and bitcasts of one width keep the layout; an index
// tile takes whatever layout its uses need; a slice keeps the registers that hold the sub-tile.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_AllocRegister(LayoutRules& r, const ir::AllocRegisterNode& n) { r.define(n.out, "register_tensor"); }

void layout_rule_ElementwiseBinary(LayoutRules& r, const ir::ElementwiseBinaryNode& n) {
  const std::string op(ir::op_name(n.op));
  const int out = r.define(n.out, op);
  r.operand(n.a, out, op, n.loc);
  r.operand(n.b, out, op, n.loc);
}

void layout_rule_ElementwiseUnary(LayoutRules& r, const ir::ElementwiseUnaryNode& n) {
  r.same(r.index(n.a), r.define(n.out, std::string(ir::op_name(n.op))));
}

void layout_rule_Where(LayoutRules& r, const ir::WhereNode& n) {
  const int out = r.define(n.out, "where");
  for (const ir::Operand* o : {&n.cond, &n.a, &n.b}) r.operand(*o, out, "where", n.loc);
}

void layout_rule_Fma(LayoutRules& r, const ir::FmaNode& n) {
  const int out = r.define(n.out, "fma");
  r.same(r.index(n.c), out);
  r.operand(n.a, out, "fma", n.loc);
  r.operand(n.b, out, "fma", n.loc);
}

void layout_rule_CastTensor(LayoutRules& r, const ir::CastTensorNode& n) {
  r.same(r.index(n.a), r.define(n.out, "to<T>()"));
}

// A bitcast between widths regroups each thread's registers along the last dimension.
void layout_rule_BitcastTensor(LayoutRules& r, const ir::BitcastTensorNode& n) {
  const int a = r.index(n.a), out = r.define(n.out, "bitcast<T>()");
  const int from = dtype_bits(n.a->dtype), to = dtype_bits(n.out->dtype);
  if (from == to) return r.same(a, out);
  if (from > to) return r.constraints.width_changes.push_back({a, out, from / to, n.loc});
  r.constraints.width_changes.push_back({out, a, to / from, n.loc});
}

void layout_rule_Iota(LayoutRules& r, const ir::IotaNode& n) { r.define(n.out, "arange"); }

void layout_rule_CopyRegister(LayoutRules& r, const ir::CopyRegisterNode& n) { r.same(r.index(n.dst), r.index(n.src)); }

void layout_rule_SliceRegister(LayoutRules& r, const ir::SliceRegisterNode& n) {
  r.constraints.slices.push_back({r.index(n.src), r.define(n.out, "slice"), n.offsets, n.loc});
}

void layout_rule_AnnotateLayout(LayoutRules& r, const ir::AnnotateLayoutNode& n) {
  r.constraints.pins.push_back({n.layout, r.index(n.tile), "is pinned by", "annotate_layout", n.loc});
  r.constraints.has_annotations = true;
}

void layout_rule_PrintTensor(LayoutRules& r, const ir::PrintTensorNode& n) { r.index(n.tensor); }

}  // namespace tessel::passes
