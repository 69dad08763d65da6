// Rewriting and walking the IR. A mutator returns the very same node when nothing below it
// changed, so passes that change nothing cost no allocation and are detected by pointer equality.
// What a node holds is its kind's `operands()` (ir.hpp): the mutator's default visit rewrites
// those and copies the rest of the node, and the walks and operand queries below read the same
// lists. The mutator keeps the Position of the statement it visits (visitor.hpp): its thread
// group, and the loops and if_ bodies around it; not the scopes, which no rewrite needs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "tessel/ir/ir.hpp"
#include "tessel/ir/visitor.hpp"

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
  // The kernel with its body and the expressions it holds outside the body mutated: the grid, the
  // derived parameters' divisors and the tensor maps' views. `k` itself when none changed. The
  // body is mutated with the block as its outermost thread group.
  Kernel mutate_kernel(const Kernel& k);

 protected:
  const Position& position() const { return position_; }

// clang-format off
#define TESSEL_EXPR(Name) virtual Expr visit(const Name##Node& n, const Expr& self);
#define TESSEL_TENSOR(Name) virtual Name visit(const Name##Node& n, const Name& self);
#define TESSEL_STMT(Name) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#define TESSEL_INSTR(Name, family, min_target, executor, call) virtual Stmt visit(const Name##Node& n, const Stmt& self);
#include "tessel/ir/nodes.def"
  // clang-format on

  // mutate(x), recording in *changed whether the result differs.
  template <class T> Ref<T> update(const Ref<T>& x, bool* changed) {
    if (!x) return x;
    Ref<T> m = mutate(x);
    *changed |= m != x;
    return m;
  }
  std::vector<Expr> update(const std::vector<Expr>& es, bool* changed);
  // Statements mutated to null are dropped.
  std::vector<Stmt> update(const std::vector<Stmt>& ss, bool* changed);
  Operand update(const Operand& o, bool* changed);
  MbarrierRef update(const MbarrierRef& b, bool* changed);

  // `self` when none of the node's operands changes, else a copy of the node with the changed
  // operands replaced: what every visit does unless a mutator overrides it.
  template <class N, class R> R rebuilt(const N& n, const R& self);

 private:
  template <class T> Ref<T> memoized(const Ref<T>& t);
  Position position_;
  std::unordered_map<const Node*, std::shared_ptr<const Node>> tensors_;
};

template <class N, class R> R Mutator::rebuilt(const N& n, const R& self) {
  std::shared_ptr<N> copy;
  const auto replace = [&](auto field) {
    bool changed = false;
    auto m = update(n.*member_of(field), &changed);
    if (!changed) return;
    if (!copy) copy = std::make_shared<N>(n);
    (*copy).*member_of(field) = std::move(m);
  };
  std::apply([&](auto... field) { (replace(field), ...); }, N::operands());
  return copy ? R(std::move(copy)) : self;
}

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

// The operands of an expression (a binary expression's two sides), in order.
std::vector<Expr> expr_operands(const ExprNode& e);

// Pre-order walk over an expression tree.
void walk_expr(const ExprNode& e, const std::function<void(const ExprNode&)>& on_expr);

// `e` with every variable of `definitions` replaced by its definition, recursively (a definition
// may use other defined variables).
Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& definitions);

// The variables of `body` declared once and never written again (by an assignment, or as an
// instruction's result), each with its definition: what substitute() may put in their place where
// a value is needed without running the body (on the host at launch).
std::map<const VarNode*, Expr> single_definitions(const Stmt& body);

}  // namespace tessel::ir
