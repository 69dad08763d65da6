// Per-warp execution of scalar statements and control flow, lane by lane under an active mask.
#include "machine.hpp"

namespace tessel::sim {

Lanes Warp::eval(const ir::Expr& e, Mask mask) {
  Lanes out{};
  switch (e->kind) {
    case ir::NodeKind::Builtin:
      if (static_cast<const ir::BuiltinNode&>(*e).which == ir::BuiltinKind::ThreadIdxX) {
        for (int l = 0; l < 32; ++l) out[size_t(l)].i = thread(l);
        return out;
      }
      [[fallthrough]];
    case ir::NodeKind::Const: {
      const ir::Scalar v = ir::evaluate(*e, [&](const ir::ExprNode& b) -> ir::Scalar {
        switch (static_cast<const ir::BuiltinNode&>(b).which) {
          case ir::BuiltinKind::BlockIdxX: return {.i = cta.block[0]};
          case ir::BuiltinKind::BlockIdxY: return {.i = cta.block[1]};
          case ir::BuiltinKind::BlockIdxZ: return {.i = cta.block[2]};
          case ir::BuiltinKind::GridDimX: return {.i = cta.launch.grid[0]};
          case ir::BuiltinKind::GridDimY: return {.i = cta.launch.grid[1]};
          case ir::BuiltinKind::GridDimZ: return {.i = cta.launch.grid[2]};
          case ir::BuiltinKind::Multiprocessors:
          case ir::BuiltinKind::ThreadIdxX: break;
          case ir::BuiltinKind::ClusterBlockIdxX:
          case ir::BuiltinKind::ClusterBlockIdxY:
          case ir::BuiltinKind::ClusterBlockIdxZ:
          case ir::BuiltinKind::ClusterDimX:
          case ir::BuiltinKind::ClusterDimY:
          case ir::BuiltinKind::ClusterDimZ:
          case ir::BuiltinKind::ClusterIdxX:
          case ir::BuiltinKind::ClusterIdxY:
          case ir::BuiltinKind::ClusterIdxZ:
          case ir::BuiltinKind::ClusterBlockRank:
            return {.i = ir::cluster_builtin_value(static_cast<const ir::BuiltinNode&>(b).which, cta.block,
                                                   cta.kernel.cluster)};
        }
        TESSEL_CHECK(false, "multiprocessors in kernel {} was not made a parameter by lowering", cta.kernel.name);
      });
      out.fill(v);
      return out;
    }
    case ir::NodeKind::Var: {
      auto* v = static_cast<const ir::VarNode*>(e.get());
      auto p = cta.params.find(v);
      if (p != cta.params.end()) {
        out.fill(p->second);
        return out;
      }
      auto it = vars_.find(v);
      TESSEL_CHECK(it != vars_.end(), "variable {} read before its declaration", v->name);
      return it->second;
    }
    case ir::NodeKind::Binary: {
      auto& n = static_cast<const ir::BinaryNode&>(*e);
      const Lanes a = eval(n.a, mask), b = eval(n.b, mask);
      const DType t = ir::promote(n.a->type.dtype, n.b->type.dtype);
      for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        if (n.a->type.pointer) {
          const int64_t scale = dtype_bytes(n.a->type.dtype);
          out[l].i = n.op == ir::BinaryOp::Sub ? a[l].i - b[l].i * scale : a[l].i + b[l].i * scale;
          continue;
        }
        try {
          out[l] =
              ir::apply_binary(n.op, t, ir::convert(n.a->type.dtype, t, a[l]), ir::convert(n.b->type.dtype, t, b[l]));
        } catch (const Error& err) {
          throw Error(n.loc, fmt::format("{} in thread {} of block {}", err.message(), thread(l), cta.block_name()));
        }
      }
      return out;
    }
    case ir::NodeKind::Unary: {
      auto& n = static_cast<const ir::UnaryNode&>(*e);
      const Lanes a = eval(n.a, mask);
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1) out[l] = ir::apply_unary(n.op, n.a->type.dtype, a[l]);
      return out;
    }
    case ir::NodeKind::Select: {
      auto& n = static_cast<const ir::SelectNode&>(*e);
      const Lanes c = eval(n.cond, mask);
      Mask yes = 0;
      for (int l = 0; l < 32; ++l)
        if ((mask >> l & 1) && c[l].i) yes |= 1u << l;
      const Lanes a = yes ? eval(n.a, yes) : Lanes{}, b = (mask & ~yes) ? eval(n.b, mask & ~yes) : Lanes{};
      for (int l = 0; l < 32; ++l) out[l] = (yes >> l & 1) ? a[l] : b[l];
      return out;
    }
    case ir::NodeKind::Cast: {
      auto& n = static_cast<const ir::CastNode&>(*e);
      const Lanes a = eval(n.a, mask);
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1)
          out[l] = n.type.pointer || n.a->type.pointer ? a[l] : ir::convert(n.a->type.dtype, n.type.dtype, a[l]);
      return out;
    }
    // Statements, reached only through a broken invariant.
// clang-format off
#define TESSEL_TENSOR(Name) case ir::NodeKind::Name:
#define TESSEL_STMT(Name) case ir::NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case ir::NodeKind::Name:
#include "tessel/ir/nodes.def"
    // clang-format on
    break;
  }
  TESSEL_CHECK(false, "not an expression: {}", ir::kind_name(e->kind));
  return out;
}

void Warp::assign(const ir::VarNode* var, const Lanes& values, Mask mask) {
  Lanes& slot = vars_[var];
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1) slot[l] = values[l];
}

void Warp::exec(const ir::Stmt& s, Mask mask) {
  try {
    exec_here(s, mask);
  } catch (const Error& e) {
    // Expressions built by operators carry no location: report the statement's.
    if (e.loc().known() || !s->loc.known()) throw;
    throw Error(s->loc, e.message());
  }
}

namespace {

// A loop's entry on a warp's stack of loops, for as long as the loop runs.
struct LoopScope {
  explicit LoopScope(std::vector<Warp::LoopLanes>& loops) : loops(loops) { loops.push_back({}); }
  ~LoopScope() { loops.pop_back(); }
  LoopScope(const LoopScope&) = delete;
  LoopScope& operator=(const LoopScope&) = delete;
  std::vector<Warp::LoopLanes>& loops;
};

}  // namespace

void Warp::exec_here(const ir::Stmt& s, Mask mask) {
  switch (s->kind) {
    case ir::NodeKind::Seq:
      for (const ir::Stmt& c : static_cast<const ir::SeqNode&>(*s).stmts) {
        // Lanes that left the loop, ended its pass or returned skip the rest of the body.
        if (!loops.empty()) mask &= ~(loops.back().left | loops.back().passed);
        mask &= ~returned;
        if (!mask) return;
        exec(c, mask);
      }
      return;
    case ir::NodeKind::Declare:
    case ir::NodeKind::Assign: {
      const bool declare = s->kind == ir::NodeKind::Declare;
      const ir::Var& var =
          declare ? static_cast<const ir::DeclareNode&>(*s).var : static_cast<const ir::AssignNode&>(*s).var;
      const ir::Expr& value =
          declare ? static_cast<const ir::DeclareNode&>(*s).init : static_cast<const ir::AssignNode&>(*s).value;
      const Lanes v = eval(value, mask);
      Lanes& slot = vars_[var.get()];
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1) slot[l] = ir::convert(value->type.dtype, var->type.dtype, v[l]);
      return;
    }
    case ir::NodeKind::For: {
      auto& n = static_cast<const ir::ForNode&>(*s);
      const LoopScope loop(loops);
      const Lanes start = eval(n.start, mask);
      Lanes& i = vars_[n.var.get()];
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1) i[l] = start[l];
      for (;;) {
        const Lanes stop = eval(n.stop, mask), step = eval(n.step, mask);
        Mask active = 0;
        for (int l = 0; l < 32; ++l) {
          if (!(mask >> l & 1)) continue;
          if (step[l].i == 0) throw Error(n.loc, "range: step is 0 at run time");
          if (step[l].i > 0 ? i[l].i < stop[l].i : i[l].i > stop[l].i) active |= 1u << l;
        }
        if (!active) return;
        exec(n.body, active);
        active &= ~(loops.back().left | returned);
        loops.back().passed = 0;
        Lanes& iv = vars_[n.var.get()];
        const Lanes step_now = eval(n.step, active);
        for (int l = 0; l < 32; ++l)
          if (active >> l & 1) iv[l] = ir::normalize(DType::I32, ir::Scalar{.i = iv[l].i + step_now[l].i});
        mask = active;
      }
    }
    case ir::NodeKind::If: {
      auto& n = static_cast<const ir::IfNode&>(*s);
      const Lanes c = eval(n.cond, mask);
      Mask yes = 0;
      for (int l = 0; l < 32; ++l)
        if ((mask >> l & 1) && c[l].i) yes |= 1u << l;
      if (yes) exec(n.then_case, yes);
      if (n.else_case && (mask & ~yes)) exec(n.else_case, mask & ~yes);
      return;
    }
    case ir::NodeKind::While: {
      auto& n = static_cast<const ir::WhileNode&>(*s);
      const LoopScope loop(loops);
      for (;;) {
        const Lanes c = eval(n.cond, mask);
        Mask active = 0;
        for (int l = 0; l < 32; ++l)
          if ((mask >> l & 1) && c[l].i) active |= 1u << l;
        if (!active) return;
        exec(n.body, active);
        mask = active & ~(loops.back().left | returned);
        loops.back().passed = 0;
      }
    }
    case ir::NodeKind::Break:
      TESSEL_CHECK(!loops.empty(), "break outside a loop");
      loops.back().left |= mask;
      return;
    case ir::NodeKind::Continue:
      TESSEL_CHECK(!loops.empty(), "continue outside a loop");
      loops.back().passed |= mask;
      return;
    case ir::NodeKind::Return: cta.threads_returned(*this, mask, s->loc); return;
    case ir::NodeKind::ThreadGroup: {
      auto& n = static_cast<const ir::ThreadGroupNode&>(*s);
      Mask inside = 0;
      for (int l = 0; l < 32; ++l)
        if (thread(l) >= n.begin && thread(l) < n.begin + n.count) inside |= 1u << l;
      if (!(mask & inside)) return;
      groups.push_back({n.begin, n.count});
      exec(n.body, mask & inside);
      groups.pop_back();
      return;
    }
// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call)                                           \
  case ir::NodeKind::Name:                                           \
    if (cta.wgmma.watching()) cta.wgmma.before_instruction(*this, *s); \
    exec_##Name(*this, static_cast<const ir::Name##Node&>(*s), mask); \
    return;
#include "tessel/ir/nodes.def"
    // Expressions, reached only through a broken invariant.
#define TESSEL_EXPR(Name) case ir::NodeKind::Name:
#define TESSEL_TENSOR(Name) case ir::NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      TESSEL_CHECK(false, "not a statement: {}", ir::kind_name(s->kind));
  }
}

}  // namespace tessel::sim
