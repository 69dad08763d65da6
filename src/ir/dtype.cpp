#include "tessel/dtype.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "tessel/error.hpp"

namespace tessel {

f16::f16(float v) {
  const uint32_t x = std::bit_cast<uint32_t>(v);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    bits = uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to a magnitude of at least 65520: overflow to inf
    bits = uint16_t(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // result is subnormal (or zero): scale and round in float arithmetic
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // 2^24: one unit = smallest subnormal
    bits = uint16_t(sign | uint32_t(std::nearbyint(scaled)));
    return;
  }
  const uint32_t mant = abs & 0x7fffffu;
  uint32_t h = ((abs >> 23) - 112) << 10 | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // round to nearest even
  bits = uint16_t(sign | h);
}

f16::operator float() const {
  const uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  const uint32_t mant = bits & 0x3ffu;
  if (exp == 0) {
    const float v = float(mant) / 16777216.0f;
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

bf16::bf16(float v) {
  const uint32_t x = std::bit_cast<uint32_t>(v);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    bits = uint16_t((x >> 16) | 0x40u);
    return;
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  bits = uint16_t((x + rounding) >> 16);
}

bf16::operator float() const { return std::bit_cast<float>(uint32_t(bits) << 16); }

namespace {

// A small binary floating-point format with `mantissa` stored bits and exponent bias `bias`, whose
// largest finite magnitude is `max_finite` (fp8 here).
struct SmallFloat {
  int mantissa;
  int bias;
  float max_finite;
  bool has_infinity;  // the top exponent is reserved for infinities and NaNs (IEEE style)
};
constexpr SmallFloat kE4M3{3, 7, 448.0f, false};
constexpr SmallFloat kE5M2{2, 15, 57344.0f, true};

// PTX cvt.rn.satfinite: nearest with ties to even, beyond the largest finite (infinities included)
// the largest finite of the sign, NaN as 0x7f with the input's sign.
uint8_t encode(const SmallFloat& f, float v) {
  const uint8_t sign = std::signbit(v) ? 0x80u : 0u;
  if (std::isnan(v)) return uint8_t(sign | 0x7fu);
  const float a = std::min(std::fabs(v), f.max_finite);
  const int min_exponent = 1 - f.bias;  // of the smallest normal value
  const int e = a == 0 ? min_exponent : std::max(std::ilogb(a), min_exponent);
  // Units of the last place at exponent e; scaling by a power of two is exact.
  const float units = std::nearbyint(std::ldexp(a, f.mantissa - e));
  if (units == 0) return sign;
  // Rounding up may carry into the next binade: units == 2^(mantissa + 1).
  int exponent = e, m = int(units);
  if (m >= 2 << f.mantissa) {
    m >>= 1;
    ++exponent;
  }
  const bool normal = m >= 1 << f.mantissa;
  const int field = normal ? exponent + f.bias : 0;
  return uint8_t(sign | field << f.mantissa | (m & ((1 << f.mantissa) - 1)));
}

float decode(const SmallFloat& f, uint8_t bits) {
  const int exponent_bits = 7 - f.mantissa;
  const int field = (bits >> f.mantissa) & ((1 << exponent_bits) - 1);
  const int m = bits & ((1 << f.mantissa) - 1);
  const float sign = bits & 0x80u ? -1.0f : 1.0f;
  const int top = (1 << exponent_bits) - 1;
  if (f.has_infinity && field == top) return m == 0 ? sign * INFINITY : NAN;
  if (!f.has_infinity && field == top && m == (1 << f.mantissa) - 1) return NAN;
  if (field == 0) return sign * std::ldexp(float(m), 1 - f.bias - f.mantissa);
  return sign * std::ldexp(float(m | 1 << f.mantissa), field - f.bias - f.mantissa);
}

}  // namespace

f8e4m3::f8e4m3(float v) : bits(encode(kE4M3, v)) {}
f8e4m3::operator float() const { return decode(kE4M3, bits); }
f8e5m2::f8e5m2(float v) : bits(encode(kE5M2, v)) {}
f8e5m2::operator float() const { return decode(kE5M2, bits); }

float round_to(DType t, float v) {
  switch (t) {
    case DType::F16: return float(f16(v));
    case DType::BF16: return float(bf16(v));
    case DType::F8E4M3: return float(f8e4m3(v));
    case DType::F8E5M2: return float(f8e5m2(v));
    case DType::F32: return v;
    case DType::Bool:
    case DType::U8:
    case DType::I16:
    case DType::U16:
    case DType::I8:
    case DType::I32:
    case DType::U32:
    case DType::I64:
    case DType::U64:
    case DType::I4:
    case DType::U4: break;
  }
  TESSEL_CHECK(false, "round_to a non-floating-point type {}", dtype_name(t));
}

}  // namespace tessel
