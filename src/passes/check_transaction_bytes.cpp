// Checks, where the trace decides it, that an mbarrier.arrive_and_expect_tx (or expect_tx)
// announces exactly the bytes of the asynchronous operations that complete bytes on its barrier
// (their effects say which: TMA loads, and the 16-byte responses of clc.try_cancel): a phase
// expecting more never completes, one expecting fewer underflows (PTX ISA 9.7.13.15.2). Decided
// only in the producer shape whose count cannot depend on the run: one thread announces a
// constant byte count, and it or its group (whose first thread issues them) issues the operations,
// in one straight-line sequence (the body of the group, or of a loop or branch in it: a ring's
// producer loop), and nothing else in the kernel
// expects bytes or produces them on that barrier array, and no operation multicasts on it or
// signals it from another block (the bytes of other blocks' operations count too).
// Changes nothing.
#include <map>
#include <set>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// The expect-tx instructions and producers of each barrier array in the kernel.
struct BarrierUses {
  int expects = 0;
  int producers = 0;
  bool other_blocks = false;
};

// The scalar variables of one straight-line body: those it declares, with their values, and those
// it assigns, whose value depends on where they are read.
struct BodyVariables {
  std::map<const ir::VarNode*, ir::Expr> declared;
  std::set<const ir::VarNode*> assigned;
};

// Whether two expressions of one straight-line body have the same value: the same operations on
// the same variables or on variables declared with such values, none of them assigned (a ring's
// `full[stage % n]`, written anew at each use, names one barrier).
bool same_value(const ir::Expr& a, const ir::Expr& b, const BodyVariables& vars) {
  int64_t x = 0, y = 0;
  if (ir::as_const_int(a, &x) && ir::as_const_int(b, &y)) return x == y;
  const auto value_of = [&](const ir::Expr& e) -> const ir::Expr* {
    const auto it = e->kind == ir::NodeKind::Var ? vars.declared.find(static_cast<const ir::VarNode*>(e.get()))
                                                 : vars.declared.end();
    return it != vars.declared.end() ? &it->second : nullptr;
  };
  const auto *value_a = value_of(a), *value_b = value_of(b);
  if ((value_a || value_b) && a != b) return same_value(value_a ? *value_a : a, value_b ? *value_b : b, vars);
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
    case ir::NodeKind::Const: {
      const auto &p = static_cast<const ir::ConstNode&>(*a), &q = static_cast<const ir::ConstNode&>(*b);
      return p.i == q.i && p.f == q.f;
    }
    case ir::NodeKind::Var: return a == b && !vars.assigned.count(static_cast<const ir::VarNode*>(a.get()));
    case ir::NodeKind::Builtin:
      return static_cast<const ir::BuiltinNode&>(*a).which == static_cast<const ir::BuiltinNode&>(*b).which;
    case ir::NodeKind::Binary: {
      const auto &p = static_cast<const ir::BinaryNode&>(*a), &q = static_cast<const ir::BinaryNode&>(*b);
      return p.op == q.op && same_value(p.a, q.a, vars) && same_value(p.b, q.b, vars);
    }
    case ir::NodeKind::Unary: {
      const auto &p = static_cast<const ir::UnaryNode&>(*a), &q = static_cast<const ir::UnaryNode&>(*b);
      return p.op == q.op && same_value(p.a, q.a, vars);
    }
    case ir::NodeKind::Select: {
      const auto &p = static_cast<const ir::SelectNode&>(*a), &q = static_cast<const ir::SelectNode&>(*b);
      return same_value(p.cond, q.cond, vars) && same_value(p.a, q.a, vars) && same_value(p.b, q.b, vars);
    }
    case ir::NodeKind::Cast:
      return same_value(static_cast<const ir::CastNode&>(*a).a, static_cast<const ir::CastNode&>(*b).a, vars);
    default: return false;
  }
}

bool same_barrier(const ir::MbarrierRef& a, const ir::MbarrierRef& b, const BodyVariables& vars) {
  return a.array->allocation() == b.array->allocation() && same_value(a.index, b.index, vars);
}

// The statements of a group's straight-line body, with those of each single_thread() in it: a
// producer warp often announces the bytes in one thread and issues the copies as a group, which
// issues each once. `alone` says whether one thread runs the statement.
struct BodyStatement {
  const ir::StmtNode* stmt;
  bool alone;
};

std::vector<BodyStatement> body_statements(const ir::SeqNode& body, int threads) {
  std::vector<BodyStatement> out;
  for (const ir::Stmt& t : body.stmts) {
    const auto* group =
        t->kind == ir::NodeKind::ThreadGroup ? static_cast<const ir::ThreadGroupNode*>(t.get()) : nullptr;
    if (!group || group->count != 1) {
      out.push_back({t.get(), threads == 1});
      continue;
    }
    if (group->body->kind != ir::NodeKind::Seq) {
      out.push_back({group->body.get(), true});
      continue;
    }
    for (const ir::Stmt& u : static_cast<const ir::SeqNode&>(*group->body).stmts) out.push_back({u.get(), true});
  }
  return out;
}

void check_producer(const ir::SeqNode& body, int threads,
                    const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) {
  BodyVariables vars;
  for (const ir::Stmt& t : body.stmts)
    ir::walk(t, [&](const ir::StmtNode& n) {
      if (n.kind == ir::NodeKind::Assign) vars.assigned.insert(static_cast<const ir::AssignNode&>(n).var.get());
      if (n.kind == ir::NodeKind::Declare) {
        const auto& d = static_cast<const ir::DeclareNode&>(n);
        vars.declared[d.var.get()] = d.init;
      }
    });
  for (const ir::VarNode* v : vars.assigned) vars.declared.erase(v);
  const std::vector<BodyStatement> statements = body_statements(body, threads);
  for (const auto& [s, alone] : statements)
    for (const ir::ExpectedBytes& expect : ir::effects(*s).expected_bytes) {
      const BarrierUses& all = uses.at(expect.barrier->array->allocation());
      int64_t expected = 0;
      if (!alone || expect.remote || all.expects != 1 || all.producers == 0 || all.other_blocks ||
          !ir::as_const_int(expect.bytes, &expected))
        continue;
      int here = 0;
      int64_t produced = 0;
      std::vector<std::string> lines;
      bool loads = false, cancels = false;  // which kinds of operation bring them
      for (const auto& [t, _] : statements)
        for (const ir::CompletedBytes& p : ir::effects(*t).completed_bytes)
          if (same_barrier(*p.barrier, *expect.barrier, vars)) {
            ++here;
            produced += p.bytes;
            lines.push_back(fmt::format("{} {}", ir::call_name(t->kind), t->loc.str()));
            (t->kind == ir::NodeKind::ClcTryCancel ? cancels : loads) = true;
          }
      if (here != all.producers) continue;
      std::vector<std::string> counted;
      if (loads) counted.push_back("every byte of the TMA loads' boxes");
      if (cancels) counted.push_back("16 of each try_cancel response");
      if (produced != expected)
        throw Error(s->loc, fmt::format("{}: announces {} transaction bytes, but the operations that complete bytes on "
                                        "this barrier ({}) bring {} bytes, {}; the phase would {}. Announce exactly "
                                        "the bytes they bring",
                                        ir::call_name(s->kind), expected, fmt::join(lines, ", "), produced,
                                        fmt::join(counted, " and "),
                                        produced < expected ? "never complete" : "receive more bytes than it expects"));
    }
}

// The producer shape: the sequences of statements that a thread group runs, its body and those of
// the loops and branches in it.
class SingleThreadBodies : public ir::Visitor {
 public:
  explicit SingleThreadBodies(const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) : uses_(uses) {}

 protected:
  void visit(const ir::SeqNode& n) override {
    check_producer(n, position().group().count, uses_);
    ir::Visitor::visit(n);
  }

 private:
  const std::map<const ir::SharedTensorNode*, BarrierUses>& uses_;
};

}  // namespace

ir::Kernel check_transaction_bytes(const ir::Kernel& k, const PassContext&) {
  std::map<const ir::SharedTensorNode*, BarrierUses> uses;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    const ir::Effects e = ir::effects(s);
    for (const ir::ExpectedBytes& expect : e.expected_bytes) {
      BarrierUses& barrier = uses[expect.barrier->array->allocation()];
      ++barrier.expects;
      barrier.other_blocks |= expect.remote;
    }
    for (const ir::CompletedBytes& p : e.completed_bytes) {
      BarrierUses& barrier = uses[p.barrier->array->allocation()];
      ++barrier.producers;
      barrier.other_blocks |= p.other_blocks;
    }
  });
  SingleThreadBodies(uses).visit_kernel(*k);
  return k;
}

}  // namespace tessel::passes
