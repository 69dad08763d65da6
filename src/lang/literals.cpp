// C++ literals given the type of the kernel value or tile they meet, refused where that type
// cannot hold them: the one conversion of a literal that would change its value silently.
#include <cmath>

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

[[noreturn]] void refuse(DType t, const std::string& shown, const std::string& became, const SourceLoc* at, bool tile) {
  const std::string message = fmt::format(
      "the literal {} meets {} of {}, whose type a C++ literal takes, and would become {}; convert the {} with {} "
      "first, or write a literal that fits {}",
      shown, tile ? "a tile" : "a kernel value", dtype_name(t), became, tile ? "tile" : "kernel value",
      tile ? ".to<T>()" : "cast<T>()", dtype_name(t));
  if (at) throw Error(*at, message);
  throw Error(message);
}

// A float literal's value in `t`, refused where a finite value would become infinite.
ir::Expr as_float(DType t, double v, const std::string& shown, const SourceLoc* at, bool tile) {
  const double rounded = ir::normalize(t, ir::Scalar{.f = v}).f;
  if (std::isfinite(v) && !std::isfinite(rounded)) refuse(t, shown, fmt::format("{}", rounded), at, tile);
  return ir::const_float(v, t);
}

}  // namespace

ir::Expr literal_as(DType t, double v, const SourceLoc* at, bool tile) {
  const std::string shown = fmt::format("{}", v);
  if (is_float(t)) return as_float(t, v, shown, at, tile);
  if (t == DType::Bool) return ir::const_int(v != 0, t);
  if (!std::isfinite(v) || v != std::trunc(v) || !fits_bits(v, dtype_bits(t))) {
    const double kept = std::isfinite(v) ? std::trunc(v) : 0.0;
    const std::string became = fits_bits(kept, 64)
                                   ? fmt::format("{}", ir::normalize(t, ir::Scalar{.i = int64_t(kept)}).i)
                                   : std::string("another value");
    refuse(t, shown, became, at, tile);
  }
  return ir::const_int(ir::normalize(t, ir::Scalar{.i = int64_t(v)}).i, t);
}

ir::Expr literal_as(DType t, int64_t v, const SourceLoc* at, bool tile) {
  const std::string shown = fmt::format("{}", v);
  if (is_float(t)) return as_float(t, double(v), shown, at, tile);
  if (t == DType::Bool) return ir::const_int(v != 0, t);
  if (dtype_bits(t) < 64 && !fits_bits(double(v), dtype_bits(t)))
    refuse(t, shown, fmt::format("{}", ir::normalize(t, ir::Scalar{.i = v}).i), at, tile);
  return ir::const_int(ir::normalize(t, ir::Scalar{.i = v}).i, t);
}

}  // namespace tessel::detail
