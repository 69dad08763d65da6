// Kernel tensors by where they live: GlobalTensor (a view of global memory), SharedTensor (a
// tile of the block's shared memory, or a view of one), RegisterTensor (a tile distributed over
// the registers of a thread group by a Layout).
#pragma once

#include <source_location>
#include <vector>

#include "tessel/lang/values.hpp"

namespace tessel {

// A dimension, offset or index: a trace-time int or a run-time kernel value.
class Dim {
 public:
  Dim(int v) : e_(ir::const_int(v)), constant_(true), value_(v) {}
  template <class X>
  requires detail::is_kernel_scalar<X> Dim(const X& x) : e_(detail::to_ir<int32_t>(x)) {}
  const ir::Expr& ir() const { return e_; }
  bool is_constant() const { return constant_; }
  int value() const { return value_; }

 private:
  ir::Expr e_;
  bool constant_ = false;
  int value_ = 0;
};

// An index into the first dimension of a shared tensor. `s[i]` is an operator and cannot take a
// defaulted std::source_location, so the index records where the user wrote it on conversion.
struct ViewIndex {
  ViewIndex(int v, std::source_location loc = std::source_location::current()) : dim(v), loc(SourceLoc::from(loc)) {}
  ViewIndex(const Dim& d, std::source_location loc = std::source_location::current())
      : dim(d), loc(SourceLoc::from(loc)) {}
  template <class X>
  requires detail::is_kernel_scalar<X> ViewIndex(const X& x, std::source_location loc = std::source_location::current())
      : dim(x), loc(SourceLoc::from(loc)) {}

  Dim dim;
  SourceLoc loc;
};

// Which lines L2 evicts first among those a view's accesses bring in (docs/language.md, "Cache
// hints"): evict_first for data used once (the weights a decode GEMM streams), evict_last for data
// read again soon. A hint: every value read and written is the same under each.
enum class CacheHint { normal, evict_first, evict_last };
// Whether L1 keeps the lines a view's loads and stores bring in (docs/language.md, "L1 hints and
// read-only views"):
// no_allocate for data no other access of the block reads again, evict_first and evict_last as for
// L2. A hint, like CacheHint.
enum class L1Hint { normal, no_allocate, evict_first, evict_last };

class GlobalTensor {
 public:
  explicit GlobalTensor(ir::GlobalTensor t) : t_(std::move(t)) {}
  const ir::GlobalTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  // The same view, its loads, stores and TMA copies carrying `hint` (sm_80+); atomics and
  // copy_async through it are refused.
  GlobalTensor with_cache_hint(CacheHint hint) const;
  // The same view, its loads and stores carrying `hint` (sm_80+); atomics, copy_async and TMA
  // copies through it are refused.
  GlobalTensor with_l1_hint(L1Hint hint) const;
  // The same view, its loads going through the non-coherent cache (ld.global.nc): a promise that
  // nothing writes its bytes while the kernel runs, which the simulator checks. Writes through it
  // are refused.
  GlobalTensor read_only(std::source_location loc = std::source_location::current()) const;

 private:
  ir::GlobalTensor t_;
};

class RemoteSharedTensor;

class SharedTensor {
 public:
  explicit SharedTensor(ir::SharedTensor t) : t_(std::move(t)) {}
  const ir::SharedTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  const std::vector<int>& shape() const { return t_->shape; }
  int64_t nbytes() const { return t_->nbytes(); }

  // The sub-tile at `index` along the first dimension (a view; no data moves).
  SharedTensor operator[](const ViewIndex& index) const;
  // The view with the two dimensions swapped (no data moves).
  SharedTensor transpose(std::source_location loc = std::source_location::current()) const;
  // The same elements, in row-major order, as a view of another shape (no data moves). The tensor
  // must be a dense row-major view without a swizzle.
  SharedTensor reshape(std::vector<int> shape, std::source_location loc = std::source_location::current()) const;
  // The tile at the same offset in the shared memory of the cluster's block of rank `rank`
  // (cluster.blockRank; distributed shared memory, sm_90a), for load_shared, store_shared and the
  // atomics.
  RemoteSharedTensor remote(const Dim& rank) const;

 private:
  ir::SharedTensor t_;
};

// A shared tile of another block of the cluster: `partials.remote(peer)`.
class RemoteSharedTensor {
 public:
  RemoteSharedTensor(SharedTensor tile, ir::Expr rank) : tile_(std::move(tile)), rank_(std::move(rank)) {}
  const SharedTensor& tile() const { return tile_; }
  const ir::Expr& rank() const { return rank_; }

 private:
  SharedTensor tile_;
  ir::Expr rank_;
};

class RegisterTensor;

// The tag of a saturating conversion: `r.to<i8>(saturate)`.
struct Saturate {};
inline constexpr Saturate saturate{};
// The rounding of a conversion to e8m0: `amax.to<e8m0>(Rounding::up)`.
using Rounding = ir::Rounding;

// A register tile as the operand of an operator that accepts only tiles (unary minus, assignment);
// records where the user wrote the operator, which cannot take a defaulted std::source_location.
struct TileArgument {
  TileArgument(const RegisterTensor& t, std::source_location loc = std::source_location::current());

  const RegisterTensor& tile;
  SourceLoc loc;
};

// An operand of an elementwise tile operation; records where the user wrote the operation.
struct TileOperand {
  TileOperand(const RegisterTensor& t, std::source_location loc = std::source_location::current());
  template <class L>
  requires detail::is_literal<L> TileOperand(L v, std::source_location loc = std::source_location::current())
      : scalar(std::is_floating_point_v<L> ? ir::const_float(double(v), DType::F32)
                                           : ir::const_int(int64_t(v), detail::cpp_dtype<L>())),
        literal(true),
        loc(SourceLoc::from(loc)) {}
  template <class X>
  requires detail::is_kernel_scalar<X> TileOperand(const X& x,
                                                   std::source_location loc = std::source_location::current())
      : scalar(x.ir()), loc(SourceLoc::from(loc)) {}

  ir::RegisterTensor tensor;
  ir::Expr scalar;
  bool literal = false;  // a C++ literal adopts the element type of the tile it meets
  SourceLoc loc;
};

class RegisterTensor {
 public:
  // An unbound handle; the first assignment binds it.
  RegisterTensor() = default;
  explicit RegisterTensor(ir::RegisterTensor t) : t_(std::move(t)) {}
  // Copies have value semantics: the copy is a new tile holding the same values.
  RegisterTensor(const RegisterTensor& other, std::source_location loc = std::source_location::current());
  RegisterTensor(RegisterTensor&&) = default;
  // Assignment writes the values of `other` into this tile (shapes and dtypes must match; the two
  // tiles share one layout). Assigning to an unbound handle binds it to `other`'s tile.
  RegisterTensor& operator=(const TileArgument& other) &;
  // Declared only so that C++ declares no implicit copy assignment, which would be chosen over the
  // one above and could not know the caller's line.
  RegisterTensor& operator=(const RegisterTensor&) && = delete;

  const ir::RegisterTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  const std::vector<int>& shape() const { return t_->shape(); }

  template <class T> RegisterTensor to(std::source_location loc = std::source_location::current()) const {
    return cast_to(dtype_v<T>, SourceLoc::from(loc));
  }
  // The saturating conversion to an integer type of at most 32 bits (`r.to<i8>(saturate)`):
  // floats round to the nearest, ties to even, NaN to 0, and every value is clamped to T's range.
  template <class T> RegisterTensor to(Saturate, std::source_location loc = std::source_location::current()) const {
    return cast_to(dtype_v<T>, SourceLoc::from(loc), true);
  }
  // The conversion to e8m0, whose rounding of the magnitude to a power of two is stated
  // (`r.to<e8m0>(Rounding::up)`, dtype.hpp).
  template <class T> RegisterTensor to(Rounding r, std::source_location loc = std::source_location::current()) const {
    return cast_to(dtype_v<T>, SourceLoc::from(loc), false, r);
  }
  RegisterTensor cast_to(DType t, SourceLoc loc, bool saturate = false,
                         std::optional<Rounding> rounding = std::nullopt) const;
  // The same bits read as T (docs/language.md, "Element types"): element by element between types
  // of one width; between widths the last dimension regroups (a reg<u32>[n] is a reg<u4>[8 n]).
  // No instruction runs.
  template <class T> RegisterTensor bitcast(std::source_location loc = std::source_location::current()) const {
    return bitcast_to(dtype_v<T>, SourceLoc::from(loc));
  }
  RegisterTensor bitcast_to(DType t, SourceLoc loc) const;
  // The value of a tile of one element (every extent 1) as a kernel value of type T (bool, a
  // 32- or 64-bit integer, float or double), converted as to<T>() would: every thread of the group gets
  // it, by a convert_layout to a layout in which each holds it, so it can steer if_ and loops.
  template <class T> Expr<T> item(std::source_location loc = std::source_location::current()) const {
    return Expr<T>(element_as(std::is_same_v<T, double> ? DType::F64 : detail::cpp_dtype<T>(), SourceLoc::from(loc)));
  }
  ir::Expr element_as(DType t, SourceLoc loc) const;
  // The sub-tile of `shape` at the trace-time `offsets`, as a new tile. No data moves between
  // threads: each keeps the registers that hold the sub-tile, so a slice may cut a dimension only
  // where the layout spreads it over registers (e.g. column blocks of an mma accumulator).
  RegisterTensor slice(std::vector<int> offsets, std::vector<int> shape,
                       std::source_location loc = std::source_location::current()) const;

  friend RegisterTensor operator+(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator-(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator*(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator/(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator%(const TileOperand& a, const TileOperand& b);
  // Bit operations, on integer tiles only.
  friend RegisterTensor operator&(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator|(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator^(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator<<(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator>>(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator~(const TileArgument& x);
  friend RegisterTensor operator==(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator!=(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator<(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator<=(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator>(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator>=(const TileOperand& a, const TileOperand& b);
  // Conditions: bool tiles combined element by element. The second operand (and !'s only one) is
  // taken exactly, so that they win over C++'s own &&, || and !, which would convert a tile with the
  // operator bool below; the first records the user's line.
  friend RegisterTensor operator&&(const TileArgument& a, const RegisterTensor& b);
  friend RegisterTensor operator||(const TileArgument& a, const RegisterTensor& b);
  friend RegisterTensor operator!(const RegisterTensor& x);
  friend RegisterTensor operator-(const TileArgument& x);
  // A tile's elements are known only when the kernel runs, so it cannot steer C++ control flow.
  template <class Never = void> explicit operator bool() const {
    static_assert(detail::never<Never>, TESSEL_TILE_NOT_A_CONDITION);
    return false;
  }

  RegisterTensor& operator+=(const TileOperand& b) { return update(ir::BinaryOp::Add, b); }
  RegisterTensor& operator-=(const TileOperand& b) { return update(ir::BinaryOp::Sub, b); }
  RegisterTensor& operator*=(const TileOperand& b) { return update(ir::BinaryOp::Mul, b); }
  RegisterTensor& operator&=(const TileOperand& b) { return update(ir::BinaryOp::BitAnd, b); }
  RegisterTensor& operator|=(const TileOperand& b) { return update(ir::BinaryOp::BitOr, b); }
  RegisterTensor& operator^=(const TileOperand& b) { return update(ir::BinaryOp::BitXor, b); }

 private:
  void assign(const RegisterTensor& other, const SourceLoc& loc);
  // this = this `op` b, reported at b's line.
  RegisterTensor& update(ir::BinaryOp op, const TileOperand& b);

  ir::RegisterTensor t_;
};

// Builds a tile operation's output tile (used by the instruction set).
RegisterTensor elementwise(ir::BinaryOp op, const TileOperand& a, const TileOperand& b);

}  // namespace tessel
