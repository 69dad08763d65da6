#include "host_expressions.hpp"

#include <fmt/format.h>

namespace tessel::aot {

namespace {

// The (bits, signedness) of an integer type as the helpers take them; bool is 1 bit.
std::string type_args(DType t) {
  return fmt::format("{}, {}", t == DType::Bool ? 1 : dtype_bits(t), is_signed(t) ? "true" : "false");
}

[[noreturn]] void cannot(const ir::ExprNode& e, const ir::KernelNode& k, const std::string& what) {
  throw Error(e.loc, fmt::format("aot: the launch of kernel {} computes {}, which an exported launcher does not "
                                 "compute yet; export a kernel whose grid, views and divisors are integers",
                                 k.name, what));
}

std::string binary_op(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::Add: return "Add";
    case ir::BinaryOp::Sub: return "Sub";
    case ir::BinaryOp::Mul: return "Mul";
    case ir::BinaryOp::Div: return "Div";
    case ir::BinaryOp::Mod: return "Mod";
    case ir::BinaryOp::Min: return "Min";
    case ir::BinaryOp::Max: return "Max";
    case ir::BinaryOp::BitAnd: return "BitAnd";
    case ir::BinaryOp::BitOr: return "BitOr";
    case ir::BinaryOp::BitXor: return "BitXor";
    case ir::BinaryOp::Shl: return "Shl";
    case ir::BinaryOp::Shr: return "Shr";
    case ir::BinaryOp::Eq: return "Eq";
    case ir::BinaryOp::Ne: return "Ne";
    case ir::BinaryOp::Lt: return "Lt";
    case ir::BinaryOp::Le: return "Le";
    case ir::BinaryOp::Gt: return "Gt";
    case ir::BinaryOp::Ge: return "Ge";
    case ir::BinaryOp::And: return "And";
    case ir::BinaryOp::Or: return "Or";
  }
  return "?";
}

}  // namespace

std::string host_expression(const ir::ExprNode& e, const ir::KernelNode& k) {
  if (is_float(e.type.dtype) && !e.type.pointer) cannot(e, k, fmt::format("a {} value", dtype_name(e.type.dtype)));
  switch (e.kind) {
    case ir::NodeKind::Const: return fmt::format("int64_t({})", static_cast<const ir::ConstNode&>(e).i);
    case ir::NodeKind::Var:
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.params[i].get() == &e) return fmt::format("tessel_v[{}]", i);
      cannot(e, k, fmt::format("a value of the kernel's body ({})", static_cast<const ir::VarNode&>(e).name));
    case ir::NodeKind::Builtin:
      if (static_cast<const ir::BuiltinNode&>(e).which == ir::BuiltinKind::Multiprocessors)
        return "int64_t(multiprocessors_)";
      cannot(e, k, std::string(ir::builtin_name(static_cast<const ir::BuiltinNode&>(e).which)));
    case ir::NodeKind::Binary: {
      const auto& n = static_cast<const ir::BinaryNode&>(e);
      const std::string a = host_expression(*n.a, k), b = host_expression(*n.b, k);
      if (n.a->type.pointer) {
        const int scale = dtype_bytes(n.a->type.dtype);
        return fmt::format("({} {} {} * {})", a, n.op == ir::BinaryOp::Sub ? "-" : "+", b, scale);
      }
      const DType t = ir::promote(n.a->type.dtype, n.b->type.dtype);
      const auto converted = [&](DType from, const std::string& x) {
        return from == t ? x : fmt::format("tessel_aot::detail::wrap({}, {})", x, type_args(t));
      };
      return fmt::format("tessel_aot::detail::binary(tessel_aot::detail::Op::{}, {}, {}, {})", binary_op(n.op),
                         type_args(t), converted(n.a->type.dtype, a), converted(n.b->type.dtype, b));
    }
    case ir::NodeKind::Unary: {
      const auto& n = static_cast<const ir::UnaryNode&>(e);
      const std::string a = host_expression(*n.a, k), t = type_args(n.a->type.dtype);
      switch (n.op) {
        case ir::UnaryOp::Neg: return fmt::format("tessel_aot::detail::wrap(-{}, {})", a, t);
        case ir::UnaryOp::Not: return fmt::format("int64_t({} == 0)", a);
        case ir::UnaryOp::BitNot: return fmt::format("tessel_aot::detail::wrap(~{}, {})", a, t);
        case ir::UnaryOp::Abs: return fmt::format("tessel_aot::detail::wrap({0} < 0 ? -{0} : {0}, {1})", a, t);
        default: cannot(e, k, std::string(ir::op_name(n.op)));
      }
    }
    case ir::NodeKind::Select: {
      const auto& n = static_cast<const ir::SelectNode&>(e);
      return fmt::format("({} ? {} : {})", host_expression(*n.cond, k), host_expression(*n.a, k),
                         host_expression(*n.b, k));
    }
    case ir::NodeKind::Cast: {
      const auto& n = static_cast<const ir::CastNode&>(e);
      if (n.type.pointer || n.a->type.pointer) return host_expression(*n.a, k);  // an address either way
      if (is_float(n.a->type.dtype)) cannot(e, k, fmt::format("a conversion from {}", dtype_name(n.a->type.dtype)));
      return fmt::format("tessel_aot::detail::wrap({}, {})", host_expression(*n.a, k), type_args(n.type.dtype));
    }
    default: cannot(e, k, std::string(ir::kind_name(e.kind)));
  }
}

std::string launcher_runtime() {
  return R"(#include <cuda.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tessel_aot {

// What a launcher refuses, in the words of tessel's JIT.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A device allocation and the elements it holds (bytes of a packed 4-bit type hold two each);
// elements -1: not known, and the launcher checks no view against it.
struct Buffer {
  CUdeviceptr data = 0;
  int64_t elements = -1;
};

namespace detail {

inline void check(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  const char* text = nullptr;
  cuGetErrorString(r, &text);
  throw Error(what + ": " + (text ? text : "CUDA error " + std::to_string(int(r))));
}

// An integer of `bits` bits (1: bool), wrapped from 64 bits; unsigned values zero-extended.
inline int64_t wrap(int64_t x, int bits, bool is_signed) {
  if (bits == 1) return x != 0;
  if (bits == 64) return x;
  const uint64_t mask = (uint64_t(1) << bits) - 1, u = uint64_t(x) & mask;
  return is_signed && (u >> (bits - 1)) ? int64_t(u) - int64_t(mask) - 1 : int64_t(u);
}

enum class Op { Add, Sub, Mul, Div, Mod, Min, Max, BitAnd, BitOr, BitXor, Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge, And, Or };

inline int64_t binary(Op op, int bits, bool is_signed, int64_t x, int64_t y) {
  const uint64_t ux = uint64_t(x), uy = uint64_t(y);
  const auto less = [&](int64_t p, int64_t q) { return is_signed ? p < q : uint64_t(p) < uint64_t(q); };
  const auto w = [&](int64_t r) { return wrap(r, bits, is_signed); };
  switch (op) {
    case Op::Add: return w(int64_t(ux + uy));
    case Op::Sub: return w(int64_t(ux - uy));
    case Op::Mul: return w(int64_t(ux * uy));
    case Op::Div:
      if (y == 0) throw Error("integer division by zero in a value the launch computes");
      return w(is_signed ? x / y : int64_t(ux / uy));
    case Op::Mod:
      if (y == 0) throw Error("integer remainder by zero in a value the launch computes");
      return w(is_signed ? x % y : int64_t(ux % uy));
    case Op::Min: return w(less(y, x) ? y : x);
    case Op::Max: return w(less(x, y) ? y : x);
    case Op::BitAnd: return w(x & y);
    case Op::BitOr: return w(x | y);
    case Op::BitXor: return w(x ^ y);
    case Op::Shl: return w(int64_t(ux << (y & 63)));
    case Op::Shr: return w(is_signed ? x >> (y & 63) : int64_t(ux >> (y & 63)));
    case Op::Eq: return x == y;
    case Op::Ne: return x != y;
    case Op::Lt: return less(x, y);
    case Op::Le: return !less(y, x);
    case Op::Gt: return less(y, x);
    case Op::Ge: return !less(x, y);
    case Op::And: return x != 0 && y != 0;
    case Op::Or: return x != 0 || y != 0;
  }
  return 0;
}

// fast_divmod's magic numbers of divisor d > 0: l = ceil(log2 d), m = ((2^l - d) << 32) / d + 1.
inline void divisor_magic(uint32_t d, int64_t* multiplier, int64_t* log2) {
  uint32_t l = 0;
  while ((uint64_t(1) << l) < d) ++l;
  *multiplier = int64_t(uint32_t((((uint64_t(1) << l) - d) << 32) / d + 1));
  *log2 = l;
}

}  // namespace detail
}  // namespace tessel_aot
)";
}

}  // namespace tessel::aot
