// Evaluation of uniform scalar expressions on the host: grid extents at launch, constant folding.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

// A scalar value as the host and the simulator hold it.
union Scalar {
  int64_t i;
  double f;
};

// Wraps or rounds `v` to the representation of `t` (i32 wraps, f16 rounds, ...).
Scalar normalize(DType t, Scalar v);
Scalar apply_binary(BinaryOp op, DType operand_type, Scalar a, Scalar b);
Scalar apply_unary(UnaryOp op, DType t, Scalar a);
Scalar convert(DType from, DType to, Scalar v);
// The type in which a reduction or scan of `t` combines its elements and keeps its partials: f32
// for the floats narrower than 32 bits (the generated code's arithmetic for them), `t` otherwise.
// The result is rounded to `t` once, at the end.
DType combining_type(DType t);
// The saturating conversion to an integer type of at most 32 bits: a float rounds to the nearest
// integer, ties to even, NaN to 0; the result is clamped to the range of `to`.
Scalar convert_saturated(DType from, DType to, Scalar v);
// `v` as an e8m0 scale, its magnitude rounded down or up to a power of two (dtype.hpp, e8m0); an
// integer or a float other than f32 converts to f32 first (to the nearest; an f64 to odd).
Scalar convert_to_e8m0(DType from, Scalar v, bool up);
// Whether `t` is a target of convert_saturated.
bool saturates_to(DType t);
// The bit pattern of `v` as an element of type `t` holds it (a float's IEEE bits, an integer's
// two's complement in the type's width), and back: what a bitcast keeps.
uint64_t bits_of(DType t, Scalar v);
Scalar from_bits(DType t, uint64_t bits);

// Evaluates `e`; `lookup` supplies variables and built-ins and throws if one has no value.
Scalar evaluate(const ExprNode& e, const std::function<Scalar(const ExprNode&)>& lookup);

// Evaluates what the host knows at a launch of `k` (the grid, a derived parameter): an expression
// over the kernel's first values.size() parameters, whose values `values` holds, and the device's
// `multiprocessors`. Allocates nothing, as a launch must not.
Scalar evaluate_at_launch(const ExprNode& e, const KernelNode& k, std::span<const Scalar> values, int multiprocessors);

// The call's parameters of `k` that `e` reads, by index, each once, in the order `e` first reads
// them: the values an error about a launch names.
std::vector<size_t> call_params_read(const ExprNode& e, const KernelNode& k);

}  // namespace tessel::ir
