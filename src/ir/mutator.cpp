#include "tessel/ir/mutator.hpp"

#include <set>

namespace tessel::ir {

Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
      return s;
#define TESSEL_STMT(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return s;
}

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not an expression: {}", kind_name(e->kind));
      return e;
#define TESSEL_EXPR(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*e), e);
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return e;
}

template <class T> Ref<T> Mutator::memoized(const Ref<T>& t) {
  if (!t) return t;
  auto it = tensors_.find(t.get());
  if (it != tensors_.end()) return std::static_pointer_cast<const T>(it->second);
  Ref<T> m = visit(*t, t);
  tensors_[t.get()] = m;
  return m;
}

GlobalTensor Mutator::mutate(const GlobalTensor& t) { return memoized(t); }
SharedTensor Mutator::mutate(const SharedTensor& t) { return memoized(t); }
RegisterTensor Mutator::mutate(const RegisterTensor& t) { return memoized(t); }
TMemoryTensor Mutator::mutate(const TMemoryTensor& t) { return memoized(t); }

Kernel Mutator::mutate_kernel(const Kernel& k) {
  bool changed = false;
  position_.enter_block(k->threads());
  Stmt body = update(k->body, &changed);
  std::vector<Expr> blocks = update(k->blocks, &changed);
  std::vector<DerivedParam> derived = k->derived_params;
  for (DerivedParam& d : derived) d.source = update(d.source, &changed);
  std::vector<TensorMap> maps = k->tensor_maps;
  for (TensorMap& m : maps) m.view = update(m.view, &changed);
  if (!changed) return k;
  auto out = std::make_shared<KernelNode>(*k);
  out->body = std::move(body);
  out->blocks = std::move(blocks);
  out->derived_params = std::move(derived);
  out->tensor_maps = std::move(maps);
  return out;
}

std::vector<Expr> Mutator::update(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(update(e, changed));
  return out;
}

std::vector<Stmt> Mutator::update(const std::vector<Stmt>& ss, bool* changed) {
  std::vector<Stmt> out;
  out.reserve(ss.size());
  for (const Stmt& s : ss)
    if (Stmt m = update(s, changed)) out.push_back(std::move(m));
  return out;
}

Operand Mutator::update(const Operand& o, bool* changed) {
  if (o.tensor) return Operand{update(o.tensor, changed), nullptr};
  return Operand{nullptr, update(o.scalar, changed)};
}

MbarrierRef Mutator::update(const MbarrierRef& b, bool* changed) {
  return MbarrierRef{update(b.array, changed), update(b.index, changed)};
}

// clang-format off
#define TESSEL_EXPR(Name) \
  Expr Mutator::visit(const Name##Node& n, const Expr& self) { return rebuilt(n, self); }
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  Stmt Mutator::visit(const Name##Node& n, const Stmt& self) { return rebuilt(n, self); }
#include "tessel/ir/nodes.def"
// clang-format on

Stmt Mutator::visit(const SeqNode& n, const Stmt& self) { return rebuilt(n, self); }
Stmt Mutator::visit(const DeclareNode& n, const Stmt& self) { return rebuilt(n, self); }
Stmt Mutator::visit(const AssignNode& n, const Stmt& self) { return rebuilt(n, self); }
Stmt Mutator::visit(const ForNode& n, const Stmt& self) {
  position_.enter_loop();
  Stmt out = rebuilt(n, self);
  position_.leave_loop();
  return out;
}
Stmt Mutator::visit(const WhileNode& n, const Stmt& self) {
  position_.enter_loop();
  Stmt out = rebuilt(n, self);
  position_.leave_loop();
  return out;
}
Stmt Mutator::visit(const BreakNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const ContinueNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const ReturnNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const IfNode& n, const Stmt& self) {
  position_.enter_branch();
  Stmt out = rebuilt(n, self);
  position_.leave_branch();
  return out;
}
Stmt Mutator::visit(const ThreadGroupNode& n, const Stmt& self) {
  position_.enter_group(ThreadRange{n.begin, n.count});
  Stmt out = rebuilt(n, self);
  position_.leave_group();
  return out;
}

GlobalTensor Mutator::visit(const GlobalTensorNode& n, const GlobalTensor& self) { return rebuilt(n, self); }
RegisterTensor Mutator::visit(const RegisterTensorNode& n, const RegisterTensor& self) { return rebuilt(n, self); }
TMemoryTensor Mutator::visit(const TMemoryTensorNode& n, const TMemoryTensor& self) { return rebuilt(n, self); }

// A view's swizzle is its allocation's.
SharedTensor Mutator::visit(const SharedTensorNode& n, const SharedTensor& self) {
  SharedTensor m = rebuilt(n, self);
  if (m == self || !m->root || m->swizzle_bits == m->root->swizzle_bits) return m;
  auto view = make<SharedTensorNode>(*m);
  view->swizzle_bits = m->root->swizzle_bits;
  return view;
}

// ---- walking ----

namespace {

// Collects operands by their type.
struct Collect {
  DirectOperands& out;
  void operator()(const Expr& e) const {
    if (e) out.exprs.push_back(e);
  }
  void operator()(const Stmt& s) const {
    if (s) out.children.push_back(s);
  }
  template <class T> void operator()(const Ref<T>& tensor) const {
    if (tensor) out.tensors.push_back(tensor);
  }
  template <class T> void operator()(const std::vector<T>& all) const {
    for (const T& x : all) (*this)(x);
  }
  void operator()(const Operand& o) const {
    (*this)(o.tensor);
    (*this)(o.scalar);
  }
  void operator()(const MbarrierRef& b) const {
    (*this)(b.array);
    (*this)(b.index);
  }
};

template <class N> DirectOperands operands_of(const N& n) {
  DirectOperands out;
  const Collect collect{out};
  std::apply([&](auto... field) { (collect(n.*member_of(field)), ...); }, N::operands());
  return out;
}

// The variables an instruction writes; a result it may leave null (an atomic's unused old value)
// is not one.
template <class N> std::vector<Var> results_of(const N& n) {
  std::vector<Var> vars = std::apply([&](auto... field) { return std::vector<Var>{n.*field...}; }, N::results());
  std::erase(vars, nullptr);
  return vars;
}

// `f` applied to `s` as its node type.
template <class F> auto as_statement(const StmtNode& s, F&& f) -> decltype(f(static_cast<const SeqNode&>(s))) {
  switch (s.kind) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    TESSEL_CHECK(false, "not a statement: {}", kind_name(s.kind));
    return {};
#define TESSEL_STMT(Name) \
  case NodeKind::Name: return f(static_cast<const Name##Node&>(s));
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name: return f(static_cast<const Name##Node&>(s));
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return {};
}

}  // namespace

DirectOperands direct_operands(const StmtNode& s) {
  return as_statement(s, [](const auto& n) { return operands_of(n); });
}

std::vector<Var> instruction_results(const StmtNode& s) {
  return as_statement(s, [](const auto& n) { return results_of(n); });
}

// A view's allocation is a tensor of its own, with its own expressions; so is a tensor-memory
// view's, whose address word is allocated with it.
std::vector<Expr> tensor_exprs(const Node& tensor) {
  switch (tensor.kind) {
    case NodeKind::GlobalTensor: return operands_of(static_cast<const GlobalTensorNode&>(tensor)).exprs;
    case NodeKind::SharedTensor: {
      const Expr& offset = static_cast<const SharedTensorNode&>(tensor).offset;
      return offset ? std::vector<Expr>{offset} : std::vector<Expr>{};
    }
    case NodeKind::RegisterTensor: return {};
    case NodeKind::TMemoryTensor: {
      const Expr& column_offset = static_cast<const TMemoryTensorNode&>(tensor).column_offset;
      return column_offset ? std::vector<Expr>{column_offset} : std::vector<Expr>{};
    }
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      TESSEL_CHECK(false, "not a tensor: {}", kind_name(tensor.kind));
  }
  return {};
}

std::vector<Expr> expr_operands(const ExprNode& e) {
  switch (e.kind) {
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    TESSEL_CHECK(false, "not an expression: {}", kind_name(e.kind));
    return {};
#define TESSEL_EXPR(Name) \
  case NodeKind::Name: return operands_of(static_cast<const Name##Node&>(e)).exprs;
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return {};
}

namespace {

class Substitute : public Mutator {
 public:
  explicit Substitute(const std::map<const VarNode*, Expr>& definitions) : definitions_(definitions) {}

 protected:
  Expr visit(const VarNode& n, const Expr& self) override {
    const auto it = definitions_.find(&n);
    return it == definitions_.end() ? self : mutate(it->second);
  }

 private:
  const std::map<const VarNode*, Expr>& definitions_;
};

}  // namespace

Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& definitions) {
  return Substitute(definitions).mutate(e);
}

std::map<const VarNode*, Expr> single_definitions(const Stmt& body) {
  std::set<const VarNode*> written;
  std::map<const VarNode*, int> declarations;
  walk(body, [&](const StmtNode& s) {
    if (s.kind == NodeKind::Assign) written.insert(static_cast<const AssignNode&>(s).var.get());
    for (const Var& v : instruction_results(s)) written.insert(v.get());
    if (s.kind == NodeKind::Declare) ++declarations[static_cast<const DeclareNode&>(s).var.get()];
  });
  std::map<const VarNode*, Expr> definitions;
  walk(body, [&](const StmtNode& s) {
    if (s.kind != NodeKind::Declare) return;
    const auto& d = static_cast<const DeclareNode&>(s);
    if (!written.count(d.var.get()) && declarations[d.var.get()] == 1) definitions[d.var.get()] = d.init;
  });
  return definitions;
}

void walk_expr(const ExprNode& e, const std::function<void(const ExprNode&)>& on_expr) {
  on_expr(e);
  for (const Expr& c : expr_operands(e)) walk_expr(*c, on_expr);
}

void walk(const Stmt& s, const std::function<void(const StmtNode&)>& on_stmt,
          const std::function<void(const ExprNode&)>& on_expr) {
  if (!s) return;
  on_stmt(*s);
  DirectOperands ops = direct_operands(*s);
  if (on_expr) {
    for (const Expr& e : ops.exprs) walk_expr(*e, on_expr);
    for (const auto& t : ops.tensors)
      for (const Expr& e : tensor_exprs(*t)) walk_expr(*e, on_expr);
  }
  for (const Stmt& c : ops.children) walk(c, on_stmt, on_expr);
}

}  // namespace tessel::ir
