// The layout rule of each instruction (layout_rules_<family>.cpp), declared from nodes.def so that
// an instruction without one fails to link. A rule records, for infer_layouts, which register
// tiles the instruction creates and how its tiles' layouts relate (layout_constraints.hpp).
#pragma once

#include <map>

#include "layout_constraints.hpp"

namespace tessel::passes {

class LayoutRules {
 public:
  LayoutConstraints constraints;

  // The index of `t` in constraints.tiles (added on first sight).
  int index(const ir::RegisterTensor& t);
  // `t` is created by the instruction the user wrote as `created_by`; a layout it carries is a pin.
  int define(const ir::RegisterTensor& t, std::string created_by);
  // An operand of an elementwise result `out`: the same layout when it has the full shape, a
  // broadcast otherwise.
  void operand(const ir::Operand& o, int out, std::string_view op, const SourceLoc& loc);
  // Two tiles that must share one layout.
  void same(int a, int b) { constraints.same_layout.emplace_back(a, b); }

 private:
  std::map<const ir::RegisterTensorNode*, int> index_;
};

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) void layout_rule_##Name(LayoutRules& r, const ir::Name##Node& n);
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::passes
