#include "tessel/ir/mutator.hpp"

namespace tessel::ir {

Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TESSEL_STMT(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#define TESSEL_INSTR(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#include "tessel/ir/nodes.def"
    default: TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
  }
}

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define TESSEL_EXPR(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*e), e);
#include "tessel/ir/nodes.def"
    default: TESSEL_CHECK(false, "not an expression: {}", kind_name(e->kind));
  }
}

std::vector<Expr> Mutator::mutate_all(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) {
    out.push_back(mutate(e));
    *changed |= out.back() != e;
  }
  return out;
}

Operand Mutator::mutate_operand(const Operand& o, bool* changed) {
  if (o.tensor) return Operand{replace_tile(o.tensor, changed), nullptr};
  Expr s = mutate(o.scalar);
  *changed |= s != o.scalar;
  return Operand{nullptr, s};
}

RegisterTensor Mutator::replace_tile(const RegisterTensor& t, bool* changed) {
  RegisterTensor m = mutate_tile(t);
  *changed |= m != t;
  return m;
}

SharedTensor Mutator::replace_shared(const SharedTensor& t, bool* changed) {
  SharedTensor m = mutate_shared(t);
  *changed |= m != t;
  return m;
}

// ---- expressions ----

Expr Mutator::visit(const ConstNode&, const Expr& self) { return self; }
Expr Mutator::visit(const VarNode&, const Expr& self) { return self; }
Expr Mutator::visit(const BuiltinNode&, const Expr& self) { return self; }

Expr Mutator::visit(const BinaryNode& n, const Expr& self) {
  Expr a = mutate(n.a), b = mutate(n.b);
  if (a == n.a && b == n.b) return self;
  return std::make_shared<BinaryNode>(n.loc, n.type, n.op, a, b);
}

Expr Mutator::visit(const UnaryNode& n, const Expr& self) {
  Expr a = mutate(n.a);
  if (a == n.a) return self;
  return std::make_shared<UnaryNode>(n.loc, n.type, n.op, a);
}

Expr Mutator::visit(const SelectNode& n, const Expr& self) {
  Expr c = mutate(n.cond), a = mutate(n.a), b = mutate(n.b);
  if (c == n.cond && a == n.a && b == n.b) return self;
  return std::make_shared<SelectNode>(n.loc, c, a, b);
}

Expr Mutator::visit(const CastNode& n, const Expr& self) {
  Expr a = mutate(n.a);
  if (a == n.a) return self;
  return std::make_shared<CastNode>(n.loc, n.type, a);
}

// ---- statements ----

Stmt Mutator::visit(const SeqNode& n, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  for (const Stmt& s : n.stmts) {
    Stmt m = mutate(s);
    changed |= m != s;
    if (m) out.push_back(m);
  }
  return changed ? std::make_shared<SeqNode>(n.loc, std::move(out)) : self;
}

Stmt Mutator::visit(const DeclareNode& n, const Stmt& self) {
  Expr init = mutate(n.init);
  return init == n.init ? self : std::make_shared<DeclareNode>(n.loc, n.var, init);
}

Stmt Mutator::visit(const AssignNode& n, const Stmt& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : std::make_shared<AssignNode>(n.loc, n.var, v);
}

Stmt Mutator::visit(const ForNode& n, const Stmt& self) {
  Expr a = mutate(n.start), b = mutate(n.stop), c = mutate(n.step);
  Stmt body = mutate(n.body);
  if (a == n.start && b == n.stop && c == n.step && body == n.body) return self;
  return std::make_shared<ForNode>(n.loc, n.var, a, b, c, n.unroll, body);
}

Stmt Mutator::visit(const IfNode& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt t = mutate(n.then_case), e = mutate(n.else_case);
  if (c == n.cond && t == n.then_case && e == n.else_case) return self;
  return std::make_shared<IfNode>(n.loc, c, t, e);
}

Stmt Mutator::visit(const WhileNode& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt b = mutate(n.body);
  if (c == n.cond && b == n.body) return self;
  return std::make_shared<WhileNode>(n.loc, c, b);
}

Stmt Mutator::visit(const ThreadGroupNode& n, const Stmt& self) {
  Stmt b = mutate(n.body);
  return b == n.body ? self : std::make_shared<ThreadGroupNode>(n.loc, n.begin, n.count, b);
}

Stmt Mutator::visit(const SyncNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const AllocSharedNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor t = replace_shared(n.tensor, &changed);
  return changed ? std::make_shared<AllocSharedNode>(n.loc, t, n.offset, n.alignment) : self;
}
Stmt Mutator::visit(const CopyAsyncCommitNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const CopyAsyncWaitNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const CopyAsyncNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor dst = replace_shared(n.dst, &changed);
  auto offs = mutate_all(n.offsets, &changed);
  return changed ? std::make_shared<CopyAsyncNode>(n.loc, n.src, dst, offs, n.layout) : self;
}

Stmt Mutator::visit(const AllocRegisterNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  Expr init = mutate(n.init);
  changed |= init != n.init;
  return changed ? std::make_shared<AllocRegisterNode>(n.loc, out, init) : self;
}

Stmt Mutator::visit(const LoadGlobalNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  auto offs = mutate_all(n.offsets, &changed);
  return changed ? std::make_shared<LoadGlobalNode>(n.loc, out, n.src, offs, n.fill) : self;
}

Stmt Mutator::visit(const StoreGlobalNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor src = replace_tile(n.src, &changed);
  auto offs = mutate_all(n.offsets, &changed);
  return changed ? std::make_shared<StoreGlobalNode>(n.loc, n.dst, src, offs) : self;
}

Stmt Mutator::visit(const LoadSharedNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  SharedTensor src = replace_shared(n.src, &changed);
  auto offs = mutate_all(n.offsets, &changed);
  return changed ? std::make_shared<LoadSharedNode>(n.loc, out, src, offs) : self;
}

Stmt Mutator::visit(const StoreSharedNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor src = replace_tile(n.src, &changed);
  SharedTensor dst = replace_shared(n.dst, &changed);
  auto offs = mutate_all(n.offsets, &changed);
  return changed ? std::make_shared<StoreSharedNode>(n.loc, dst, src, offs) : self;
}

Stmt Mutator::visit(const ElementwiseBinaryNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  Operand a = mutate_operand(n.a, &changed), b = mutate_operand(n.b, &changed);
  return changed ? std::make_shared<ElementwiseBinaryNode>(n.loc, out, n.op, a, b) : self;
}

Stmt Mutator::visit(const ElementwiseUnaryNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed), a = replace_tile(n.a, &changed);
  return changed ? std::make_shared<ElementwiseUnaryNode>(n.loc, out, n.op, a) : self;
}

Stmt Mutator::visit(const WhereNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  Operand c = mutate_operand(n.cond, &changed), a = mutate_operand(n.a, &changed), b = mutate_operand(n.b, &changed);
  return changed ? std::make_shared<WhereNode>(n.loc, out, c, a, b) : self;
}

Stmt Mutator::visit(const FmaNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed);
  Operand a = mutate_operand(n.a, &changed), b = mutate_operand(n.b, &changed);
  RegisterTensor c = replace_tile(n.c, &changed);
  return changed ? std::make_shared<FmaNode>(n.loc, out, a, b, c) : self;
}

Stmt Mutator::visit(const DotNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed), a = replace_tile(n.a, &changed), b = replace_tile(n.b, &changed),
                 c = replace_tile(n.c, &changed);
  return changed ? std::make_shared<DotNode>(n.loc, out, a, b, c, n.warps_m, n.warps_n) : self;
}

Stmt Mutator::visit(const CastTensorNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed), a = replace_tile(n.a, &changed);
  return changed ? std::make_shared<CastTensorNode>(n.loc, out, a) : self;
}

Stmt Mutator::visit(const ReduceNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = replace_tile(n.out, &changed), a = replace_tile(n.a, &changed);
  return changed ? std::make_shared<ReduceNode>(n.loc, out, n.op, a, n.dim) : self;
}

Stmt Mutator::visit(const CopyRegisterNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor dst = replace_tile(n.dst, &changed), src = replace_tile(n.src, &changed);
  return changed ? std::make_shared<CopyRegisterNode>(n.loc, dst, src) : self;
}

Stmt Mutator::visit(const AnnotateLayoutNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor tile = replace_tile(n.tile, &changed);
  return changed ? std::make_shared<AnnotateLayoutNode>(n.loc, tile, n.layout) : self;
}

Stmt Mutator::visit(const PrintTensorNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor t = replace_tile(n.tensor, &changed);
  return changed ? std::make_shared<PrintTensorNode>(n.loc, n.label, t) : self;
}

// ---- walking ----

std::vector<Expr> direct_exprs(const StmtNode& s) {
  auto operand_exprs = [](std::initializer_list<const Operand*> ops) {
    std::vector<Expr> out;
    for (const Operand* o : ops)
      if (o->scalar) out.push_back(o->scalar);
    return out;
  };
  switch (s.kind) {
    case NodeKind::Declare: return {static_cast<const DeclareNode&>(s).init};
    case NodeKind::Assign: return {static_cast<const AssignNode&>(s).value};
    case NodeKind::For: {
      auto& n = static_cast<const ForNode&>(s);
      return {n.start, n.stop, n.step};
    }
    case NodeKind::If: return {static_cast<const IfNode&>(s).cond};
    case NodeKind::While: return {static_cast<const WhileNode&>(s).cond};
    case NodeKind::AllocRegister: return {static_cast<const AllocRegisterNode&>(s).init};
    case NodeKind::LoadGlobal: return static_cast<const LoadGlobalNode&>(s).offsets;
    case NodeKind::StoreGlobal: return static_cast<const StoreGlobalNode&>(s).offsets;
    case NodeKind::LoadShared: return static_cast<const LoadSharedNode&>(s).offsets;
    case NodeKind::StoreShared: return static_cast<const StoreSharedNode&>(s).offsets;
    case NodeKind::CopyAsync: return static_cast<const CopyAsyncNode&>(s).offsets;
    case NodeKind::ElementwiseBinary: {
      auto& n = static_cast<const ElementwiseBinaryNode&>(s);
      return operand_exprs({&n.a, &n.b});
    }
    case NodeKind::Where: {
      auto& n = static_cast<const WhereNode&>(s);
      return operand_exprs({&n.cond, &n.a, &n.b});
    }
    case NodeKind::Fma: {
      auto& n = static_cast<const FmaNode&>(s);
      return operand_exprs({&n.a, &n.b});
    }
    default: return {};
  }
}

std::vector<Stmt> children(const StmtNode& s) {
  switch (s.kind) {
    case NodeKind::Seq: return static_cast<const SeqNode&>(s).stmts;
    case NodeKind::For: return {static_cast<const ForNode&>(s).body};
    case NodeKind::If: {
      auto& n = static_cast<const IfNode&>(s);
      if (n.else_case) return {n.then_case, n.else_case};
      return {n.then_case};
    }
    case NodeKind::While: return {static_cast<const WhileNode&>(s).body};
    case NodeKind::ThreadGroup: return {static_cast<const ThreadGroupNode&>(s).body};
    default: return {};
  }
}

namespace {

void walk_expr(const ExprNode& e, const std::function<void(const ExprNode&)>& on_expr) {
  on_expr(e);
  switch (e.kind) {
    case NodeKind::Binary: {
      auto& n = static_cast<const BinaryNode&>(e);
      walk_expr(*n.a, on_expr);
      walk_expr(*n.b, on_expr);
      break;
    }
    case NodeKind::Unary: walk_expr(*static_cast<const UnaryNode&>(e).a, on_expr); break;
    case NodeKind::Cast: walk_expr(*static_cast<const CastNode&>(e).a, on_expr); break;
    case NodeKind::Select: {
      auto& n = static_cast<const SelectNode&>(e);
      walk_expr(*n.cond, on_expr);
      walk_expr(*n.a, on_expr);
      walk_expr(*n.b, on_expr);
      break;
    }
    default: break;
  }
}

}  // namespace

void walk(const Stmt& s, const std::function<void(const StmtNode&)>& on_stmt,
          const std::function<void(const ExprNode&)>& on_expr) {
  if (!s) return;
  on_stmt(*s);
  if (on_expr)
    for (const Expr& e : direct_exprs(*s)) walk_expr(*e, on_expr);
  for (const Stmt& c : children(*s)) walk(c, on_stmt, on_expr);
}

}  // namespace tessel::ir
