// Element types of kernel values and their host-side representations.
#pragma once

#include <cstdint>
#include <string_view>

namespace tessel {

enum class DType : uint8_t { Bool, I32, U32, I64, F16, BF16, F32, I8 };

std::string_view dtype_name(DType t);  // "f16", "i32", ...
int dtype_bytes(DType t);
inline bool is_float(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32; }
inline bool is_integer(DType t) { return t == DType::I8 || t == DType::I32 || t == DType::U32 || t == DType::I64; }
inline bool is_signed(DType t) { return t == DType::I8 || t == DType::I32 || t == DType::I64; }

// IEEE binary16, stored as its bit pattern; conversions round to nearest even.
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  explicit f16(float v);
  explicit operator float() const;
  static f16 from_bits(uint16_t b) { f16 h; h.bits = b; return h; }
};

// bfloat16, stored as its bit pattern; conversions round to nearest even.
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float v);
  explicit operator float() const;
  static bf16 from_bits(uint16_t b) { bf16 h; h.bits = b; return h; }
};

using f32 = float;
using i8 = int8_t;
using i32 = int32_t;
using u32 = uint32_t;
using i64 = int64_t;

// Rounds a float to the nearest value representable in `t` (identity for f32).
float round_to(DType t, float v);

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::I8; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::I32; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::I64; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::F16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::BF16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::F32; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace tessel
