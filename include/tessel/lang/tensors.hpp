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
  template <class X> requires detail::is_kernel_scalar<X>
  Dim(const X& x) : e_(detail::to_ir<int32_t>(x)) {}
  const ir::Expr& ir() const { return e_; }
  bool is_constant() const { return constant_; }
  int value() const { return value_; }

 private:
  ir::Expr e_;
  bool constant_ = false;
  int value_ = 0;
};

class GlobalTensor {
 public:
  explicit GlobalTensor(ir::GlobalTensor t) : t_(std::move(t)) {}
  const ir::GlobalTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }

 private:
  ir::GlobalTensor t_;
};

class SharedTensor {
 public:
  explicit SharedTensor(ir::SharedTensor t) : t_(std::move(t)) {}
  const ir::SharedTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  const std::vector<int>& shape() const { return t_->shape; }
  int64_t nbytes() const { return t_->nbytes(); }

  // The sub-tile at `index` along the first dimension (a view; no data moves).
  SharedTensor operator[](const Dim& index) const;
  // The view with the two dimensions swapped (no data moves).
  SharedTensor transpose(std::source_location loc = std::source_location::current()) const;

 private:
  ir::SharedTensor t_;
};

class RegisterTensor;

// An operand of an elementwise tile operation; records where the user wrote the operation.
struct TileOperand {
  TileOperand(const RegisterTensor& t, std::source_location loc = std::source_location::current());
  template <class L> requires detail::is_literal<L>
  TileOperand(L v, std::source_location loc = std::source_location::current())
      : scalar(std::is_floating_point_v<L> ? ir::const_float(double(v), DType::F32)
                                           : ir::const_int(int64_t(v), detail::cpp_dtype<L>())),
        literal(true), loc(SourceLoc::from(loc)) {}
  template <class X> requires detail::is_kernel_scalar<X>
  TileOperand(const X& x, std::source_location loc = std::source_location::current())
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
  // tiles share one layout).
  RegisterTensor& operator=(const RegisterTensor& other);
  RegisterTensor& operator=(RegisterTensor&& other);

  const ir::RegisterTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  const std::vector<int>& shape() const { return t_->shape(); }

  template <class T> RegisterTensor to(std::source_location loc = std::source_location::current()) const {
    return cast_to(dtype_v<T>, SourceLoc::from(loc));
  }
  RegisterTensor cast_to(DType t, SourceLoc loc) const;

  friend RegisterTensor operator+(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator-(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator*(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator/(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator==(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator!=(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator<(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator<=(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator>(const TileOperand& a, const TileOperand& b);
  friend RegisterTensor operator>=(const TileOperand& a, const TileOperand& b);
  RegisterTensor operator-() const;

  RegisterTensor& operator+=(const TileOperand& b) { return *this = *this + b; }
  RegisterTensor& operator-=(const TileOperand& b) { return *this = *this - b; }
  RegisterTensor& operator*=(const TileOperand& b) { return *this = *this * b; }

 private:
  ir::RegisterTensor t_;
};

// Builds a tile operation's output tile (used by the instruction set).
RegisterTensor elementwise(ir::BinaryOp op, const TileOperand& a, const TileOperand& b);

}  // namespace tessel
