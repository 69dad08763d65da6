#include "tessel/ir/divisibility.hpp"

#include <algorithm>
#include <vector>

#include "tessel/ir/mutator.hpp"

namespace tessel::ir {

namespace {

// Divisors are powers of two no larger than this, so that products cannot overflow.
constexpr int64_t kLargest = int64_t(1) << 40;

int64_t low_power_of_two(int64_t v) {
  if (v == 0) return 0;
  const uint64_t u = v < 0 ? uint64_t(-(v + 1)) + 1 : uint64_t(v);
  return std::min(int64_t(u & (~u + 1)), kLargest);
}

// Both divide: the smaller power of two (0, the value 0, is divided by anything).
int64_t common(int64_t a, int64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

int64_t product(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kLargest / b ? kLargest : a * b;
}

// A value a variable takes (a declaration's, an assignment's, a loop's start), or what a loop
// adds to it: either way the variable stays a multiple of what divides both it and the value.
struct Definition {
  const VarNode* var;
  Expr value;
};

}  // namespace

Divisibility::Divisibility(const KernelNode& k) {
  std::vector<Definition> defs;
  std::vector<const VarNode*> unknown;
  walk(k.body, [&](const StmtNode& s) {
    switch (s.kind) {
      case NodeKind::Declare: {
        const auto& d = static_cast<const DeclareNode&>(s);
        if (d.init) defs.push_back({d.var.get(), d.init});
        break;
      }
      case NodeKind::Assign: {
        const auto& a = static_cast<const AssignNode&>(s);
        defs.push_back({a.var.get(), a.value});
        break;
      }
      case NodeKind::For: {
        const auto& f = static_cast<const ForNode&>(s);
        defs.push_back({f.var.get(), f.start});
        defs.push_back({f.var.get(), f.step});
        break;
      }
      case NodeKind::Seq:
      case NodeKind::If:
      case NodeKind::While:
      case NodeKind::Break:
      case NodeKind::Continue:
      case NodeKind::Return:
      case NodeKind::ThreadGroup:
        break;
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        TESSEL_CHECK(false, "not a statement: {}", kind_name(s.kind));
        break;
      // What an instruction writes (try_wait's flag, fast_divmod's quotient) is not known.
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        // clang-format on
        for (const Var& v : instruction_results(s)) unknown.push_back(v.get());
        break;
    }
  });
  for (size_t i = 0; i < k.params.size(); ++i) vars_[k.params[i].get()] = k.param_divisor(i);
  // Optimistic start: a defined variable is 0 until a definition says otherwise; each round can
  // only shrink a divisor, so the values settle.
  for (const Definition& d : defs) vars_.emplace(d.var, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (const Definition& d : defs) {
      int64_t& current = vars_[d.var];
      const int64_t value = of(d.value);
      const int64_t next = common(current, value);
      if (next != current) {
        current = next;
        changed = true;
      }
    }
  }
  for (const VarNode* v : unknown) vars_[v] = 1;
}

int64_t Divisibility::of_var(const VarNode* v) const {
  const auto it = vars_.find(v);
  return it == vars_.end() ? 1 : it->second;
}

int64_t Divisibility::of(const Expr& e) const {
  if (!e) return 1;
  if (!e->type.pointer && (is_float(e->type.dtype) || e->type.dtype == DType::Bool)) return 1;
  switch (e->kind) {
    case NodeKind::Const: return low_power_of_two(static_cast<const ConstNode&>(*e).i);
    case NodeKind::Var: return of_var(static_cast<const VarNode*>(e.get()));
    case NodeKind::Cast: {
      // A made pointer's address is divisible by what its author promised and by what is proven.
      const auto& c = static_cast<const CastNode&>(*e);
      return std::max<int64_t>(of(c.a), c.alignment);
    }
    case NodeKind::Select: {
      const auto& s = static_cast<const SelectNode&>(*e);
      return common(of(s.a), of(s.b));
    }
    case NodeKind::Unary: {
      const auto& u = static_cast<const UnaryNode&>(*e);
      return u.op == UnaryOp::Neg ? of(u.a) : 1;
    }
    case NodeKind::Binary: {
      const auto& b = static_cast<const BinaryNode&>(*e);
      const int64_t x = of(b.a), y = of(b.b);
      int64_t shift = 0;
      switch (b.op) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Min:
        case BinaryOp::Max:
        case BinaryOp::BitOr:
        case BinaryOp::BitXor:
        case BinaryOp::Mod: return common(x, y);
        case BinaryOp::Mul: return product(x, y);
        case BinaryOp::BitAnd: return x == 0 || y == 0 ? 0 : std::max(x, y);
        case BinaryOp::Shl:
          if (!as_const_int(b.b, &shift) || shift < 0 || shift > 40) return x == 0 ? 0 : 1;
          return product(x, int64_t(1) << shift);
        case BinaryOp::Shr:
          if (!as_const_int(b.b, &shift) || shift < 0 || x == 0) return x == 0 ? 0 : 1;
          return std::max<int64_t>(1, x >> std::min<int64_t>(shift, 62));
        case BinaryOp::Div:
        case BinaryOp::Eq:
        case BinaryOp::Ne:
        case BinaryOp::Lt:
        case BinaryOp::Le:
        case BinaryOp::Gt:
        case BinaryOp::Ge:
        case BinaryOp::And:
        case BinaryOp::Or: return 1;
      }
      return 1;
    }
    case NodeKind::Builtin:
      return 1;
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      TESSEL_CHECK(false, "not an expression: {}", kind_name(e->kind));
  }
  return 1;
}

bool Divisibility::divides(int64_t n, const Expr& e) const {
  const int64_t d = of(e);
  return d == 0 || (n > 0 && d % n == 0);
}

}  // namespace tessel::ir
