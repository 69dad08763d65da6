// The grid, the sizes of global scratch buffers and the kernel's requirements (Script::require)
// are computed on the host from the run-time parameters and the device's multiprocessor count, so
// they may not refer to variables of the body. Variables that are declared once and never written
// again are replaced by their definitions (ir::single_definitions).
#include <map>
#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// Whether `e` (over parameters and inlined definitions) is computable at launch; the error says
// what `what` uses instead.
void check_known_at_launch(const ir::KernelNode& k, const ir::Expr& e, const std::set<const void*>& params,
                           const SourceLoc& loc, const std::string& what, const std::string& when) {
  ir::walk(
      ir::make<ir::DeclareNode>(SourceLoc{}, ir::make_var(ir::Type{}, "launch_value"), e), [](const ir::StmtNode&) {},
      [&](const ir::ExprNode& x) {
        if (x.kind == ir::NodeKind::Var && !params.count(&x))
          throw Error(loc, fmt::format("{} of kernel {} uses the variable {} (declared at {}), which is not "
                                       "computable from the kernel's parameters; {}",
                                       what, k.name, static_cast<const ir::VarNode&>(x).name, x.loc.str(), when));
        if (x.kind != ir::NodeKind::Builtin) return;
        const ir::BuiltinKind which = static_cast<const ir::BuiltinNode&>(x).which;
        if (which != ir::BuiltinKind::Multiprocessors)
          throw Error(loc, fmt::format("{} of kernel {} uses {}, which is only known inside the kernel", what, k.name,
                                       ir::builtin_name(which)));
      });
}

}  // namespace

ir::Kernel inline_launch_values(const ir::Kernel& k, const PassContext&) {
  const std::map<const ir::VarNode*, ir::Expr> defs = ir::single_definitions(k->body);
  bool changed = false;
  std::set<const void*> params;
  for (const ir::Var& p : k->params) params.insert(p.get());
  std::vector<ir::Expr> blocks;
  for (const ir::Expr& b : k->blocks) {
    ir::Expr nb = ir::substitute(b, defs);
    changed |= nb != b;
    check_known_at_launch(*k, nb, params, k->blocks_loc, "attrs.blocks",
                          "the grid is computed on the host before launch");
    blocks.push_back(nb);
  }
  std::vector<ir::DerivedParam> derived = k->derived_params;
  for (ir::DerivedParam& p : derived) {
    if (!p.is_scratch()) continue;
    ir::Expr bytes = ir::substitute(p.source, defs);
    changed |= bytes != p.source;
    check_known_at_launch(*k, bytes, params, p.loc, "the shape of a global_scratch",
                          "the buffer is allocated on the host before launch");
    p.source = bytes;
  }
  std::vector<ir::Requirement> requirements = k->requirements;
  for (ir::Requirement& r : requirements) {
    ir::Expr cond = ir::substitute(r.cond, defs);
    changed |= cond != r.cond;
    check_known_at_launch(*k, cond, params, r.loc, fmt::format("require(\"{}\")", r.message),
                          "a requirement is checked on the host before launch");
    r.cond = cond;
  }
  if (!changed) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->blocks = std::move(blocks);
  out->derived_params = std::move(derived);
  out->requirements = std::move(requirements);
  return out;
}

}  // namespace tessel::passes
