// Rewriting and walking the IR. A mutator returns the very same node when nothing below it
// changed, so passes that change nothing cost no allocation and are detected by pointer equality.
// The mutator's visit functions are the one place that knows which expressions, tensors and
// statements a node holds; walking and the operand queries below are derived from them.
#pragma once

#include <functional>
#include <unordered_map>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual Stmt mutate(const Stmt& s);
  virtual Expr mutate(const Expr& e);
  // A tensor is rewritten once per mutator: every use of it maps to the same rewritten tensor,
  // since a tensor's identity is its address.
  GlobalTensor mutate(const GlobalTensor& t);
  SharedTensor mutate(const SharedTensor& t);
  RegisterTensor mutate(const RegisterTensor& t);
  TMemoryTensor mutate(const TMemoryTensor& t);

 protected:
#define TESSEL_EXPR(Name) virtual Expr visit(const Name##Node& n, const Expr& self);
#define TESSEL_TENSOR(Name) virtual Name visit(const Name##Node& n, const Name& self);
#define TESSEL_STMT(Name) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#define TESSEL_INSTR(Name, family, min_target, executor) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#include "tessel/ir/nodes.def"

  // mutate(x), recording in *changed whether the result differs.
  template <class T> Ref<T> update(const Ref<T>& x, bool* changed) {
    if (!x) return x;
    Ref<T> m = mutate(x);
    *changed |= m != x;
    return m;
  }
  std::vector<Expr> update(const std::vector<Expr>& es, bool* changed);
  Operand update(const Operand& o, bool* changed);

 private:
  template <class T> Ref<T> memoized(const Ref<T>& t);
  std::unordered_map<const Node*, std::shared_ptr<const Node>> tensors_;
};

// What one statement holds directly (not through nested statements): its scalar expressions,
// the tensors it names, and its nested statements, in the order the mutator visits them.
struct DirectOperands {
  std::vector<Expr> exprs;
  std::vector<Ref<Node>> tensors;
  std::vector<Stmt> children;
};
DirectOperands direct_operands(const StmtNode& s);

// The variables an instruction writes as its results (try_wait's flag, a CLC query's fields,
// fast_divmod's quotient and remainder): declared beforehand, written here, and never operands.
std::vector<Var> instruction_results(const StmtNode& s);

// The expressions a tensor holds: a global view's pointer, shape and strides, a shared view's
// offset, a tensor-memory view's column offset (their allocations' are none).
std::vector<Expr> tensor_exprs(const Node& tensor);

// Pre-order walk over every statement (and, with the second callback, every expression,
// including those of the tensors a statement names).
void walk(const Stmt& s, const std::function<void(const StmtNode&)>& on_stmt,
          const std::function<void(const ExprNode&)>& on_expr = {});

// Pre-order walk over an expression tree.
void walk_expr(const ExprNode& e, const std::function<void(const ExprNode&)>& on_expr);

}  // namespace tessel::ir
