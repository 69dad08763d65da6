// Reads the layout rules of a kernel's instructions off the traced IR, for infer_layouts.
#include "layout_constraints.hpp"

#include "layout_rules.hpp"
#include "tessel/ir/mutator.hpp"

namespace tessel::passes {

std::string Requirement::describe() const {
  return instruction.empty() ? how : fmt::format("{} {} at {}", how, instruction, loc.str());
}

int LayoutRules::index(const ir::RegisterTensor& t) {
  auto [it, fresh] = index_.try_emplace(t.get(), int(constraints.tiles.size()));
  if (fresh) constraints.tiles.push_back({t, "an instruction", t->loc});
  return it->second;
}

int LayoutRules::define(const ir::RegisterTensor& t, std::string created_by) {
  const int i = index(t);
  constraints.tiles[i].created_by = created_by;
  if (t->has_layout())
    constraints.pins.push_back({t->layout, i, "is pinned by the layout argument of", created_by, t->loc});
  return i;
}

void LayoutRules::operand(const ir::Operand& o, int out, std::string_view op, const SourceLoc& loc) {
  if (!o.tensor) return;
  const int i = index(o.tensor);
  const auto &have = o.tensor->shape(), &want = constraints.tiles[out].tile->shape();
  std::vector<int> dims;
  for (size_t d = 0; d < want.size(); ++d)
    if (have[d] != want[d]) dims.push_back(int(d));
  if (dims.empty())
    same(i, out);
  else
    constraints.broadcasts.push_back({i, out, dims, std::string(op), loc});
}

LayoutConstraints collect_layout_constraints(const ir::KernelNode& k) {
  LayoutRules rules;
  ir::walk(k.body, [&](const ir::StmtNode& s) {
    switch (s.kind) {
// clang-format off
#define TESSEL_EXPR(Name) case ir::NodeKind::Name:
#define TESSEL_TENSOR(Name) case ir::NodeKind::Name:
#define TESSEL_STMT(Name) case ir::NodeKind::Name:
#include "tessel/ir/nodes.def"
      return;  // no register tiles of their own
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case ir::NodeKind::Name: return layout_rule_##Name(rules, static_cast<const ir::Name##Node&>(s));
#include "tessel/ir/nodes.def"
      // clang-format on
    }
  });
  return std::move(rules.constraints);
}

}  // namespace tessel::passes
