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
  if (abs > 0x7f800000u) {  // NaN: the canonical one, whatever the sign and payload, as cvt gives it
    bits = 0x7fffu;
    return;
  }
  if (abs == 0x7f800000u) {
    bits = uint16_t(sign | 0x7c00u);
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
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: the canonical one, as cvt gives it
    bits = 0x7fffu;
    return;
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  bits = uint16_t((x + rounding) >> 16);
}

bf16::operator float() const { return std::bit_cast<float>(uint32_t(bits) << 16); }

namespace {

// The largest finite magnitude of a format of at most 8 bits: the top exponent with a full mantissa,
// less what the top exponent keeps for infinities and NaNs.
float max_finite(const FloatFormat& f) {
  const int top = (1 << f.exponent_bits) - 1;
  switch (f.specials) {
    case FloatSpecials::ieee: return std::ldexp(2.0f - std::ldexp(1.0f, -f.mantissa_bits), top - 1 - f.bias());
    case FloatSpecials::single_nan: return std::ldexp(2.0f - std::ldexp(1.0f, 1 - f.mantissa_bits), top - f.bias());
    case FloatSpecials::finite: break;
  }
  return std::ldexp(2.0f - std::ldexp(1.0f, -f.mantissa_bits), top - f.bias());
}

// PTX cvt.rn.satfinite for a format of at most 8 bits: nearest with ties to even; beyond the
// largest finite magnitude (infinities included) the largest finite of the sign; NaN as the pattern
// of all ones (NaN where the format has one, its largest finite otherwise), positive in fp8 (as an
// H200 converts a negative NaN) and with the input's sign in the packed formats.
uint32_t encode(const FloatFormat& f, float v) {
  const int width = 1 + f.exponent_bits + f.mantissa_bits;
  const uint32_t sign = std::signbit(v) ? 1u << (width - 1) : 0u;
  if (std::isnan(v)) return (width == 8 ? 0u : sign) | ((1u << (width - 1)) - 1u);
  const float a = std::min(std::fabs(v), max_finite(f));
  const int min_exponent = 1 - f.bias();  // of the smallest normal value
  const int e = a == 0 ? min_exponent : std::max(std::ilogb(a), min_exponent);
  // Units of the last place at exponent e; scaling by a power of two is exact.
  const float units = std::nearbyint(std::ldexp(a, f.mantissa_bits - e));
  if (units == 0) return sign;
  // Rounding up may carry into the next binade: units == 2^(mantissa + 1).
  int exponent = e, m = int(units);
  if (m >= 2 << f.mantissa_bits) {
    m >>= 1;
    ++exponent;
  }
  const bool normal = m >= 1 << f.mantissa_bits;
  const uint32_t field = normal ? uint32_t(exponent + f.bias()) : 0u;
  return sign | field << f.mantissa_bits | uint32_t(m & ((1 << f.mantissa_bits) - 1));
}

float decode(const FloatFormat& f, uint32_t bits) {
  const int field = int(bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int m = int(bits) & ((1 << f.mantissa_bits) - 1);
  const float sign = bits >> (f.exponent_bits + f.mantissa_bits) & 1u ? -1.0f : 1.0f;
  const int top = (1 << f.exponent_bits) - 1;
  if (f.specials == FloatSpecials::ieee && field == top) return m == 0 ? sign * INFINITY : NAN;
  if (f.specials == FloatSpecials::single_nan && field == top && m == (1 << f.mantissa_bits) - 1) return NAN;
  if (field == 0) return sign * std::ldexp(float(m), 1 - f.bias() - f.mantissa_bits);
  return sign * std::ldexp(float(m | 1 << f.mantissa_bits), field - f.bias() - f.mantissa_bits);
}

}  // namespace

f8e4m3::f8e4m3(float v) : bits(uint8_t(encode(float_format(DType::F8E4M3), v))) {}
f8e4m3::operator float() const { return decode(float_format(DType::F8E4M3), bits); }
f8e5m2::f8e5m2(float v) : bits(uint8_t(encode(float_format(DType::F8E5M2), v))) {}
f8e5m2::operator float() const { return decode(float_format(DType::F8E5M2), bits); }

namespace {

// PTX cvt.{rz,rp}.satfinite.ue8m0x2.f32 of one value: the exponent field of |v|, one more where
// rounding up drops mantissa bits of a magnitude above 2^-127; saturated below NaN's 0xff.
uint8_t e8m0_bits(float v, bool up) {
  const uint32_t magnitude = std::bit_cast<uint32_t>(v) & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0xffu;
  uint32_t field = magnitude >> 23;
  if (up && (magnitude & 0x7fffffu) != 0 && magnitude > 0x00400000u) ++field;
  return uint8_t(std::min(field, 0xfeu));
}

}  // namespace

e8m0 e8m0::round_down(float v) { return from_bits(e8m0_bits(v, false)); }
e8m0 e8m0::round_up(float v) { return from_bits(e8m0_bits(v, true)); }
e8m0::operator float() const {
  if (bits == 0xffu) return std::bit_cast<float>(0x7fffffffu);
  return bits == 0 ? std::bit_cast<float>(0x00400000u) : std::bit_cast<float>(uint32_t(bits) << 23);
}

namespace {

constexpr uint32_t kTf32Mask = 0xffffe000u;  // sign, exponent and the top 10 mantissa bits

// PTX cvt.rna.tf32.f32: half a unit of the last kept place added to the magnitude rounds ties away
// from zero, and carries into the exponent (to infinity past the largest finite value). A NaN loses
// its low 13 bits, so one whose payload lies only there becomes an infinity (as an H200 converts).
uint32_t tf32_bits(float v) {
  const uint32_t x = std::bit_cast<uint32_t>(v);
  if (std::isnan(v) || std::isinf(v)) return x & kTf32Mask;
  return (x + 0x1000u) & kTf32Mask;
}

}  // namespace

tf32::tf32(float v) : bits(tf32_bits(v)) {}
tf32::operator float() const { return std::bit_cast<float>(bits & kTf32Mask); }

float float_from_bits(DType t, uint32_t bits) {
  TESSEL_CHECK(is_float(t), "float_from_bits of the non-floating-point type {}", dtype_name(t));
  if (t == DType::F32) return std::bit_cast<float>(bits);
  if (t == DType::TF32) return float(tf32::from_bits(bits));
  if (t == DType::F16) return float(f16::from_bits(uint16_t(bits)));
  if (t == DType::BF16) return float(bf16::from_bits(uint16_t(bits)));
  if (t == DType::E8M0) return float(e8m0::from_bits(uint8_t(bits)));
  return decode(float_format(t), bits);
}

uint32_t float_to_bits(DType t, float v) {
  TESSEL_CHECK(is_float(t), "float_to_bits of the non-floating-point type {}", dtype_name(t));
  if (t == DType::F32) return std::bit_cast<uint32_t>(v);
  if (t == DType::TF32) return tf32_bits(v);
  if (t == DType::F16) return f16(v).bits;
  if (t == DType::BF16) return bf16(v).bits;
  if (t == DType::E8M0) return e8m0::round_up(v).bits;
  return encode(float_format(t), v);
}

float value_from_bits(DType t, uint32_t bits) {
  if (is_float(t)) return float_from_bits(t, bits);
  const int width = dtype_bits(t);
  TESSEL_CHECK(width <= 16, "value_from_bits of the {}-bit type {}", width, dtype_name(t));
  const bool negative = is_signed(t) && (bits >> (width - 1) & 1u);
  return negative ? float(int64_t(bits) - (int64_t(1) << width)) : float(bits);
}

float round_to(DType t, float v) { return float_from_bits(t, float_to_bits(t, v)); }

std::vector<uint8_t> pack_bits(DType t, const std::vector<uint32_t>& fields) {
  const int bits = dtype_bits(t);
  std::vector<uint8_t> bytes((fields.size() * size_t(bits) + 7) / 8);
  for (size_t i = 0; i < fields.size(); ++i)
    for (int b = 0; b < bits; ++b)
      if (fields[i] >> b & 1u) {
        const size_t at = i * size_t(bits) + size_t(b);
        bytes[at / 8] = uint8_t(bytes[at / 8] | 1u << (at % 8));
      }
  return bytes;
}

uint32_t unpack_bits(DType t, const uint8_t* bytes, int64_t i) {
  const int bits = dtype_bits(t);
  uint32_t field = 0;
  for (int b = 0; b < bits; ++b) {
    const int64_t at = i * bits + b;
    field |= uint32_t(bytes[at / 8] >> (at % 8) & 1u) << b;
  }
  return field;
}

}  // namespace tessel
