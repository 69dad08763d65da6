// Folds constant scalar arithmetic and the identities x+0, x*1, x*0, 0+x, 1*x, so that index
// expressions built from trace-time constants reach code generation in their simplest form.
#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

bool is_int_const(const ir::Expr& e, int64_t v) {
  int64_t x;
  return ir::as_const_int(e, &x) && x == v;
}

class Simplifier : public ir::Mutator {
 protected:
  ir::Expr visit(const ir::BinaryNode& n, const ir::Expr& self) override {
    ir::Expr a = mutate(n.a), b = mutate(n.b);
    const bool ints = !a->type.pointer && !is_float(a->type.dtype) && !is_float(b->type.dtype) && a->type == n.type &&
                      b->type == n.type;
    if (a->kind == ir::NodeKind::Const && b->kind == ir::NodeKind::Const && ints && n.op != ir::BinaryOp::Div &&
        n.op != ir::BinaryOp::Mod) {
      auto no_vars = [](const ir::ExprNode&) -> ir::Scalar { TESSEL_CHECK(false, "constant has no variables"); };
      return ir::const_int(ir::evaluate(ir::BinaryNode(n.loc, n.type, n.op, a, b), no_vars).i, n.type.dtype, n.loc);
    }
    if (ints) {
      if (n.op == ir::BinaryOp::Add && is_int_const(b, 0)) return a;
      if (n.op == ir::BinaryOp::Add && is_int_const(a, 0)) return b;
      if (n.op == ir::BinaryOp::Sub && is_int_const(b, 0)) return a;
      if (n.op == ir::BinaryOp::Mul && is_int_const(b, 1)) return a;
      if (n.op == ir::BinaryOp::Mul && is_int_const(a, 1)) return b;
      if (n.op == ir::BinaryOp::Mul && (is_int_const(a, 0) || is_int_const(b, 0)))
        return ir::const_int(0, n.type.dtype);
    }
    if (a == n.a && b == n.b) return self;
    return ir::make<ir::BinaryNode>(n.loc, n.type, n.op, a, b);
  }
};

}  // namespace

ir::Kernel simplify_scalars(const ir::Kernel& k, const PassContext&) { return Simplifier().mutate_kernel(k); }

}  // namespace tessel::passes
