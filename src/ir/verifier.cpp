// The verifier: scopes, thread groups, targets and executors for every statement, then the
// instruction's own rule (instructions/<family>.cpp). It runs on the traced kernel and after every
// pass, so what a user can cause is reported at the user's line before any pass relies on it.
#include "tessel/ir/verifier.hpp"

#include <algorithm>
#include <map>

#include "instructions/verification.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/target_limits.hpp"

namespace tessel::ir {

int64_t max_shared_bytes_per_block(Arch arch) { return target_limits(arch).max_shared_bytes_per_block; }

// ---- Verification: scopes and operands ----

namespace {

// A statement as the user writes it, for messages.
std::string_view statement_name(NodeKind k) {
  switch (k) {
    case NodeKind::Declare:
    case NodeKind::Assign: return "a kernel variable's assignment";
    case NodeKind::For: return "range";
    case NodeKind::If: return "if_";
    case NodeKind::While: return "while_";
    case NodeKind::Break: return "break_()";
    case NodeKind::Continue: return "continue_()";
    case NodeKind::Return: return "return_()";
    case NodeKind::ThreadGroup: return "thread_group";
    default: return call_name(k);
  }
}

// An expression's type is the one its constructor in ir.hpp computes from its operands, so that
// the emitter and the simulator, which read only the result type, agree with the operands' values.
void check_type(const ExprNode& x, const StmtNode& s) {
  const auto where = [&] { return fmt::format("{} at {}", kind_name(s.kind), s.loc.str()); };
  switch (x.kind) {
    case NodeKind::Binary: {
      const auto& n = static_cast<const BinaryNode&>(x);
      TESSEL_CHECK(n.a && n.b, "binary expression without an operand in {}", where());
      const Type want = is_comparison(n.op) || n.op == BinaryOp::And || n.op == BinaryOp::Or ? Type{DType::Bool}
                        : n.a->type.pointer                                                  ? n.a->type
                                            : Type{promote(n.a->type.dtype, n.b->type.dtype)};
      TESSEL_CHECK(n.type == want && !n.b->type.pointer, "{}({}, {}) typed {} in {}", op_name(n.op), n.a->type.str(),
                   n.b->type.str(), n.type.str(), where());
      return;
    }
    case NodeKind::Unary: {
      const auto& n = static_cast<const UnaryNode&>(x);
      TESSEL_CHECK(n.a, "unary expression without an operand in {}", where());
      const Type want = n.op == UnaryOp::Not ? Type{DType::Bool} : n.a->type;
      TESSEL_CHECK(n.type == want, "{}({}) typed {} in {}", op_name(n.op), n.a->type.str(), n.type.str(), where());
      return;
    }
    case NodeKind::Select: {
      const auto& n = static_cast<const SelectNode&>(x);
      TESSEL_CHECK(n.cond && n.a && n.b, "select without an operand in {}", where());
      TESSEL_CHECK(n.cond->type == Type{DType::Bool} && n.a->type == n.type && n.b->type == n.type,
                   "select({}, {}, {}) typed {} in {}", n.cond->type.str(), n.a->type.str(), n.b->type.str(),
                   n.type.str(), where());
      return;
    }
    case NodeKind::Cast: {
      const auto& c = static_cast<const CastNode&>(x);
      TESSEL_CHECK(c.a, "cast without an operand in {}", where());
      // Pointers convert only to and from their 64-bit addresses, and only a made pointer is aligned.
      const auto address = [](const Type& t) { return !t.pointer && (t.dtype == DType::U64 || t.dtype == DType::I64); };
      TESSEL_CHECK(!(c.type.pointer || c.a->type.pointer) || (c.type.pointer ? address(c.a->type) : address(c.type)),
                   "a cast of {} to {} in {}", c.a->type.str(), c.type.str(), where());
      TESSEL_CHECK(c.type.pointer ? c.alignment > 0 && (c.alignment & (c.alignment - 1)) == 0 : c.alignment == 0,
                   "a cast to {} aligned to {} bytes in {}", c.type.str(), c.alignment, where());
      return;
    }
    case NodeKind::Builtin:
      TESSEL_CHECK(x.type == Type{DType::I32}, "builtin typed {} in {}", x.type.str(), where());
      return;
    case NodeKind::Const:
    case NodeKind::Var:
      return;
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      TESSEL_CHECK(false, "{} used as an expression in {}", kind_name(x.kind), where());
  }
}

// Shapes, strides, offsets, indices and loop bounds are integers.
void check_integer(const Expr& e, std::string_view what, const StmtNode& s) {
  TESSEL_CHECK(e && !e->type.pointer && !is_float(e->type.dtype) && e->type.dtype != DType::Bool,
               "{} of type {} in {} at {}", what, e ? e->type.str() : "null", kind_name(s.kind), s.loc.str());
}

}  // namespace

void Verification::check_expr(const Expr& e, const StmtNode& s) {
  TESSEL_CHECK(e != nullptr, "null expression in {} at {}", kind_name(s.kind), s.loc.str());
  walk_expr(*e, [&](const ExprNode& x) {
    check_type(x, s);
    if (x.kind == NodeKind::Var && !position_.defined(&x))
      throw Error(s.loc, fmt::format("a kernel value created at {} is used here, outside the body that created it "
                                     "(a range, if_, while_ or thread group body); values live until the end of "
                                     "that body: create it before the body (e.g. Var<int32_t> v = 0;) and assign "
                                     "it inside",
                                     x.loc.str()));
  });
}

void Verification::check_shared(const SharedTensor& t, const StmtNode& s) {
  if (auto it = freed_.find(t->allocation()); it != freed_.end())
    throw Error(s.loc, fmt::format("{} names the shared tile allocated at {}, which free_shared at {} freed: its "
                                   "bytes may belong to another tile from there on; free it after its last use",
                                   call_name(s.kind), t->allocation()->loc.str(), it->second->str()));
  if (!t->root) {
    if (!position_.defined(t.get()))
      throw Error(s.loc, fmt::format("{} names the shared tile allocated at {} outside the body that allocated it (a "
                                     "range, if_, while_ or thread group body); a tile lives until the end of that "
                                     "body: allocate it before the body",
                                     call_name(s.kind), t->loc.str()));
    return;
  }
  check_shared(t->root, s);
  check_integer(t->offset, "a shared view's offset", s);
  walk_expr(*t->offset, [&](const ExprNode& x) {
    if (x.kind == NodeKind::Var && !position_.defined(&x))
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
      case NodeKind::GlobalTensor: {
        const auto& g = static_cast<const GlobalTensorNode&>(*t);
        TESSEL_CHECK(g.ptr->type.pointer, "global view over a {} in {} at {}", g.ptr->type.str(), kind_name(s.kind),
                     s.loc.str());
        for (const Expr& e : g.shape) check_integer(e, "a global view's extent", s);
        for (const Expr& e : g.strides) check_integer(e, "a global view's stride", s);
        for (const Expr& e : tensor_exprs(*t)) check_expr(e, s);
        break;
      }
      case NodeKind::SharedTensor:
        if (s.kind != NodeKind::AllocShared) check_shared(std::static_pointer_cast<const SharedTensorNode>(t), s);
        break;
      case NodeKind::RegisterTensor: break;  // the instruction's rule says which it defines and uses
      case NodeKind::TMemoryTensor:
        for (const Expr& e : tensor_exprs(*t)) check_expr(e, s);
        break;
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        // clang-format on
        TESSEL_CHECK(false, "{} named as a tensor at {}", kind_name(t->kind), s.loc.str());
    }
  }
}

void Verification::use(const RegisterTensor& t, const StmtNode& s) {
  TESSEL_CHECK(t != nullptr, "null tile in {}", kind_name(s.kind));
  if (!position_.defined(t.get()))
    throw Error(s.loc,
                fmt::format("the register tile created at {} is used outside the scope that created it", t->loc.str()));
  if (t->threads != group().count)
    throw Error(s.loc, fmt::format("the register tile created at {} is distributed over {} threads but is used in "
                                   "a thread group of {} threads",
                                   t->loc.str(), t->threads, group().count));
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
  position_.define(t.get());
}

void Verification::define(const SharedTensor& t) { position_.define(t.get()); }

void Verification::free(const SharedTensor& t, const StmtNode& s) {
  if (t->root)
    throw Error(s.loc, fmt::format("free_shared of a view of the shared tile allocated at {}; free the tile that "
                                   "shared_tensor returned",
                                   t->allocation()->loc.str()));
  if (!position_.defined_here(t.get()))
    throw Error(s.loc, fmt::format("free_shared of the shared tile allocated at {}, outside the body that allocated "
                                   "it (a range, if_, while_ or thread group body); free a tile in the body that "
                                   "allocated it, so that it is freed once for each time it is allocated",
                                   t->loc.str()));
  freed_.emplace(t.get(), &s.loc);
}

// ---- Verifier: control flow and dispatch ----

class Verifier : public Visitor {
 public:
  Verifier(const KernelNode& k, Arch arch) : v_(k, arch, position()) {}

  void run() {
    const KernelNode& k = v_.kernel;
    TESSEL_CHECK(k.warps >= 1 && k.warps <= 32, "kernel {} has {} warps", k.name, k.warps);
    TESSEL_CHECK(!k.blocks.empty() && k.blocks.size() <= 3, "kernel {} has {} grid extents", k.name, k.blocks.size());
    check_cluster_target(k, v_.arch);
    visit_kernel(k);
    // Grid extents may name values declared at the top of the body until inline_launch_values
    // replaces them by their definitions.
    for (const Expr& b : k.blocks)
      walk_expr(*b, [&](const ExprNode& x) {
        TESSEL_CHECK(x.kind != NodeKind::Var || position().defined(&x), "grid extent of {} names an undefined variable",
                     k.name);
      });
    if (k.shared_bytes > max_shared_bytes_per_block(v_.arch)) too_much_shared_memory(k);
    check_resident_blocks(k);
  }

  // attrs.resident_blocks blocks must also fit in a multiprocessor's shared memory.
  void check_resident_blocks(const KernelNode& k) const {
    const TargetLimits& limits = target_limits(v_.arch);
    if (k.resident_blocks <= 1 || k.shared_bytes <= 0) return;
    const int64_t per_block = k.shared_bytes + limits.shared_bytes_reserved_per_block;
    const int64_t fit = limits.shared_bytes_per_sm / per_block;
    if (fit < k.resident_blocks)
      throw Error(k.resident_blocks_loc,
                  fmt::format("kernel {}: attrs.resident_blocks is {}, but a multiprocessor of {} holds only {} "
                              "blocks of {} bytes of shared memory ({} bytes, {} of them kept for each block)",
                              k.name, k.resident_blocks, arch_name(v_.arch), fit, k.shared_bytes,
                              limits.shared_bytes_per_sm, limits.shared_bytes_reserved_per_block));
  }

  // Reported at the largest allocation, with every allocation's share, largest first.
  [[noreturn]] void too_much_shared_memory(const KernelNode& k) const {
    std::vector<const SharedTensorNode*> allocations;
    std::map<const SharedTensorNode*, const SourceLoc*> freed;  // whose bytes later tiles may take
    walk(k.body, [&](const StmtNode& s) {
      if (s.kind == NodeKind::AllocShared) allocations.push_back(static_cast<const AllocSharedNode&>(s).tensor.get());
      if (s.kind == NodeKind::FreeShared) freed[static_cast<const FreeSharedNode&>(s).tensor.get()] = &s.loc;
    });
    std::stable_sort(allocations.begin(), allocations.end(),
                     [](const SharedTensorNode* a, const SharedTensorNode* b) { return a->nbytes() > b->nbytes(); });
    std::vector<std::string> shares;
    for (const SharedTensorNode* t : allocations) {
      const auto free = freed.find(t);
      shares.push_back(fmt::format("{} bytes for {} ({}[{}] at {}{})", t->nbytes(),
                                   t->owner.empty() ? "a shared tensor" : t->owner, dtype_name(t->dtype),
                                   fmt::join(t->shape, ", "), t->loc.str(),
                                   free == freed.end() ? "" : fmt::format(", freed at {}", free->second->str())));
    }
    throw Error(
        allocations.empty() ? k.loc : allocations.front()->loc,
        fmt::format("kernel {} needs {} bytes of shared memory per block, more than the {} bytes {} allows: {}", k.name,
                    k.shared_bytes, max_shared_bytes_per_block(v_.arch), arch_name(v_.arch), fmt::join(shares, ", ")));
  }

 private:
// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  void visit(const Name##Node& n) override {                   \
    instruction(n);                                            \
    verify_##Name(v_, n);                                      \
  }
#include "tessel/ir/nodes.def"
  // clang-format on

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

  void visit(const SeqNode& n) override {
    for (size_t i = 0; i + 1 < n.stmts.size(); ++i)
      if (n.stmts[i]->kind == NodeKind::Return) {
        const StmtNode& next = *n.stmts[i + 1];
        if (next.kind == NodeKind::TraceMark && !static_cast<const TraceMarkNode&>(next).begin)
          throw Error(n.stmts[i]->loc,
                      fmt::format("return_() at the end of trace_region \"{}\" (at {}): the threads that return "
                                  "leave before the region's end is recorded, so their region never ends; return_ "
                                  "after the trace_region",
                                  static_cast<const TraceMarkNode&>(next).name, next.loc.str()));
        throw Error(next.loc, fmt::format("{} is never reached: the return_() at {} before it in the same body ends "
                                          "every thread that comes this way",
                                          statement_name(next.kind), n.stmts[i]->loc.str()));
      }
    Visitor::visit(n);
  }
  void visit(const DeclareNode& n) override {
    v_.check_operands(n);
    Visitor::visit(n);
  }
  void visit(const AssignNode& n) override {
    v_.check_operands(n);
    if (!position().defined(n.var.get()))
      throw Error(n.loc, fmt::format("assignment to a kernel variable created at {}, after the body that created it (a "
                                     "range, if_, while_ or thread group body) has ended; create it before that body",
                                     n.var->loc.str()));
  }
  void visit(const ForNode& n) override {
    v_.check_operands(n);
    for (const Expr& e : {n.start, n.stop, n.step}) check_integer(e, "a loop bound", n);
    Visitor::visit(n);
  }
  void visit(const IfNode& n) override {
    v_.check_operands(n);
    TESSEL_CHECK(n.cond->type.dtype == DType::Bool, "if condition of type {}", n.cond->type.str());
    Visitor::visit(n);
  }
  void visit(const WhileNode& n) override {
    v_.check_operands(n);
    TESSEL_CHECK(n.cond->type.dtype == DType::Bool, "while condition of type {}", n.cond->type.str());
    Visitor::visit(n);
  }
  void visit(const BreakNode&) override { TESSEL_CHECK(position().loops() > 0, "break outside a loop"); }
  void visit(const ContinueNode&) override { TESSEL_CHECK(position().loops() > 0, "continue outside a loop"); }
  void visit(const ReturnNode&) override {}
  void visit(const ThreadGroupNode& n) override {
    TESSEL_CHECK(n.begin >= 0 && n.count > 0 && n.begin + n.count <= v_.kernel.threads(), "thread group [{}, +{})",
                 n.begin, n.count);
    Visitor::visit(n);
  }

  Verification v_;
};

void verify(const KernelNode& k, Arch arch) { Verifier(k, arch).run(); }

}  // namespace tessel::ir
