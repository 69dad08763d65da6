// Turns the divisor of each fast_divmod into parameters the launch computes (KernelNode::
// derived_params): the divisor and its magic numbers (ir/fast_divmod.hpp), once per distinct
// divisor. A divisor must be the same for the whole grid: an expression of the kernel's
// parameters, of `multiprocessors` and of variables declared once from them (never assigned),
// which are replaced by their definitions so that the host can evaluate it. A divisor that turns
// out constant needs no magic: the division becomes / and %, which the compiler already turns into
// multiply and shift.
#include <map>
#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class PlanFastDivmods : public ir::Mutator {
 public:
  explicit PlanFastDivmods(ir::KernelNode& k) : kernel_(k), defs_(ir::single_definitions(k.body)) {
    for (const ir::Var& p : k.params) params_.insert(p.get());
  }

 protected:
  ir::Stmt visit(const ir::FastDivmodNode& n, const ir::Stmt& self) override {
    if (n.planned()) return self;
    const ir::Expr divisor = grid_constant(n);
    int64_t constant = 0;
    if (ir::as_const_int(divisor, &constant)) {
      if (constant == 0) throw Error(n.loc, "fast_divmod: the divisor is 0");
      return ir::seq({ir::make<ir::AssignNode>(n.loc, n.quotient, ir::binary(ir::BinaryOp::Div, n.x, divisor)),
                      ir::make<ir::AssignNode>(n.loc, n.remainder, ir::binary(ir::BinaryOp::Mod, n.x, divisor))},
                     n.loc);
    }
    const Magic& m = magic_of(divisor, n.loc);
    auto planned = ir::copy_of(n);
    planned->divisor = m.divisor;
    planned->multiplier = m.multiplier;
    planned->log2 = m.log2;
    return planned;
  }

 private:
  struct Magic {
    ir::Var divisor, multiplier, log2;
  };

  // The divisor over the kernel's parameters only, or a user error naming what it depends on.
  ir::Expr grid_constant(const ir::FastDivmodNode& n) {
    const ir::Expr divisor = ir::substitute(n.divisor, defs_);
    auto depends = [&](const std::string& what) {
      return Error(n.loc, fmt::format("fast_divmod: the divisor must be the same for the whole grid (computed on the "
                                      "host from the kernel's parameters at launch), but it depends on {}; divide "
                                      "with / and % instead",
                                      what));
    };
    ir::walk_expr(*divisor, [&](const ir::ExprNode& e) {
      if (e.kind == ir::NodeKind::Var && !params_.count(&e))
        throw depends(
            fmt::format("the kernel variable created at {}, which is assigned or is a loop's variable", e.loc.str()));
      if (e.kind != ir::NodeKind::Builtin) return;
      const ir::BuiltinKind which = static_cast<const ir::BuiltinNode&>(e).which;
      if (which != ir::BuiltinKind::Multiprocessors) throw depends(std::string(ir::builtin_name(which)));
    });
    return divisor;
  }

  const Magic& magic_of(const ir::Expr& divisor, const SourceLoc& loc) {
    const std::string key = divisor->type.str() + " " + ir::print(divisor);
    auto it = magic_.find(key);
    if (it != magic_.end()) return it->second;
    auto derive = [&](ir::Type t, const char* name, ir::DerivedValue value) {
      ir::Var v = ir::make_var(t, name, loc);
      kernel_.params.push_back(v);
      kernel_.derived_params.push_back({v, value, divisor, loc});
      return v;
    };
    const ir::Type u32{DType::U32};
    Magic m{derive(divisor->type, "divisor", ir::DerivedValue::Divisor),
            derive(u32, "divisor_multiplier", ir::DerivedValue::Multiplier),
            derive(u32, "divisor_log2", ir::DerivedValue::Log2)};
    return magic_.emplace(key, m).first->second;
  }

  ir::KernelNode& kernel_;
  std::map<const ir::VarNode*, ir::Expr> defs_;
  std::set<const void*> params_;
  std::map<std::string, Magic> magic_;
};

}  // namespace

ir::Kernel plan_fast_divmods(const ir::Kernel& k, const PassContext&) {
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = PlanFastDivmods(*out).mutate(k->body);
  return out->body == k->body ? k : out;
}

}  // namespace tessel::passes
