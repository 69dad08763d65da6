// C++ literals given the type of the kernel value or tile they meet, refused where that type
// cannot hold them: the one conversion of a literal that would change its value silently.
#include <cmath>
#include <optional>

#include "tessel/ir/evaluate.hpp"
#include "tessel/lang/values.hpp"

namespace tessel::detail {

namespace {

// Whether the integer `v` lies in what `bits` bits hold read as signed or as unsigned (-1 and
// 0xffffffff are both a u32's all-ones; 300 is no i8).
bool fits_bits(double v, int bits) {
  if (bits >= 64) return v >= -9223372036854775808.0 && v < 18446744073709551616.0;
  return v >= -std::ldexp(1.0, bits - 1) && v <= std::ldexp(1.0, bits) - 1;
}

// Whether the integer `v` lies in the range of the integer type `t` (200 is no i8, -1 no u8), or
// only in its width where the literal is an operand of & | ^ (`keeps_bits`).
bool fits(DType t, double v, bool keeps_bits) {
  const int bits = dtype_bits(t);
  if (keeps_bits || bits >= 64) return fits_bits(v, bits);
  if (is_signed(t)) return v >= -std::ldexp(1.0, bits - 1) && v <= std::ldexp(1.0, bits - 1) - 1;
  return v >= 0 && v <= std::ldexp(1.0, bits) - 1;
}

[[noreturn]] void refuse(DType t, const std::string& shown, const std::string& became, const SourceLoc* at, bool tile) {
  const std::string message = fmt::format(
      "the literal {} meets {} of {}, whose type a C++ literal takes, and would become {}; convert the {} with {} "
      "first, or write a literal that fits {}",
      shown, tile ? "a tile" : "a kernel value", dtype_name(t), became, tile ? "tile" : "kernel value",
      tile ? ".to<T>()" : "cast<T>()", dtype_name(t));
  if (at) throw Error(*at, message);
  throw Error(message);
}

// What the float `v` would become in the float type `t` where `t` cannot hold it: infinity for a
// finite value, or, in the formats of at most 8 bits, whose conversion saturates, their largest
// finite value (1000 as an f8e4m3 becomes 448).
std::optional<std::string> float_change(DType t, double v) {
  const double rounded = ir::normalize(t, ir::Scalar{.f = v}).f;
  // e8m0 holds powers of two (and NaN): any other literal would change.
  if (t == DType::E8M0) return rounded == v || std::isnan(v) ? std::nullopt : std::optional(fmt::format("{}", rounded));
  if (!std::isfinite(v)) return std::nullopt;
  if (!std::isfinite(rounded)) return fmt::format("{}", rounded);
  if (dtype_bits(t) > 8 || std::fabs(v) <= std::fabs(rounded)) return std::nullopt;
  // v to the format's precision, its range aside: beyond the largest finite value, it saturated.
  const int mantissa = float_format(t).mantissa_bits, e = std::ilogb(v);
  const double nearest = std::ldexp(std::nearbyint(std::ldexp(std::fabs(v), mantissa - e)), e - mantissa);
  const double largest = ir::normalize(t, ir::Scalar{.f = 1e30}).f;
  return nearest > largest ? std::optional(fmt::format("{}", rounded)) : std::nullopt;
}

}  // namespace

std::optional<std::string> literal_change(DType t, double v) {
  if (is_float(t)) return float_change(t, v);
  if (t == DType::Bool || (std::isfinite(v) && v == std::trunc(v) && fits(t, v, false))) return std::nullopt;
  const double kept = std::isfinite(v) ? std::trunc(v) : 0.0;
  return fits_bits(kept, 64) ? fmt::format("{}", ir::normalize(t, ir::Scalar{.i = int64_t(kept)}).i)
                             : std::string("another value");
}

ir::Expr literal_as(DType t, double v, const SourceLoc* at, bool tile) {
  if (const std::optional<std::string> became = literal_change(t, v))
    refuse(t, fmt::format("{}", v), *became, at, tile);
  if (is_float(t)) return ir::const_float(v, t);
  if (t == DType::Bool) return ir::const_int(v != 0, t);
  return ir::const_int(ir::normalize(t, ir::Scalar{.i = int64_t(v)}).i, t);
}

ir::Expr literal_as(DType t, int64_t v, const SourceLoc* at, bool tile, bool keeps_bits) {
  if (is_float(t)) return literal_as(t, double(v), at, tile);
  if (t == DType::Bool) return ir::const_int(v != 0, t);
  if (dtype_bits(t) < 64 && !fits(t, double(v), keeps_bits))
    refuse(t, fmt::format("{}", v), fmt::format("{}", ir::normalize(t, ir::Scalar{.i = v}).i), at, tile);
  return ir::const_int(ir::normalize(t, ir::Scalar{.i = v}).i, t);
}

}  // namespace tessel::detail
