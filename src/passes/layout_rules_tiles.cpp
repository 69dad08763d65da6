// Layout rules of the register-tile instructions: elementwise results share their full-shape
// operands' layout and broadcast the others; casts, copies and bitcasts of one width keep the layout; an index
// tile takes whatever layout its uses need; a slice keeps the registers that hold the sub-tile.
#include <algorithm>
#include <numeric>

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
  r.operand(n.c, out, "fma", n.loc);
  r.operand(n.a, out, "fma", n.loc);
  r.operand(n.b, out, "fma", n.loc);
}

void layout_rule_CastTensor(LayoutRules& r, const ir::CastTensorNode& n) {
  r.same(r.index(n.a), r.define(n.out, fmt::format("to<{}>()", dtype_name(n.out->dtype))));
}

namespace {

// `ratio` consecutive registers along the last dimension, within a thread.
Layout last_dim_run(int rank, int ratio) {
  std::vector<int> run(size_t(rank), 1);
  run.back() = ratio;
  return Layout::local(run);
}

}  // namespace

// A bitcast between widths regroups runs along the last dimension within each thread: a run of
// run_a consecutive registers of the operand holds the bits of run_out consecutive registers of
// the result (1 and 8 between u32 and u4; 3 and 32 between u32 and u3).
void layout_rule_BitcastTensor(LayoutRules& r, const ir::BitcastTensorNode& n) {
  const int a = r.index(n.a), out = r.define(n.out, "bitcast<T>()");
  const int from = dtype_bits(n.a->dtype), to = dtype_bits(n.out->dtype);
  if (from == to) return r.same(a, out);
  const int common = std::gcd(from, to), run_a = to / common, run_out = from / common;
  const auto regroup = [](int from_run, int to_run) {
    return [from_run, to_run](const Layout& l) {
      return l.divide(last_dim_run(l.rank(), from_run)) * last_dim_run(l.rank(), to_run);
    };
  };
  const std::string refusal = fmt::format(
      "does not hold runs of {} consecutive elements of its last dimension in consecutive registers of each "
      "thread, which {} bits of the bitcast take; give it a layout that does",
      from > to ? run_out : run_a, std::lcm(from, to));
  r.constraints.derived.push_back(
      {a, out, regroup(run_a, run_out), regroup(run_out, run_a),
       from > to ? "is the bitcast to narrower elements by" : "is the bitcast to wider elements by", "bitcast<T>()",
       refusal, n.loc});
}

// A regrouping renames registers: the result's layout is the operands' one, reshaped, permuted, or
// composed with the two operands as the outer (concat) or inner (interleave) digit of a dimension.
void layout_rule_RegroupRegisters(LayoutRules& r, const ir::RegroupRegistersNode& n) {
  const std::string call(ir::regroup_name(n.regroup));
  const int a = r.index(n.a), out = r.define(n.out, call);
  if (n.b) r.same(a, r.index(n.b));
  const std::vector<int> in_shape = n.a->shape(), out_shape = n.out->shape(), dims = n.dims;
  std::vector<int> pair(in_shape.size(), 1);
  if (!dims.empty()) pair[size_t(dims[0])] = 2;
  std::function<Layout(const Layout&)> forward, backward;
  switch (n.regroup) {
    case ir::Regroup::Reshape:
      forward = [out_shape](const Layout& l) { return l.reshape(out_shape); };
      backward = [in_shape](const Layout& l) { return l.reshape(in_shape); };
      break;
    case ir::Regroup::Permute: {
      std::vector<int> inverse(dims.size());
      for (size_t i = 0; i < dims.size(); ++i) inverse[size_t(dims[i])] = int(i);
      forward = [dims](const Layout& l) { return l.permute(dims); };
      backward = [inverse](const Layout& l) { return l.permute(inverse); };
      break;
    }
    case ir::Regroup::Concat: forward = [pair](const Layout& l) { return Layout::local(pair) * l; }; break;
    case ir::Regroup::Interleave:
      forward = [pair](const Layout& l) { return l * Layout::local(pair); };
      backward = [pair](const Layout& l) { return l.divide(Layout::local(pair)); };
      break;
  }
  const bool pairs = n.regroup == ir::Regroup::Concat || n.regroup == ir::Regroup::Interleave;
  r.constraints.derived.push_back({a, out, forward, backward, "is the result of", call,
                                   "cannot be regrouped so without moving elements between threads; give it a "
                                   "layout whose threads hold the elements the result keeps together, or move them "
                                   "there with convert_layout(x, layout)",
                                   n.loc, pairs});
}

void layout_rule_Iota(LayoutRules& r, const ir::IotaNode& n) { r.define(n.out, "arange"); }

void layout_rule_TileElement(LayoutRules& r, const ir::TileElementNode& n) { r.index(n.a); }

void layout_rule_CopyRegister(LayoutRules& r, const ir::CopyRegisterNode& n) { r.same(r.index(n.dst), r.index(n.src)); }

void layout_rule_SliceRegister(LayoutRules& r, const ir::SliceRegisterNode& n) {
  r.constraints.slices.push_back({r.index(n.src), r.define(n.out, "slice"), n.offsets, n.loc});
}

void layout_rule_AnnotateLayout(LayoutRules& r, const ir::AnnotateLayoutNode& n) {
  r.constraints.pins.push_back({n.layout, r.index(n.tile), "is pinned by", "annotate_layout", n.loc});
  r.constraints.has_annotations = true;
}

void layout_rule_PrintTensor(LayoutRules& r, const ir::PrintTensorNode& n) { r.index(n.tensor); }

void layout_rule_PrintShared(LayoutRules&, const ir::PrintSharedNode&) {}

void layout_rule_PrintValues(LayoutRules&, const ir::PrintValuesNode&) {}

}  // namespace tessel::passes
