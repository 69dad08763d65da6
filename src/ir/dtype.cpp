#include "tessel/dtype.hpp"

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

float round_to(DType t, float v) {
  switch (t) {
    case DType::F16: return float(f16(v));
    case DType::BF16: return float(bf16(v));
    case DType::F32: return v;
    case DType::Bool:
    case DType::I8:
    case DType::I32:
    case DType::U32:
    case DType::I64:
    case DType::U64: break;
  }
  TESSEL_CHECK(false, "round_to a non-floating-point type {}", dtype_name(t));
}

}  // namespace tessel
