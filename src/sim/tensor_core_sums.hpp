// How the simulator sums tensor-core products, for every instruction family that has them (dot's
// mma.sync, wgmma): f16, bf16, tf32 and fp8 products are exact in f32 and summed in f32; 8-bit integer
// products (s8 and u8, whatever the mix of signedness) are summed exactly into an s32 accumulator
// that wraps modulo 2^32, as without .satfinite; with it, the running sum is clamped to the s32
// range after each instruction's k (32 for 8-bit operands). `missing` stands for an operand element no lane
// holds: NaN, and for integers 2^40, which no byte is, so that a sum using one is visibly wrong
// instead of taking it as 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "tessel/ir/evaluate.hpp"

namespace tessel::sim {

// The value the tensor cores multiply for an operand element of type `t`: a tf32 element's f32 with
// its low 13 mantissa bits cleared, as they read it; every other element as it is.
inline ir::Scalar operand_value(DType t, ir::Scalar v) {
  return t == DType::TF32 ? ir::convert(DType::TF32, DType::F32, v) : v;
}

struct FloatSums {
  using Value = float;
  static constexpr Value missing = std::numeric_limits<float>::quiet_NaN();
  static Value value(ir::Scalar v) { return float(v.f); }
  static ir::Scalar result(Value x) { return ir::Scalar{.f = x}; }
};

struct IntegerSums {
  using Value = int64_t;
  static constexpr Value missing = Value(1) << 40;
  static Value value(ir::Scalar v) { return v.i; }
  static ir::Scalar result(Value x) { return ir::normalize(DType::I32, ir::Scalar{.i = x}); }
  static constexpr int saturation_step = 32;  // the k of one m16n8k32 or m64nNk32 instruction
  static Value saturated(Value x) {
    return std::clamp<Value>(x, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  }
};

}  // namespace tessel::sim
