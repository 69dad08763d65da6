#include "tessel/ir/verifier.hpp"

#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/target_limits.hpp"

namespace tessel::ir {

int64_t max_shared_bytes_per_block(Arch arch) { return target_limits(arch).max_shared_bytes_per_block; }

Arch min_arch(NodeKind instruction) {
  TESSEL_CHECK(is_instruction(instruction), "{} is not an instruction", kind_name(instruction));
  // Every instruction so far (SIMT, shared memory, barriers) exists on sm_80.
  return Arch::Sm80;
}

namespace {

class Verifier {
 public:
  Verifier(const KernelNode& k, Arch arch) : kernel_(k), arch_(arch) {}

  void run() {
    const Arch arch = arch_;
    TESSEL_CHECK(kernel_.warps >= 1 && kernel_.warps <= 32, "kernel {} has {} warps", kernel_.name, kernel_.warps);
    TESSEL_CHECK(!kernel_.blocks.empty() && kernel_.blocks.size() <= 3, "kernel {} has {} grid extents", kernel_.name,
                 kernel_.blocks.size());
    scopes_.emplace_back();
    for (const Var& p : kernel_.params) scopes_.back().insert(p.get());
    for (const Expr& b : kernel_.blocks) check_expr(b, "grid extent");
    groups_.push_back(kernel_.threads());
    stmt(kernel_.body);
    if (kernel_.shared_bytes > max_shared_bytes_per_block(arch))
      throw Error(kernel_.loc, fmt::format("kernel {} needs {} bytes of shared memory per block, more than the {} "
                                           "bytes {} allows",
                                           kernel_.name, kernel_.shared_bytes, max_shared_bytes_per_block(arch),
                                           arch_name(arch)));
  }

 private:
  bool defined(const void* p) const {
    for (const auto& s : scopes_)
      if (s.count(p)) return true;
    return false;
  }

  void check_expr(const Expr& e, std::string_view where) {
    TESSEL_CHECK(e != nullptr, "null expression in {}", where);
    walk_expr(*e, where);
  }

  void walk_expr(const ExprNode& e, std::string_view where) {
    switch (e.kind) {
      case NodeKind::Var:
        TESSEL_CHECK(defined(&e), "variable {} used in {} outside its scope", print(Expr(std::shared_ptr<const ExprNode>(), &e)), where);
        break;
      case NodeKind::Binary: {
        auto& n = static_cast<const BinaryNode&>(e);
        walk_expr(*n.a, where);
        walk_expr(*n.b, where);
        break;
      }
      case NodeKind::Unary: walk_expr(*static_cast<const UnaryNode&>(e).a, where); break;
      case NodeKind::Cast: walk_expr(*static_cast<const CastNode&>(e).a, where); break;
      case NodeKind::Select: {
        auto& n = static_cast<const SelectNode&>(e);
        walk_expr(*n.cond, where);
        walk_expr(*n.a, where);
        walk_expr(*n.b, where);
        break;
      }
      default: break;
    }
  }

  void use_tile(const RegisterTensor& t, const StmtNode& s) {
    TESSEL_CHECK(t != nullptr, "null tile in {}", kind_name(s.kind));
    if (!defined(t.get()))
      throw Error(s.loc, fmt::format("register tile {} (created at {}) is used outside the scope that created it",
                                     t->name, t->loc.str()));
    if (t->threads != groups_.back())
      throw Error(s.loc, fmt::format("register tile {} is distributed over {} threads but is used in a thread group "
                                     "of {} threads",
                                     t->name, t->threads, groups_.back()));
  }

  // A layout is empty until infer_layouts resolves it; once there it fits the tile.
  void define_tile(const RegisterTensor& t, const StmtNode& s) {
    TESSEL_CHECK(!t->has_layout() || (t->layout.shape() == t->shape() && t->layout.num_threads() == t->threads),
                 "tile {} at {} has a layout of another shape or thread count", t->name, s.loc.str());
    TESSEL_CHECK(t->threads == groups_.back(), "tile defined for {} threads in a group of {} at {}", t->threads,
                 groups_.back(), s.loc.str());
    scopes_.back().insert(t.get());
  }

  void use_operand(const Operand& o, const StmtNode& s) {
    if (o.tensor) use_tile(o.tensor, s);
    else check_expr(o.scalar, kind_name(s.kind));
  }

  void nested(const Stmt& body) {
    scopes_.emplace_back();
    stmt(body);
    scopes_.pop_back();
  }

  void stmt(const Stmt& s) {
    for (const Expr& e : direct_exprs(*s)) check_expr(e, kind_name(s->kind));
    if (is_instruction(s->kind) && int(min_arch(s->kind)) > int(arch_))
      throw Error(s->loc, fmt::format("{} needs {} or newer; the kernel is compiled for {}", kind_name(s->kind),
                                      arch_name(min_arch(s->kind)), arch_name(arch_)));
    switch (s->kind) {
      case NodeKind::Seq:
        for (const Stmt& c : static_cast<const SeqNode&>(*s).stmts) stmt(c);
        break;
      case NodeKind::Declare: {
        auto& n = static_cast<const DeclareNode&>(*s);
        scopes_.back().insert(n.var.get());
        break;
      }
      case NodeKind::Assign: {
        auto& n = static_cast<const AssignNode&>(*s);
        TESSEL_CHECK(defined(n.var.get()), "assignment to an undeclared variable at {}", s->loc.str());
        break;
      }
      case NodeKind::For: {
        auto& n = static_cast<const ForNode&>(*s);
        scopes_.emplace_back();
        scopes_.back().insert(n.var.get());
        stmt(n.body);
        scopes_.pop_back();
        break;
      }
      case NodeKind::If: {
        auto& n = static_cast<const IfNode&>(*s);
        TESSEL_CHECK(n.cond->type.dtype == DType::Bool, "if condition of type {}", n.cond->type.str());
        nested(n.then_case);
        if (n.else_case) nested(n.else_case);
        break;
      }
      case NodeKind::While: nested(static_cast<const WhileNode&>(*s).body); break;
      case NodeKind::ThreadGroup: {
        auto& n = static_cast<const ThreadGroupNode&>(*s);
        TESSEL_CHECK(n.begin >= 0 && n.count > 0 && n.begin + n.count <= kernel_.threads(), "thread group [{}, +{})",
                     n.begin, n.count);
        groups_.push_back(n.count);
        nested(n.body);
        groups_.pop_back();
        break;
      }
      case NodeKind::Sync: break;
      case NodeKind::AllocShared: scopes_.back().insert(static_cast<const AllocSharedNode&>(*s).tensor.get()); break;
      case NodeKind::AllocRegister: define_tile(static_cast<const AllocRegisterNode&>(*s).out, *s); break;
      case NodeKind::LoadGlobal: define_tile(static_cast<const LoadGlobalNode&>(*s).out, *s); break;
      case NodeKind::StoreGlobal: use_tile(static_cast<const StoreGlobalNode&>(*s).src, *s); break;
      case NodeKind::LoadShared: define_tile(static_cast<const LoadSharedNode&>(*s).out, *s); break;
      case NodeKind::StoreShared: use_tile(static_cast<const StoreSharedNode&>(*s).src, *s); break;
      case NodeKind::ElementwiseBinary: {
        auto& n = static_cast<const ElementwiseBinaryNode&>(*s);
        use_operand(n.a, *s);
        use_operand(n.b, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::ElementwiseUnary: {
        auto& n = static_cast<const ElementwiseUnaryNode&>(*s);
        use_tile(n.a, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::Where: {
        auto& n = static_cast<const WhereNode&>(*s);
        use_operand(n.cond, *s);
        use_operand(n.a, *s);
        use_operand(n.b, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::Fma: {
        auto& n = static_cast<const FmaNode&>(*s);
        use_operand(n.a, *s);
        use_operand(n.b, *s);
        use_tile(n.c, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::Dot: {
        auto& n = static_cast<const DotNode&>(*s);
        TESSEL_CHECK(n.warps_m == 0 || n.warps_m * n.warps_n * 32 == groups_.back(),
                     "dot at {} split over {}x{} warps in a group of {}", s->loc.str(), n.warps_m, n.warps_n,
                     groups_.back());
        use_tile(n.a, *s);
        use_tile(n.b, *s);
        use_tile(n.c, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::CastTensor: {
        auto& n = static_cast<const CastTensorNode&>(*s);
        use_tile(n.a, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::Reduce: {
        auto& n = static_cast<const ReduceNode&>(*s);
        use_tile(n.a, *s);
        define_tile(n.out, *s);
        break;
      }
      case NodeKind::CopyRegister: {
        auto& n = static_cast<const CopyRegisterNode&>(*s);
        use_tile(n.src, *s);
        use_tile(n.dst, *s);
        break;
      }
      case NodeKind::AnnotateLayout: use_tile(static_cast<const AnnotateLayoutNode&>(*s).tile, *s); break;
      case NodeKind::PrintTensor: use_tile(static_cast<const PrintTensorNode&>(*s).tensor, *s); break;
      case NodeKind::CopyAsync: {
        auto& n = static_cast<const CopyAsyncNode&>(*s);
        TESSEL_CHECK(n.layout.num_threads() <= groups_.back(), "copy_async split over {} threads in a group of {}",
                     n.layout.num_threads(), groups_.back());
        TESSEL_CHECK(n.src->dtype == n.dst->dtype, "copy_async from {} to {}", dtype_name(n.src->dtype),
                     dtype_name(n.dst->dtype));
        break;
      }
      case NodeKind::CopyAsyncCommit:
      case NodeKind::CopyAsyncWait: break;
      default: TESSEL_CHECK(false, "unexpected statement {}", kind_name(s->kind));
    }
  }

  const KernelNode& kernel_;
  const Arch arch_;
  std::vector<std::set<const void*>> scopes_;
  std::vector<int> groups_;
};

}  // namespace

void verify(const KernelNode& k, Arch arch) { Verifier(k, arch).run(); }

}  // namespace tessel::ir
