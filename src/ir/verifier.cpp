// The verifier: scopes, thread groups, targets and executors for every statement, then the
// instruction's own rule (verify_<family>.cpp). It runs on the traced kernel and after every
// pass, so what a user can cause is reported at the user's line before any pass relies on it.
#include "tessel/ir/verifier.hpp"

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/target_limits.hpp"
#include "verification.hpp"

namespace tessel::ir {

int64_t max_shared_bytes_per_block(Arch arch) { return target_limits(arch).max_shared_bytes_per_block; }

// ---- Verification: scopes and operands ----

bool Verification::defined(const void* p) const {
  for (const auto& s : scopes_)
    if (s.count(p)) return true;
  return false;
}

void Verification::check_expr(const Expr& e, const StmtNode& s) {
  TESSEL_CHECK(e != nullptr, "null expression in {} at {}", kind_name(s.kind), s.loc.str());
  walk_expr(*e, [&](const ExprNode& x) {
    if (x.kind == NodeKind::Var && !defined(&x))
      throw Error(s.loc, fmt::format("a kernel value created at {} is used here, outside the body that created it "
                                     "(a range, if_, while_ or thread group body); values live until the end of "
                                     "that body: create it before the body (e.g. Var<int32_t> v = 0;) and assign "
                                     "it inside",
                                     x.loc.str()));
  });
}

void Verification::check_shared(const SharedTensor& t, const StmtNode& s) {
  if (!t->root) {
    TESSEL_CHECK(defined(t.get()), "shared tensor {} (created at {}) used at {} before its allocation", t->name,
                 t->loc.str(), s.loc.str());
    return;
  }
  check_shared(t->root, s);
  walk_expr(*t->offset, [&](const ExprNode& x) {
    if (x.kind == NodeKind::Var && !defined(&x))
      throw Error(s.loc, fmt::format("the shared view made at {} is used here, outside the body that made it (a "
                                     "range, if_, while_ or thread group body); a view made from a run-time index "
                                     "lives until the end of that body: make the view where it is used",
                                     t->loc.str()));
  });
}

void Verification::check_operands(const StmtNode& s) {
  DirectOperands ops = direct_operands(s);
  for (const Expr& e : ops.exprs) check_expr(e, s);
  for (const auto& t : ops.tensors) {
    switch (t->kind) {
      case NodeKind::GlobalTensor:
        for (const Expr& e : tensor_exprs(*t)) check_expr(e, s);
        break;
      case NodeKind::SharedTensor:
        if (s.kind != NodeKind::AllocShared) check_shared(std::static_pointer_cast<const SharedTensorNode>(t), s);
        break;
      case NodeKind::RegisterTensor: break;  // the instruction's rule says which it defines and uses
      case NodeKind::TMemoryTensor:
        for (const Expr& e : tensor_exprs(*t)) check_expr(e, s);
        break;
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        TESSEL_CHECK(false, "{} named as a tensor at {}", kind_name(t->kind), s.loc.str());
    }
  }
}

void Verification::use(const RegisterTensor& t, const StmtNode& s) {
  TESSEL_CHECK(t != nullptr, "null tile in {}", kind_name(s.kind));
  if (!defined(t.get()))
    throw Error(s.loc, fmt::format("register tile {} (created at {}) is used outside the scope that created it",
                                   t->name, t->loc.str()));
  if (t->threads != group().count)
    throw Error(s.loc, fmt::format("register tile {} is distributed over {} threads but is used in a thread group "
                                   "of {} threads",
                                   t->name, t->threads, group().count));
}

void Verification::use(const Operand& o, const StmtNode& s) {
  if (o.tensor) use(o.tensor, s);
}

// A layout is empty until infer_layouts resolves it; once there it fits the tile.
void Verification::define(const RegisterTensor& t, const StmtNode& s) {
  TESSEL_CHECK(!t->has_layout() || (t->layout.shape() == t->shape() && t->layout.num_threads() == t->threads),
               "tile {} at {} has a layout of another shape or thread count", t->name, s.loc.str());
  TESSEL_CHECK(t->threads == group().count, "tile defined for {} threads in a group of {} at {}", t->threads,
               group().count, s.loc.str());
  scopes_.back().insert(t.get());
}

void Verification::define(const SharedTensor& t) { scopes_.back().insert(t.get()); }

// ---- Verifier: control flow and dispatch ----

class Verifier {
 public:
  Verifier(const KernelNode& k, Arch arch) : v_(k, arch) {}

  void run() {
    const KernelNode& k = v_.kernel;
    TESSEL_CHECK(k.warps >= 1 && k.warps <= 32, "kernel {} has {} warps", k.name, k.warps);
    TESSEL_CHECK(!k.blocks.empty() && k.blocks.size() <= 3, "kernel {} has {} grid extents", k.name, k.blocks.size());
    check_cluster_target(k, v_.arch);
    v_.scopes_.emplace_back();
    for (const Var& p : k.params) v_.scopes_.back().insert(p.get());
    v_.groups_.push_back(ThreadRange{0, k.threads()});
    stmt(k.body);
    // Grid extents may name values declared at the top of the body until inline_grid_values
    // replaces them by their definitions.
    for (const Expr& b : k.blocks)
      walk_expr(*b, [&](const ExprNode& x) {
        TESSEL_CHECK(x.kind != NodeKind::Var || v_.defined(&x), "grid extent of {} names an undefined variable",
                     k.name);
      });
    if (k.shared_bytes > max_shared_bytes_per_block(v_.arch))
      throw Error(k.loc, fmt::format("kernel {} needs {} bytes of shared memory per block, more than the {} bytes {} "
                                     "allows",
                                     k.name, k.shared_bytes, max_shared_bytes_per_block(v_.arch),
                                     arch_name(v_.arch)));
  }

 private:
  void nested(const Stmt& body) {
    v_.scopes_.emplace_back();
    stmt(body);
    v_.scopes_.pop_back();
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
      return;
#define TESSEL_STMT(Name)                       \
  case NodeKind::Name:                          \
    v_.check_operands(*s);                      \
    return stmt(static_cast<const Name##Node&>(*s));
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name:                                   \
    instruction(*s);                                     \
    return verify_##Name(v_, static_cast<const Name##Node&>(*s));
#include "tessel/ir/nodes.def"
    }
  }

  // What nodes.def says of every instruction: the target that has it and who runs it.
  void instruction(const StmtNode& s) {
    const InstructionTraits& traits = instruction_traits(s.kind);
    if (int(traits.min_target) > int(v_.arch))
      throw Error(s.loc, fmt::format("{} needs {} or newer; the kernel is compiled for {}", call_name(s.kind),
                                     arch_name(traits.min_target), arch_name(v_.arch)));
    const ThreadRange g = v_.group();
    const ThreadRange block{0, v_.kernel.threads()};
    switch (traits.executor) {
      case Executor::Thread: break;
      case Executor::Warp:
        if (!g.whole_warps())
          throw Error(s.loc, fmt::format("{} is executed by whole warps, but it runs in a thread group of {}; make "
                                         "the group start and end at multiples of 32 threads",
                                         call_name(s.kind), g.str()));
        break;
      case Executor::Warpgroup:
        if (!g.whole_warpgroups())
          throw Error(s.loc, fmt::format("{} is executed by whole warpgroups, but it runs in a thread group of {}; "
                                         "make the group start and end at multiples of 128 threads",
                                         call_name(s.kind), g.str()));
        break;
      case Executor::Block:
        if (g != block)
          throw Error(s.loc, fmt::format("{} is executed by every thread of the block, but it runs in a thread group "
                                         "of {} (the block has {}); move it out of the thread group",
                                         call_name(s.kind), g.str(), block.str()));
        break;
    }
    v_.check_operands(s);
  }

  void stmt(const SeqNode& n) {
    for (const Stmt& c : n.stmts) stmt(c);
  }
  void stmt(const DeclareNode& n) { v_.scopes_.back().insert(n.var.get()); }
  void stmt(const AssignNode& n) {
    if (!v_.defined(n.var.get()))
      throw Error(n.loc, fmt::format("assignment to a kernel variable created at {}, after the body that created it (a "
                                     "range, if_, while_ or thread group body) has ended; create it before that body",
                                     n.var->loc.str()));
  }
  void stmt(const ForNode& n) {
    v_.scopes_.emplace_back();
    v_.scopes_.back().insert(n.var.get());
    stmt(n.body);
    v_.scopes_.pop_back();
  }
  void stmt(const IfNode& n) {
    TESSEL_CHECK(n.cond->type.dtype == DType::Bool, "if condition of type {}", n.cond->type.str());
    nested(n.then_case);
    if (n.else_case) nested(n.else_case);
  }
  void stmt(const WhileNode& n) { nested(n.body); }
  void stmt(const ThreadGroupNode& n) {
    const ThreadRange g{n.begin, n.count};
    TESSEL_CHECK(n.begin >= 0 && n.count > 0 && g.end() <= v_.kernel.threads(), "thread group [{}, +{})", n.begin,
                 n.count);
    v_.groups_.push_back(g);
    nested(n.body);
    v_.groups_.pop_back();
  }

  Verification v_;
};

void verify(const KernelNode& k, Arch arch) { Verifier(k, arch).run(); }

}  // namespace tessel::ir
