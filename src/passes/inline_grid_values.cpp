// The grid is computed on the host from the run-time parameters and the device's multiprocessor
// count, so the grid extents may not refer to variables of the body. Variables that are declared
// once at the top level of the body and never assigned are replaced by their definitions.
#include <map>
#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class Substitute : public ir::Mutator {
 public:
  explicit Substitute(const std::map<const ir::VarNode*, ir::Expr>& defs) : defs_(defs) {}

 protected:
  ir::Expr visit(const ir::VarNode& n, const ir::Expr& self) override {
    auto it = defs_.find(&n);
    return it == defs_.end() ? self : mutate(it->second);
  }

 private:
  const std::map<const ir::VarNode*, ir::Expr>& defs_;
};

}  // namespace

ir::Kernel inline_grid_values(const ir::Kernel& k, const PassContext&) {
  std::set<const ir::VarNode*> assigned;
  ir::walk(k.get()->body, [&](const ir::StmtNode& s) {
    if (s.kind == ir::NodeKind::Assign) assigned.insert(static_cast<const ir::AssignNode&>(s).var.get());
  });
  std::map<const ir::VarNode*, ir::Expr> defs;
  if (k->body->kind == ir::NodeKind::Seq)
    for (const ir::Stmt& s : static_cast<const ir::SeqNode&>(*k->body).stmts)
      if (s->kind == ir::NodeKind::Declare) {
        auto& d = static_cast<const ir::DeclareNode&>(*s);
        if (!assigned.count(d.var.get())) defs[d.var.get()] = d.init;
      }
  Substitute sub(defs);
  std::vector<ir::Expr> blocks;
  bool changed = false;
  std::set<const void*> params;
  for (const ir::Var& p : k->params) params.insert(p.get());
  for (const ir::Expr& b : k->blocks) {
    ir::Expr nb = sub.mutate(b);
    changed |= nb != b;
    ir::walk(
        ir::make<ir::DeclareNode>(SourceLoc{}, ir::make_var(ir::Type{}, "grid"), nb), [](const ir::StmtNode&) {},
        [&](const ir::ExprNode& e) {
          if (e.kind == ir::NodeKind::Var && !params.count(&e))
            throw Error(k->blocks_loc,
                        fmt::format("attrs.blocks of kernel {} uses the variable {} (declared at {}), which is "
                                    "not computable from the kernel's parameters; the grid is computed on the "
                                    "host before launch",
                                    k->name, static_cast<const ir::VarNode&>(e).name, e.loc.str()));
          if (e.kind != ir::NodeKind::Builtin) return;
          const ir::BuiltinKind which = static_cast<const ir::BuiltinNode&>(e).which;
          if (which != ir::BuiltinKind::Multiprocessors)
            throw Error(k->blocks_loc, fmt::format("attrs.blocks of kernel {} uses {}, which is only known "
                                                   "inside the kernel",
                                                   k->name, ir::builtin_name(which)));
        });
    blocks.push_back(nb);
  }
  if (!changed) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->blocks = std::move(blocks);
  return out;
}

}  // namespace tessel::passes
