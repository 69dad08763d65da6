#include "tessel/ir/evaluate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "tessel/ir/mutator.hpp"

namespace tessel::ir {

namespace {

// A NaN keeps its bits through a bitcast, a load and a store, as on the GPU: the simulator holds a
// float type's NaN as an f64 NaN whose leading mantissa bits are the type's mantissa, written
// directly (an f32 -> f64 conversion would quiet a signalling NaN). Formats without NaNs have none.
bool is_nan_pattern(const FloatFormat& f, uint64_t bits) {
  const uint64_t mantissa = bits & ((uint64_t(1) << f.mantissa_bits) - 1);
  const uint64_t exponent = (bits >> f.mantissa_bits) & ((uint64_t(1) << f.exponent_bits) - 1);
  const uint64_t top = (uint64_t(1) << f.exponent_bits) - 1;
  switch (f.specials) {
    case FloatSpecials::ieee: return exponent == top && mantissa != 0;
    case FloatSpecials::single_nan: return exponent == top && mantissa == (uint64_t(1) << f.mantissa_bits) - 1;
    case FloatSpecials::finite: break;
  }
  return false;
}

Scalar nan_from_bits(const FloatFormat& f, uint64_t bits) {
  const uint64_t sign = bits >> (f.exponent_bits + f.mantissa_bits) & 1;
  const uint64_t mantissa = bits & ((uint64_t(1) << f.mantissa_bits) - 1);
  return Scalar{.f = std::bit_cast<double>(sign << 63 | uint64_t(0x7ff) << 52 | mantissa << (52 - f.mantissa_bits))};
}

// The bits of a NaN held as an f64: its sign and leading mantissa bits, quieted if that leaves
// none set; the one NaN of e4m3; the conversion's pattern in a format without NaNs.
uint64_t nan_bits(DType t, const FloatFormat& f, double v) {
  if (f.specials == FloatSpecials::finite) return float_to_bits(t, float(v));
  const uint64_t x = std::bit_cast<uint64_t>(v);
  const uint64_t sign = x >> 63;
  uint64_t mantissa = (x >> (52 - f.mantissa_bits)) & ((uint64_t(1) << f.mantissa_bits) - 1);
  if (f.specials == FloatSpecials::single_nan) mantissa = (uint64_t(1) << f.mantissa_bits) - 1;
  if (mantissa == 0) mantissa = uint64_t(1) << (f.mantissa_bits - 1);  // quiet
  return sign << (f.exponent_bits + f.mantissa_bits) | ((uint64_t(1) << f.exponent_bits) - 1) << f.mantissa_bits |
         mantissa;
}

}  // namespace

uint64_t bits_of(DType t, Scalar v) {
  // A tf32 element is an f32 word, the low 13 mantissa bits included (its value clears them).
  if (t == DType::TF32) return bits_of(DType::F32, v);
  if (t == DType::F64) return std::bit_cast<uint64_t>(v.f);
  if (t == DType::E8M0) return float_to_bits(t, float(v.f));  // exact: a power of two, or NaN as 0xff
  if (is_float(t)) {
    const FloatFormat f = float_format(t);
    if (std::isnan(v.f)) return nan_bits(t, f, v.f);
    // A value the type holds keeps its bits; the conversion would saturate an infinity.
    if (std::isinf(v.f) && f.specials == FloatSpecials::ieee)
      return uint64_t(std::signbit(v.f)) << (f.exponent_bits + f.mantissa_bits) | ((uint64_t(1) << f.exponent_bits) - 1)
                                                                                      << f.mantissa_bits;
    return float_to_bits(t, float(v.f));
  }
  const int bits = dtype_bits(t);
  return bits == 64 ? uint64_t(v.i) : uint64_t(v.i) & ((uint64_t(1) << bits) - 1);
}

Scalar from_bits(DType t, uint64_t bits) {
  if (t == DType::TF32) return from_bits(DType::F32, bits);
  if (t == DType::F64) return Scalar{.f = std::bit_cast<double>(bits)};
  if (t == DType::E8M0) return Scalar{.f = double(float_from_bits(t, uint32_t(bits)))};
  if (is_float(t)) {
    if (is_nan_pattern(float_format(t), bits)) return nan_from_bits(float_format(t), bits);
    return Scalar{.f = double(float_from_bits(t, uint32_t(bits)))};
  }
  return normalize(t, Scalar{.i = int64_t(bits)});
}

Scalar normalize(DType t, Scalar v) {
  if (t == DType::Bool) return Scalar{.i = v.i != 0};
  if (t == DType::TF32) return normalize(DType::F32, v);  // any f32 word is a tf32 element
  if (t == DType::F64) return v;
  if (is_float(t)) {
    // A NaN converted from f32 takes the conversion's bits (dtype.hpp states them).
    if (std::isnan(v.f) && t != DType::F32) return from_bits(t, float_to_bits(t, float(v.f)));
    return Scalar{.f = double(round_to(t, float(v.f)))};
  }
  // An integer wraps at its width: the low bits, sign-extended for a signed type.
  const int bits = dtype_bits(t);
  if (bits == 64) return v;
  const uint64_t low = uint64_t(v.i) & ((uint64_t(1) << bits) - 1);
  const bool negative = is_signed(t) && (low >> (bits - 1) & 1);
  return Scalar{.i = negative ? int64_t(low) - (int64_t(1) << bits) : int64_t(low)};
}

namespace {

// What the generated code's conversion gives (`(T)x` compiles to PTX cvt.rzi): toward zero,
// saturated to the range of the 32-bit integer of the target's signedness (64-bit for the 64-bit
// types); a narrower target then keeps the low bits, as C's integer conversion does. NaN gives 0,
// except in the 64-bit conversions, which give the bits 0x8000000000000000, and in those of an f64
// NaN, which give the bits 0x80000000 (as measured on an H200).
int64_t float_to_integer(double x, DType from, DType to) {
  const bool wide = dtype_bits(to) == 64, sign = is_signed(to);
  if (std::isnan(x)) return wide ? INT64_MIN : from != DType::F64 ? 0 : sign ? INT32_MIN : int64_t(0x80000000u);
  const double low = !sign ? 0.0 : wide ? -9223372036854775808.0 : -2147483648.0;
  const double high =
      !sign ? (wide ? 18446744073709551615.0 : 4294967295.0) : (wide ? 9223372036854775807.0 : 2147483647.0);
  const double t = std::trunc(x);
  if (t <= low) return sign ? (wide ? INT64_MIN : INT32_MIN) : 0;
  if (t >= high) return sign ? (wide ? INT64_MAX : INT32_MAX) : (wide ? int64_t(UINT64_MAX) : int64_t(UINT32_MAX));
  return !sign && wide ? int64_t(uint64_t(t)) : int64_t(t);
}

}  // namespace

namespace {

// What cvt gives a NaN converted between f32, f16 and bf16, as measured on an H200: the target's
// canonical NaN (0x7fffffff, 0x7fff), whatever the sign and payload; bf16 widens to f32 by a shift,
// which keeps its bits, a signalling NaN's too. Empty for the other conversions.
std::optional<Scalar> converted_nan(DType from, DType to, Scalar v) {
  if (from == DType::BF16 && to == DType::F32) return from_bits(to, bits_of(from, v) << 16);
  if (to == DType::F32) return from_bits(to, 0x7fffffffu);
  if (to == DType::F16 || to == DType::BF16) return from_bits(to, 0x7fffu);
  return std::nullopt;
}

}  // namespace

namespace {

// `v` rounded to an f32 toward zero, with the last bit set where that dropped bits: a value that
// rounds to nearest in a type of fewer than 23 mantissa bits as `v` itself would.
float round_to_odd_f32(double v) {
  if (std::isnan(v) || std::isinf(v)) return float(v);
  float t = float(v);
  // float() rounds to nearest: step back toward zero where it rounded away.
  if (std::fabs(double(t)) > std::fabs(v)) t = std::nextafter(t, 0.0f);
  return double(t) == v ? t : std::bit_cast<float>(std::bit_cast<uint32_t>(t) | 1u);
}

}  // namespace

Scalar convert(DType from, DType to, Scalar v) {
  // f64 meets the other floats through f32 (as the generated code converts it): a value rounds to
  // odd on the way to a type narrower than f32, so that it rounds once in all (docs/language.md,
  // "f64").
  if (from == DType::F64 && is_float(to) && to != DType::F64) {
    if (std::isnan(v.f)) {
      // As measured on an H200: to f32 (and tf32) a NaN keeps its sign and leading payload bits,
      // quieted; f16 and bf16 then take their canonical NaN, and fp8 its positive one.
      const uint64_t bits = std::bit_cast<uint64_t>(v.f);
      const uint32_t f32 = uint32_t(bits >> 32 & 0x80000000u) | 0x7fc00000u | uint32_t(bits >> 29 & 0x7fffffu);
      return convert(DType::F32, to, from_bits(DType::F32, to == DType::F32 || to == DType::TF32 ? f32 : 0x7fffffffu));
    }
    if (to == DType::F32) return normalize(to, v);
    return convert(DType::F32, to, Scalar{.f = double(round_to_odd_f32(v.f))});
  }
  // A float widens to f64 through f32, which keeps an f32 NaN's sign and payload (an f32 constant
  // holds its literal's digits until an operation rounds it).
  if (to == DType::F64 && is_float(from) && from != DType::F64) {
    const Scalar f32 = from == DType::F32 ? v : convert(from, DType::F32, v);
    return std::isnan(f32.f) ? f32 : Scalar{.f = double(float(f32.f))};
  }
  // tf32 is f32's word: its value clears the low 13 bits and keeps the rest, a NaN's included; f32
  // rounds to it from its own bits (dtype.hpp), and the other types convert through f32, as the
  // generated code does.
  if (from == DType::TF32 && to != DType::TF32) {
    const Scalar value = from_bits(DType::F32, bits_of(DType::F32, v) & 0xffffe000u);
    return to == DType::F32 ? value : convert(DType::F32, to, value);
  }
  if (from == DType::F32 && to == DType::TF32)
    return from_bits(to, float_to_bits(to, std::bit_cast<float>(uint32_t(bits_of(from, v)))));
  if (to == DType::TF32 && from != DType::TF32) return convert(DType::F32, to, convert(from, DType::F32, v));
  // An fp8 value widens through f16 to f32 (sm_90a's cvt, or the same decoding on sm_80) before it
  // converts further: a NaN becomes f32's canonical one, without its sign or payload. So does
  // e8m0's NaN, which has neither.
  if ((is_fp8(from) || from == DType::E8M0) && std::isnan(v.f) && from != to) {
    const Scalar canonical = from_bits(DType::F32, 0x7fffffffu);
    return to == DType::F32 ? canonical : convert(DType::F32, to, canonical);
  }
  const bool canonical = from == DType::F32 || from == DType::F16 || from == DType::BF16;
  if (canonical && from != to && std::isnan(v.f))
    if (const std::optional<Scalar> nan = converted_nan(from, to, v)) return *nan;
  if (is_float(from) && !is_float(to)) {
    if (to == DType::Bool) return Scalar{.i = v.f != 0.0};
    return normalize(to, Scalar{.i = float_to_integer(v.f, from, to)});
  }
  if (!is_float(from) && is_float(to)) {
    if (to == DType::F64) return Scalar{.f = is_signed(from) ? double(v.i) : double(uint64_t(v.i))};
    // To f32 at once, as the generated code's (float)x rounds a 64-bit integer: once, not
    // through f64.
    const float f = is_signed(from) ? float(v.i) : float(uint64_t(v.i));
    return normalize(to, Scalar{.f = double(f)});
  }
  return normalize(to, v);
}

Scalar convert_to_e8m0(DType from, Scalar v, bool up) {
  if (from == DType::E8M0) return v;
  // An f64 rounds to odd on its way through f32, which keeps whether bits were dropped.
  const float x = from == DType::F64 ? round_to_odd_f32(v.f) : float(convert(from, DType::F32, v).f);
  const e8m0 scale = up ? e8m0::round_up(x) : e8m0::round_down(x);
  return from_bits(DType::E8M0, scale.bits);
}

bool saturates_to(DType t) { return !is_float(t) && t != DType::Bool && dtype_bits(t) <= 32; }

Scalar convert_saturated(DType from, DType to, Scalar v) {
  TESSEL_CHECK(saturates_to(to), "saturating conversion to {}", dtype_name(to));
  const int bits = dtype_bits(to);
  const int64_t low = is_signed(to) ? -(int64_t(1) << (bits - 1)) : 0;
  const int64_t high = is_signed(to) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  int64_t out = 0;
  if (is_float(from)) {
    if (!std::isnan(v.f)) out = int64_t(std::clamp(std::nearbyint(v.f), double(low), double(high)));
    // cvt.rni.{s32,u32}.f64 give an f64 NaN the bits 0x80000000, which the clamp then takes to the
    // target's range.
    else if (from == DType::F64)
      out = std::clamp(is_signed(to) ? int64_t(INT32_MIN) : int64_t(0x80000000u), low, high);
  } else if (is_signed(from)) {
    out = std::clamp(v.i, low, high);
  } else {
    out = int64_t(std::min(uint64_t(v.i), uint64_t(high)));
  }
  return normalize(to, Scalar{.i = out});
}

DType combining_type(DType t) { return is_float(t) && dtype_bits(t) < 32 ? DType::F32 : t; }

namespace {

// Float arithmetic in F, rounded to `t` after each operation: F is f32 for the floats narrower than
// f64 (what the generated code computes in) and f64 for f64, which normalize leaves as it is.
template <class F> Scalar apply_float_binary(BinaryOp op, DType t, F x, F y) {
  switch (op) {
    case BinaryOp::Add: return normalize(t, Scalar{.f = double(x + y)});
    case BinaryOp::Sub: return normalize(t, Scalar{.f = double(x - y)});
    case BinaryOp::Mul: return normalize(t, Scalar{.f = double(x * y)});
    case BinaryOp::Div: return normalize(t, Scalar{.f = double(x / y)});
    case BinaryOp::Mod: return normalize(t, Scalar{.f = double(std::fmod(x, y))});
    case BinaryOp::Min: return Scalar{.f = double(std::fmin(x, y))};
    case BinaryOp::Max: return Scalar{.f = double(std::fmax(x, y))};
    case BinaryOp::Eq: return Scalar{.i = x == y};
    case BinaryOp::Ne: return Scalar{.i = x != y};
    case BinaryOp::Lt: return Scalar{.i = x < y};
    case BinaryOp::Le: return Scalar{.i = x <= y};
    case BinaryOp::Gt: return Scalar{.i = x > y};
    case BinaryOp::Ge: return Scalar{.i = x >= y};
    case BinaryOp::And: return Scalar{.i = x != 0 && y != 0};
    case BinaryOp::Or: return Scalar{.i = x != 0 || y != 0};
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
    case BinaryOp::Shl:
    case BinaryOp::Shr: break;
  }
  throw Error(fmt::format("bitwise operation {} on floating-point values", op_name(op)));
}

template <class F> Scalar apply_float_unary(UnaryOp op, DType t, F x) {
  const F one = 1;
  F r = 0;
  switch (op) {
    case UnaryOp::Neg: r = -x; break;
    case UnaryOp::Not: return Scalar{.i = x == 0};
    case UnaryOp::BitNot: throw Error("bitwise not on a floating-point value");
    case UnaryOp::Exp: r = std::exp(x); break;
    case UnaryOp::Exp2: r = std::exp2(x); break;
    case UnaryOp::Log: r = std::log(x); break;
    case UnaryOp::Sqrt: r = std::sqrt(x); break;
    case UnaryOp::Rsqrt: r = one / std::sqrt(x); break;
    case UnaryOp::Abs: r = std::fabs(x); break;
    case UnaryOp::Log2: r = std::log2(x); break;
    case UnaryOp::Tanh: r = std::tanh(x); break;
    case UnaryOp::Erf: r = std::erf(x); break;
    case UnaryOp::Sigmoid: r = one / (one + std::exp(-x)); break;
    case UnaryOp::Sin: r = std::sin(x); break;
    case UnaryOp::Cos: r = std::cos(x); break;
  }
  return normalize(t, Scalar{.f = double(r)});
}

}  // namespace

Scalar apply_binary(BinaryOp op, DType t, Scalar a, Scalar b) {
  if (t == DType::F64) return apply_float_binary(op, t, a.f, b.f);
  if (is_float(t)) return apply_float_binary(op, t, float(a.f), float(b.f));
  // Unsigned values are held zero-extended (u64: as their bit pattern), so ordering, division and
  // right shifts of unsigned types work on the uint64_t view.
  const bool u = !is_signed(t);
  const int64_t x = a.i, y = b.i;
  const uint64_t ux = uint64_t(x), uy = uint64_t(y);
  auto wrap = [&](int64_t v) { return normalize(t, Scalar{.i = v}); };
  auto less = [&](int64_t p, int64_t q) { return u ? uint64_t(p) < uint64_t(q) : p < q; };
  switch (op) {
    case BinaryOp::Add: return wrap(int64_t(ux + uy));
    case BinaryOp::Sub: return wrap(int64_t(ux - uy));
    case BinaryOp::Mul: return wrap(int64_t(ux * uy));
    case BinaryOp::Div:
      if (y == 0) throw Error("integer division by zero");
      return wrap(u ? int64_t(ux / uy) : x / y);
    case BinaryOp::Mod:
      if (y == 0) throw Error("integer remainder by zero");
      return wrap(u ? int64_t(ux % uy) : x % y);
    case BinaryOp::Min: return wrap(less(y, x) ? y : x);
    case BinaryOp::Max: return wrap(less(x, y) ? y : x);
    case BinaryOp::BitAnd: return wrap(x & y);
    case BinaryOp::BitOr: return wrap(x | y);
    case BinaryOp::BitXor: return wrap(x ^ y);
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      // The language defines shifts by [0, width) only (C++ leaves the others undefined).
      if (y < 0 || y >= dtype_bits(t))
        throw Error(fmt::format("{} of {} by {}: a shift amount must lie in [0, {})", op_name(op), dtype_name(t),
                                u ? fmt::format("{}", uy) : fmt::format("{}", y), dtype_bits(t)));
      if (op == BinaryOp::Shl) return wrap(int64_t(ux << y));
      return wrap(u ? int64_t(ux >> y) : x >> y);
    case BinaryOp::Eq: return Scalar{.i = x == y};
    case BinaryOp::Ne: return Scalar{.i = x != y};
    case BinaryOp::Lt: return Scalar{.i = less(x, y)};
    case BinaryOp::Le: return Scalar{.i = !less(y, x)};
    case BinaryOp::Gt: return Scalar{.i = less(y, x)};
    case BinaryOp::Ge: return Scalar{.i = !less(x, y)};
    case BinaryOp::And: return Scalar{.i = x != 0 && y != 0};
    case BinaryOp::Or: return Scalar{.i = x != 0 || y != 0};
  }
  return Scalar{.i = 0};
}

Scalar apply_unary(UnaryOp op, DType t, Scalar a) {
  if (t == DType::F64) return apply_float_unary(op, t, a.f);
  if (is_float(t)) return apply_float_unary(op, t, float(a.f));
  switch (op) {
    case UnaryOp::Neg: return normalize(t, Scalar{.i = -a.i});
    case UnaryOp::Not: return Scalar{.i = a.i == 0};
    case UnaryOp::BitNot: return normalize(t, Scalar{.i = ~a.i});
    case UnaryOp::Abs: return normalize(t, Scalar{.i = a.i < 0 ? -a.i : a.i});
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Sigmoid:
    case UnaryOp::Sin:
    case UnaryOp::Cos: throw Error(fmt::format("{} needs a floating-point operand", op_name(op)));
  }
  return a;
}

Scalar evaluate(const ExprNode& e, const std::function<Scalar(const ExprNode&)>& lookup) {
  switch (e.kind) {
    case NodeKind::Const: {
      auto& n = static_cast<const ConstNode&>(e);
      return is_float(n.type.dtype) ? Scalar{.f = n.f} : Scalar{.i = n.i};
    }
    case NodeKind::Var:
    case NodeKind::Builtin: return lookup(e);
    case NodeKind::Binary: {
      auto& n = static_cast<const BinaryNode&>(e);
      const Scalar a = evaluate(*n.a, lookup), b = evaluate(*n.b, lookup);
      if (n.a->type.pointer) {
        const int64_t scale = dtype_bytes(n.a->type.dtype);
        return Scalar{.i = n.op == BinaryOp::Sub ? a.i - b.i * scale : a.i + b.i * scale};
      }
      const DType t = promote(n.a->type.dtype, n.b->type.dtype);
      return apply_binary(n.op, t, convert(n.a->type.dtype, t, a), convert(n.b->type.dtype, t, b));
    }
    case NodeKind::Unary: {
      auto& n = static_cast<const UnaryNode&>(e);
      return apply_unary(n.op, n.a->type.dtype, evaluate(*n.a, lookup));
    }
    case NodeKind::Select: {
      auto& n = static_cast<const SelectNode&>(e);
      return evaluate(*n.cond, lookup).i ? evaluate(*n.a, lookup) : evaluate(*n.b, lookup);
    }
    case NodeKind::Cast: {
      auto& n = static_cast<const CastNode&>(e);
      if (n.type.pointer || n.a->type.pointer) return evaluate(*n.a, lookup);  // an address either way
      return convert(n.a->type.dtype, n.type.dtype, evaluate(*n.a, lookup));
    }
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      TESSEL_CHECK(false, "not an expression: {}", kind_name(e.kind));
  }
  return {};
}

Scalar evaluate_at_launch(const ExprNode& e, const KernelNode& k, std::span<const Scalar> values, int multiprocessors) {
  struct Launch {
    const KernelNode* kernel;
    std::span<const Scalar> values;
    int multiprocessors;
  } launch{&k, values, multiprocessors};
  // Captures one pointer, which std::function stores without allocating.
  const std::function<Scalar(const ExprNode&)> lookup = [l = &launch](const ExprNode& x) {
    if (x.kind == NodeKind::Builtin && static_cast<const BuiltinNode&>(x).which == BuiltinKind::Multiprocessors)
      return Scalar{.i = l->multiprocessors};
    for (size_t j = 0; j < l->values.size(); ++j)
      if (l->kernel->params[j].get() == &x) return l->values[j];
    TESSEL_CHECK(false, "kernel {}: a value computed at launch depends on {}, which the launch does not have",
                 l->kernel->name,
                 x.kind == NodeKind::Builtin ? builtin_name(static_cast<const BuiltinNode&>(x).which)
                                             : std::string_view(static_cast<const VarNode&>(x).name));
  };
  return evaluate(e, lookup);
}

std::vector<size_t> call_params_read(const ExprNode& e, const KernelNode& k) {
  std::vector<size_t> read;
  walk_expr(e, [&](const ExprNode& x) {
    for (size_t j = 0; j < k.call_params(); ++j)
      if (&x == &*k.params[j] && std::find(read.begin(), read.end(), j) == read.end()) read.push_back(j);
  });
  return read;
}

}  // namespace tessel::ir
