// Element types of kernel values: one table of their properties, and the host-side
// representations of the types C++ lacks (f16, bf16).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessel {

// A new type is appended here and given a row in kDTypes below.
enum class DType : uint8_t { Bool, I32, U32, I64, F16, BF16, F32, I8, U64 };
inline constexpr size_t kDTypeCount = size_t(DType::U64) + 1;

struct DTypeInfo {
  DType dtype;
  std::string_view name;    // in printed IR and messages
  int bytes;
  bool is_float;
  bool is_signed;           // a signed integer
  int promotion_rank;       // operands of two types meet in the type of higher rank
  std::string_view c_type;  // the element type in generated CUDA
};

// Rows in enumerator order. The ranks follow C's usual arithmetic conversions; f16 and bf16 meet
// in f32, the narrowest type that holds both exactly (see ir::promote).
inline constexpr std::array<DTypeInfo, kDTypeCount> kDTypes = {{
    {DType::Bool, "bool", 1, false, false, 0, "bool"},
    {DType::I32, "i32", 4, false, true, 2, "int32_t"},
    {DType::U32, "u32", 4, false, false, 3, "uint32_t"},
    {DType::I64, "i64", 8, false, true, 4, "int64_t"},
    {DType::F16, "f16", 2, true, false, 6, "tessel_f16"},
    {DType::BF16, "bf16", 2, true, false, 7, "tessel_bf16"},
    {DType::F32, "f32", 4, true, false, 8, "float"},
    {DType::I8, "i8", 1, false, true, 1, "int8_t"},
    {DType::U64, "u64", 8, false, false, 5, "uint64_t"},
}};

constexpr bool rows_in_enumerator_order() {
  for (size_t i = 0; i < kDTypes.size(); ++i)
    if (kDTypes[i].dtype != DType(i)) return false;
  return true;
}
static_assert(rows_in_enumerator_order(), "kDTypes must list the types in the order of the DType enumerators");

constexpr const DTypeInfo& dtype_info(DType t) { return kDTypes[size_t(t)]; }
constexpr std::string_view dtype_name(DType t) { return dtype_info(t).name; }
constexpr int dtype_bytes(DType t) { return dtype_info(t).bytes; }
constexpr bool is_float(DType t) { return dtype_info(t).is_float; }
constexpr bool is_integer(DType t) { return !is_float(t) && t != DType::Bool; }
constexpr bool is_signed(DType t) { return dtype_info(t).is_signed; }

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
using u64 = uint64_t;

// Rounds a float to the nearest value representable in the floating-point type `t` (identity for f32).
float round_to(DType t, float v);

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::I8; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::I32; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::I64; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::U64; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::F16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::BF16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::F32; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace tessel
