#include "tessel/ir/visitor.hpp"

namespace tessel::ir {

ThreadRange Position::group() const {
  TESSEL_CHECK(!groups_.empty(), "a thread group asked for outside a kernel's body");
  return groups_.back();
}

bool Position::defined(const void* value) const {
  for (const auto& scope : scopes_)
    if (scope.count(value)) return true;
  return false;
}

bool Position::defined_here(const void* value) const { return scopes_.back().count(value) != 0; }

void Position::define(const void* value) { scopes_.back().insert(value); }

void Position::enter_block(int threads) {
  *this = Position();
  groups_.push_back(ThreadRange{0, threads});
}

void Position::enter_group(ThreadRange g) {
  groups_.push_back(g);
  branches_.push_back(0);
  scopes_.emplace_back();
}

void Position::leave_group() {
  groups_.pop_back();
  branches_.pop_back();
  scopes_.pop_back();
}

void Position::enter_loop() {
  ++loops_;
  scopes_.emplace_back();
}

void Position::leave_loop() {
  --loops_;
  scopes_.pop_back();
}

void Position::enter_branch() {
  ++branches_.back();
  ++nesting_branches_;
  scopes_.emplace_back();
}

void Position::leave_branch() {
  --branches_.back();
  --nesting_branches_;
  scopes_.pop_back();
}

void Visitor::visit_kernel(const KernelNode& k) {
  position_.enter_block(k.threads());
  for (const Var& p : k.params) position_.define(p.get());
  visit_stmt(k.body);
}

void Visitor::visit_stmt(const Stmt& s) {
  switch (s->kind) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
    return;
#define TESSEL_STMT(Name) \
  case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s));
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s));
#include "tessel/ir/nodes.def"
    // clang-format on
  }
}

void Visitor::visit_loop_body(const Stmt& body, const Var& loop_var) {
  position_.enter_loop();
  if (loop_var) position_.define(loop_var.get());
  visit_stmt(body);
  position_.leave_loop();
}

void Visitor::visit_branch(const Stmt& body) {
  position_.enter_branch();
  visit_stmt(body);
  position_.leave_branch();
}

void Visitor::visit_group(const ThreadGroupNode& n) {
  position_.enter_group(ThreadRange{n.begin, n.count});
  visit_stmt(n.body);
  position_.leave_group();
}

void Visitor::visit(const SeqNode& n) {
  for (const Stmt& s : n.stmts) visit_stmt(s);
}
void Visitor::visit(const DeclareNode& n) { position_.define(n.var.get()); }
void Visitor::visit(const AssignNode&) {}
void Visitor::visit(const ForNode& n) { visit_loop_body(n.body, n.var); }
void Visitor::visit(const IfNode& n) {
  visit_branch(n.then_case);
  if (n.else_case) visit_branch(n.else_case);
}
void Visitor::visit(const WhileNode& n) { visit_loop_body(n.body); }
void Visitor::visit(const BreakNode&) {}
void Visitor::visit(const ContinueNode&) {}
void Visitor::visit(const ReturnNode&) {}
void Visitor::visit(const ThreadGroupNode& n) { visit_group(n); }

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  void Visitor::visit(const Name##Node& n) { visit_instruction(n); }
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::ir
