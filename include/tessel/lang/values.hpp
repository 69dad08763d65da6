// Kernel scalar values. `Expr<T>` is a kernel expression of element type T (a temporary);
// `Var<T>` is a mutable kernel variable (Int32, UInt32, UInt64, Float32 are Var aliases);
// `Ptr<T>` is a pointer to global memory. Plain C++ values (int, float, bool) are trace-time
// constants and mix freely with kernel values.
#pragma once

#include <optional>
#include <source_location>
#include <string>
#include <type_traits>

#include "tessel/ir/ir.hpp"
#include "tessel/lang/builder.hpp"

namespace tessel {

template <class T> class Expr;
template <class T> class Var;
template <class T> class Ptr;

namespace detail {
template <class X> struct kernel_elem { using type = void; };
template <class T> struct kernel_elem<Expr<T>> { using type = T; };
template <class T> struct kernel_elem<Var<T>> { using type = T; };
template <class X> using kernel_elem_t = typename kernel_elem<std::remove_cvref_t<X>>::type;
template <class X> inline constexpr bool never = false;
template <class X> inline constexpr bool is_kernel_scalar = !std::is_void_v<kernel_elem_t<X>>;
template <class X> inline constexpr bool is_literal = std::is_arithmetic_v<std::remove_cvref_t<X>>;

template <class T> constexpr DType cpp_dtype() {
  if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else if constexpr (std::is_floating_point_v<T>)
    return DType::F32;
  else if constexpr (std::is_unsigned_v<T> && sizeof(T) <= 4)
    return DType::U32;
  else if constexpr (sizeof(T) <= 4)
    return DType::I32;
  else if constexpr (std::is_unsigned_v<T>)
    return DType::U64;
  else
    return DType::I64;
}

// The element type of a binary operation on A and B: a literal adopts the kernel operand's type;
// two kernel types meet as in C (an unsigned 64-bit operand makes the operation unsigned 64-bit).
template <class A, class B> struct result_elem {
  using TA = kernel_elem_t<A>;
  using TB = kernel_elem_t<B>;
  template <class X, class Y> static auto pick() {
    if constexpr (std::is_void_v<Y>)
      return X{};
    else if constexpr (std::is_void_v<X>)
      return Y{};
    else if constexpr (std::is_same_v<X, Y>)
      return X{};
    else if constexpr (std::is_same_v<X, double> || std::is_same_v<Y, double>)
      return double{};
    else if constexpr (std::is_floating_point_v<X> || std::is_floating_point_v<Y>)
      return float{};
    else if constexpr ((std::is_unsigned_v<X> && sizeof(X) == 8) || (std::is_unsigned_v<Y> && sizeof(Y) == 8))
      return uint64_t{};
    else if constexpr (sizeof(X) == 8 || sizeof(Y) == 8)
      return int64_t{};
    else if constexpr (std::is_unsigned_v<X> || std::is_unsigned_v<Y>)
      return uint32_t{};
    else
      return int32_t{};
  }
  using type = decltype(pick<TA, TB>());
};

// A C++ literal as IR of type `t`, the type of the kernel value or tile (`tile`) it meets. A value
// `t` cannot hold (1.5, 200 or 300 as an i8, 1e6 as an f16, 1000 as an f8e4m3: they would become
// 1, -56, 44, infinity and 448) is refused, at the line `at` where given. An operand of & | ^
// (`keeps_bits`) is its bits: an integer that the width holds read as signed or as unsigned is
// taken (u & -1, t8 & 0xff).
ir::Expr literal_as(DType t, double v, const SourceLoc* at = nullptr, bool tile = false);
// What `v` would become in `t` where `t` cannot hold it, as literal_as refuses it; empty where it can.
std::optional<std::string> literal_change(DType t, double v);
ir::Expr literal_as(DType t, int64_t v, const SourceLoc* at = nullptr, bool tile = false, bool keeps_bits = false);

// IR for a kernel value or literal, with literals given the element type `T` (`KeepsBits`: an
// operand of & | ^, literal_as).
template <class T, bool KeepsBits = false, class X> ir::Expr to_ir(const X& x) {
  if constexpr (is_kernel_scalar<X>) {
    ir::Expr e = x.ir();
    return e->type.dtype == dtype_v<T> ? e : ir::cast(dtype_v<T>, e);
  } else if constexpr (std::is_floating_point_v<X>) {
    return literal_as(dtype_v<T>, double(x));
  } else {
    return literal_as(dtype_v<T>, int64_t(x), nullptr, false, KeepsBits);
  }
}

// Whether `loc` is a line of the C++ standard library's headers (libstdc++ or libc++).
inline bool in_standard_library(const SourceLoc& loc) { return loc.file.find("/include/c++/") != std::string::npos; }

// A value assigned to a Var<T>, as IR of type T. An assignment is an operator and cannot take a
// defaulted std::source_location, so the value records where the user wrote it on conversion.
template <class T> struct AssignedValue {
  template <class X>
  requires(is_kernel_scalar<X> || is_literal<X>)
      AssignedValue(const X& x, std::source_location loc = std::source_location::current())
      : value(to_ir<T>(x)), loc(SourceLoc::from(loc)) {}

  ir::Expr value;
  SourceLoc loc;
};
}  // namespace detail

// What a C++ `if` on a kernel value says (a static_assert message must be a literal).
#define TESSEL_NOT_A_CONDITION                                                                                   \
  "a kernel value cannot steer C++ control flow (an `if`, `while` or `?:` on it): its value is known only when " \
  "the kernel runs; write if_(cond, [&] { ... }), while_(...) or select(cond, a, b)"

// What rsqrt, erf or abs given a Precision says.
#define TESSEL_ONE_FORM                                                                                       \
  "rsqrt, erf and abs have a single form, so they take no Precision: only exp, exp2, log, log2, sqrt, tanh, " \
  "sigmoid, sin and cos have a fast one (docs/language.md, Math functions)"

// The same for a register tile.
#define TESSEL_TILE_NOT_A_CONDITION                                                                              \
  "a register tile cannot steer C++ control flow (an `if`, `while` or `?:` on it): its elements are known only " \
  "when the kernel runs; choose elements with where(cond, a, b); to branch on a tile's value, reduce it to one " \
  "element and write if_(t.item<bool>(), [&] { ... })"

namespace detail {
// What a tile reduction or scan refuses where it takes its dimension (an int).
template <class V>
concept NotADimension = std::is_floating_point_v<V> || is_kernel_scalar<V>;
}  // namespace detail

// What a reduction or scan given a value for its dimension says.
#define TESSEL_VALUE_FOR_A_DIMENSION                                                                             \
  "the second argument of sum, max, min, cumsum, cummax and cummin is the dimension to reduce or scan along, a " \
  "C++ int; the element-wise larger or smaller of a tile and a value is maximum(tile, value) or "                \
  "minimum(tile, value)"

// e8m0 is a tile element type: a scale, which takes part in no arithmetic and is converted with a
// stated rounding (RegisterTensor::to<e8m0>(Rounding)). Kernel values have neither.
#define TESSEL_NO_E8M0_VALUES                                                                                      \
  "e8m0 is an element type of tiles only: scales take part in no arithmetic, and a conversion to e8m0 states its " \
  "rounding (t.to<e8m0>(Rounding::up)); hold a scale as a float kernel value, or its bits as a uint32_t"

template <class T> class Expr {
  static_assert(!std::is_same_v<T, e8m0>, TESSEL_NO_E8M0_VALUES);

 public:
  using element_type = T;
  explicit Expr(ir::Expr e) : e_(std::move(e)) {}
  template <class L>
  requires detail::is_literal<L> Expr(L v) : e_(detail::to_ir<T>(v)) {}
  const ir::Expr& ir() const { return e_; }
  // The value converted to U, as cast<U>(x) and a tile's to<U>() convert.
  template <class U> Expr<U> to() const { return Expr<U>(ir::cast(dtype_v<U>, e_)); }
  // A kernel value is known only when the kernel runs, so it cannot steer C++ control flow.
  template <class Never = void> explicit operator bool() const {
    static_assert(detail::never<Never>, TESSEL_NOT_A_CONDITION);
    return false;
  }

 private:
  ir::Expr e_;
};

template <class T> class Var {
  static_assert(!std::is_same_v<T, e8m0>, TESSEL_NO_E8M0_VALUES);

 public:
  using element_type = T;
  Var(std::source_location loc = std::source_location::current()) : Var(T{}, loc) {}
  template <class X>
  requires(detail::is_kernel_scalar<X> || detail::is_literal<X>)
      Var(const X& init, std::source_location loc = std::source_location::current()) {
    declare(detail::to_ir<T>(init), SourceLoc::from(loc));
  }
  // A copy made inside the standard library (a std::vector growing) is declared at the original's
  // line: the library's line would mean nothing to the user.
  Var(const Var& other, std::source_location loc = std::source_location::current()) {
    const SourceLoc at = SourceLoc::from(loc);
    declare(other.ir(), detail::in_standard_library(at) && other.var_ ? other.var_->loc : at);
  }
  Var(Var&&) = default;

  // Assignments are emitted at the line where the user wrote them.
  Var& operator=(const detail::AssignedValue<T>& v) & { return assign(v.value, v.loc); }
  // Declared only so that C++ declares no implicit copy assignment, which would be chosen over the
  // one above and could not know the caller's line.
  Var& operator=(const Var&) && = delete;

  Var& operator+=(const detail::AssignedValue<T>& v) { return update(ir::BinaryOp::Add, v); }
  Var& operator-=(const detail::AssignedValue<T>& v) { return update(ir::BinaryOp::Sub, v); }
  Var& operator*=(const detail::AssignedValue<T>& v) { return update(ir::BinaryOp::Mul, v); }
  Var& operator^=(const detail::AssignedValue<T>& v) { return update(ir::BinaryOp::BitXor, v); }

  operator Expr<T>() const { return Expr<T>(ir()); }
  // The value converted to U, as cast<U>(x) and a tile's to<U>() convert.
  template <class U> Expr<U> to() const { return Expr<U>(ir::cast(dtype_v<U>, ir())); }
  ir::Expr ir() const { return var_; }
  const ir::Var& var() const { return var_; }
  template <class Never = void> explicit operator bool() const {
    static_assert(detail::never<Never>, TESSEL_NOT_A_CONDITION);
    return false;
  }

  // A handle to an existing variable (a parameter or loop variable): declares nothing.
  static Var bind(ir::Var v) { return Var(std::move(v), Bind{}); }

 private:
  struct Bind {};
  Var(ir::Var v, Bind) : var_(std::move(v)) {}
  void declare(ir::Expr init, SourceLoc loc) {
    Builder& b = Builder::current(loc);
    var_ = ir::make_var(ir::Type{dtype_v<T>}, "v", loc);
    b.emit(ir::make<ir::DeclareNode>(loc, var_, std::move(init)));
  }
  Var& assign(ir::Expr v, const SourceLoc& loc) {
    Builder::current(loc).emit(ir::make<ir::AssignNode>(loc, var_, std::move(v)));
    return *this;
  }
  Var& update(ir::BinaryOp op, const detail::AssignedValue<T>& v) {
    return assign(ir::binary(op, ir(), v.value), v.loc);
  }
  ir::Var var_;
};

#undef TESSEL_NOT_A_CONDITION

using Int32 = Var<int32_t>;
using UInt32 = Var<uint32_t>;
using UInt64 = Var<uint64_t>;  // e.g. an mbarrier word
using Float32 = Var<float>;
using Float64 = Var<double>;

// A pointer to global memory holding T elements: a run-time parameter, or one made from a 64-bit
// address by as_pointer.
template <class T> class Ptr {
 public:
  using element_type = T;
  // A handle to a pointer expression of the kernel (a parameter, or a made pointer).
  static Ptr bind(ir::Expr pointer) {
    TESSEL_CHECK(pointer->type.pointer, "a Ptr bound to a {}", pointer->type.str());
    return Ptr(std::move(pointer));
  }
  ir::Expr ir() const { return pointer_; }
  // The pointer's address, a 64-bit kernel value: to store it in a table, or to view the same bytes
  // as elements of another type (as_pointer<uint32_t>(p.address(), 16)).
  Expr<uint64_t> address(std::source_location loc = std::source_location::current()) const {
    return Expr<uint64_t>(ir::address_of(pointer_, SourceLoc::from(loc)));
  }

 private:
  explicit Ptr(ir::Expr pointer) : pointer_(std::move(pointer)) {}
  ir::Expr pointer_;
};

namespace detail {
Expr<uint64_t> address_value(ir::Expr address, const SourceLoc& loc);  // a u64 or i64 address as a u64
ir::Expr made_pointer(DType t, const Expr<uint64_t>& address, int alignment, const SourceLoc& loc);
}  // namespace detail

// A pointer to T elements at `address`, a 64-bit kernel value that the kernel loaded (an entry of a
// table of pointers: atomic.load<uint64_t>(table, {i})) or computed (another pointer's address()).
// Its author promises it `alignment`-byte aligned: a power of two, at least an element; 16 lets
// accesses through it move vectors. The simulator checks the promise at each access inside a view,
// and so does debug mode on the GPU.
template <class T> Ptr<T> as_pointer(const Expr<uint64_t>& address, int alignment = element_alignment(dtype_v<T>),
                                     std::source_location loc = std::source_location::current()) {
  return Ptr<T>::bind(detail::made_pointer(dtype_v<T>, address, alignment, SourceLoc::from(loc)));
}
template <class T> Ptr<T> as_pointer(const Expr<int64_t>& address, int alignment = element_alignment(dtype_v<T>),
                                     std::source_location loc = std::source_location::current()) {
  return as_pointer<T>(detail::address_value(address.ir(), SourceLoc::from(loc)), alignment, loc);
}

// ---- operators ---------------------------------------------------------------------------

template <class A, class B>
concept KernelOperands = (detail::is_kernel_scalar<A> || detail::is_kernel_scalar<B>)&&(
    detail::is_kernel_scalar<A> || detail::is_literal<A>)&&(detail::is_kernel_scalar<B> || detail::is_literal<B>);

#define TESSEL_ARITH_OP(sym, op)                                                            \
  template <class A, class B>                                                               \
  requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type>              \
  operator sym(const A& a, const B& b) {                                                    \
    using R = typename detail::result_elem<A, B>::type;                                     \
    return Expr<R>(ir::binary(ir::BinaryOp::op, detail::to_ir<R>(a), detail::to_ir<R>(b))); \
  }
TESSEL_ARITH_OP(+, Add)
TESSEL_ARITH_OP(-, Sub)
TESSEL_ARITH_OP(*, Mul)
TESSEL_ARITH_OP(/, Div)
TESSEL_ARITH_OP(%, Mod)
#undef TESSEL_ARITH_OP

namespace detail {
// Two kernel integers of different signedness: C compares them as unsigned, so -1 < 0u is false.
template <class A, class B> constexpr bool mixes_signedness() {
  using TA = kernel_elem_t<A>;
  using TB = kernel_elem_t<B>;
  if constexpr (std::is_void_v<TA> || std::is_void_v<TB>)
    return false;
  else if constexpr (!std::is_integral_v<TA> || !std::is_integral_v<TB> || std::is_same_v<TA, bool> ||
                     std::is_same_v<TB, bool>)
    return false;
  else
    return std::is_signed_v<TA> != std::is_signed_v<TB>;
}
}  // namespace detail

// Bit operations take integer values only; a float's bits are reached with bitcast. & | ^ of a
// signed and an unsigned kernel integer are refused, as on tiles; a shift takes its amount of
// either signedness.
#define TESSEL_BIT_OP(sym, op, shift)                                                                           \
  template <class A, class B>                                                                                   \
  requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type>                                  \
  operator sym(const A& a, const B& b) {                                                                        \
    using R = typename detail::result_elem<A, B>::type;                                                         \
    static_assert(std::is_integral_v<R>,                                                                        \
                  "bit operations (& | ^ << >> ~) need integer kernel values; reinterpret a float's bits with " \
                  "bitcast<T>()");                                                                              \
    static_assert(shift || !detail::mixes_signedness<A, B>(),                                                   \
                  "& | ^ of a signed and an unsigned kernel integer: convert one with cast<T>() to the type "   \
                  "the operation should take, as tiles require");                                               \
    return Expr<R>(ir::binary(ir::BinaryOp::op, detail::to_ir<R, !shift>(a), detail::to_ir<R, !shift>(b)));     \
  }
TESSEL_BIT_OP(&, BitAnd, false)
TESSEL_BIT_OP(|, BitOr, false)
TESSEL_BIT_OP(^, BitXor, false)
TESSEL_BIT_OP(<<, Shl, true)
TESSEL_BIT_OP(>>, Shr, true)
#undef TESSEL_BIT_OP

template <class A>
requires detail::is_kernel_scalar<A> Expr<detail::kernel_elem_t<A>>
operator~(const A& a) {
  using R = detail::kernel_elem_t<A>;
  static_assert(std::is_integral_v<R>,
                "bit operations (& | ^ << >> ~) need integer kernel values; reinterpret a float's bits with "
                "bitcast<T>()");
  return Expr<R>(ir::unary(ir::UnaryOp::BitNot, a.ir()));
}

#define TESSEL_COMPARE_OP(sym, op)                                                                           \
  template <class A, class B>                                                                                \
  requires KernelOperands<A, B> Expr<bool>                                                                   \
  operator sym(const A& a, const B& b) {                                                                     \
    static_assert(!detail::mixes_signedness<A, B>(),                                                         \
                  "comparing a signed with an unsigned kernel integer would compare them as unsigned (as C " \
                  "does, so -1 > 0u); convert one with cast<T>() to the type the comparison should take");   \
    using R = typename detail::result_elem<A, B>::type;                                                      \
    return Expr<bool>(ir::binary(ir::BinaryOp::op, detail::to_ir<R>(a), detail::to_ir<R>(b)));               \
  }
TESSEL_COMPARE_OP(==, Eq)
TESSEL_COMPARE_OP(!=, Ne)
TESSEL_COMPARE_OP(<, Lt)
TESSEL_COMPARE_OP(<=, Le)
TESSEL_COMPARE_OP(>, Gt)
TESSEL_COMPARE_OP(>=, Ge)
#undef TESSEL_COMPARE_OP

template <class A, class B>
requires KernelOperands<A, B> Expr<bool>
operator&&(const A& a, const B& b) {
  return Expr<bool>(ir::binary(ir::BinaryOp::And, detail::to_ir<bool>(a), detail::to_ir<bool>(b)));
}
template <class A, class B>
requires KernelOperands<A, B> Expr<bool>
operator||(const A& a, const B& b) {
  return Expr<bool>(ir::binary(ir::BinaryOp::Or, detail::to_ir<bool>(a), detail::to_ir<bool>(b)));
}
template <class A>
requires detail::is_kernel_scalar<A> Expr<bool>
operator!(const A& a) { return Expr<bool>(ir::unary(ir::UnaryOp::Not, detail::to_ir<bool>(a))); }
template <class A>
requires detail::is_kernel_scalar<A> Expr<detail::kernel_elem_t<A>>
operator-(const A& a) { return Expr<detail::kernel_elem_t<A>>(ir::unary(ir::UnaryOp::Neg, a.ir())); }

// Integer ceiling division, the usual way to size a grid.
template <class A, class B>
requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type> cdiv(const A& a, const B& b) {
  return (a + b - 1) / b;
}
inline int cdiv(int a, int b) { return (a + b - 1) / b; }

// The smaller and the larger of two kernel values, e.g. a persistent grid: min(tiles, multiprocessors).
template <class A, class B>
requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type> min(const A& a, const B& b) {
  using R = typename detail::result_elem<A, B>::type;
  return Expr<R>(ir::binary(ir::BinaryOp::Min, detail::to_ir<R>(a), detail::to_ir<R>(b)));
}
template <class A, class B>
requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type> max(const A& a, const B& b) {
  using R = typename detail::result_elem<A, B>::type;
  return Expr<R>(ir::binary(ir::BinaryOp::Max, detail::to_ir<R>(a), detail::to_ir<R>(b)));
}

// Trace-time conditional selection of kernel values: cond ? a : b.
namespace detail {
template <class A, class B> struct select_elem : result_elem<A, B> {};
template <class A, class B>
requires(is_literal<A>&& is_literal<B>) struct select_elem<A, B> {
  using type = std::conditional_t<std::is_same_v<A, bool> && std::is_same_v<B, bool>, bool,
                                  decltype(std::declval<A>() + std::declval<B>())>;
};
}  // namespace detail

template <class C, class A, class B>
requires(detail::is_kernel_scalar<C> &&
         (detail::is_kernel_scalar<A> || detail::is_literal<A>)&&(detail::is_kernel_scalar<B> || detail::is_literal<B>))
    Expr<typename detail::select_elem<A, B>::type> select(const C& cond, const A& a, const B& b) {
  using R = typename detail::select_elem<A, B>::type;
  return Expr<R>(ir::select(detail::to_ir<bool>(cond), detail::to_ir<R>(a), detail::to_ir<R>(b)));
}

template <class T, class X>
requires detail::is_kernel_scalar<X> Expr<T> cast(const X& x) { return Expr<T>(ir::cast(dtype_v<T>, x.ir())); }

}  // namespace tessel
