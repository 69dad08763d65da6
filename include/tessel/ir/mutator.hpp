// Rewriting and walking the IR. A mutator returns the very same node when nothing below it
// changed, so passes that change nothing cost no allocation and are detected by pointer equality.
#pragma once

#include <functional>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual Stmt mutate(const Stmt& s);
  virtual Expr mutate(const Expr& e);
  // Every register tile a statement names passes through here (identity by default).
  virtual RegisterTensor mutate_tile(const RegisterTensor& t) { return t; }
  // Every shared tensor (allocation or view) a statement names passes through here.
  virtual SharedTensor mutate_shared(const SharedTensor& t) { return t; }

 protected:
#define TESSEL_STMT(Name) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#define TESSEL_INSTR(Name) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#define TESSEL_EXPR(Name) virtual Expr visit(const Name##Node& n, const Expr& self);
#include "tessel/ir/nodes.def"

  std::vector<Expr> mutate_all(const std::vector<Expr>& es, bool* changed);
  Operand mutate_operand(const Operand& o, bool* changed);
  RegisterTensor replace_tile(const RegisterTensor& t, bool* changed);
  SharedTensor replace_shared(const SharedTensor& t, bool* changed);
};

// Pre-order walk over every statement (and, with the second callback, every expression).
void walk(const Stmt& s, const std::function<void(const StmtNode&)>& on_stmt,
          const std::function<void(const ExprNode&)>& on_expr = {});

// The expressions a statement reads directly (not those of nested statements).
std::vector<Expr> direct_exprs(const StmtNode& s);
// The statements nested directly in a statement.
std::vector<Stmt> children(const StmtNode& s);

}  // namespace tessel::ir
