// Divisibility: the largest power of two known to divide each integer value of a kernel, from the
// launch's facts about its parameters (KernelNode::param_divisors), constants, and every
// definition of each variable. The code generator uses it to prove addresses aligned and strides
// whole multiples of a swizzle period, so that it emits no run-time test for them.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

class Divisibility {
 public:
  explicit Divisibility(const KernelNode& k);

  // A power of two that divides the value of `e` (for a pointer, its address in bytes) on every
  // execution; 0 when the value is always 0.
  int64_t of(const Expr& e) const;
  // Whether `e`'s value is a multiple of `n` (a power of two) on every execution.
  bool divides(int64_t n, const Expr& e) const;

 private:
  int64_t of_var(const VarNode* v) const;
  std::unordered_map<const VarNode*, int64_t> vars_;  // absent: nothing known (1)
};

}  // namespace tessel::ir
