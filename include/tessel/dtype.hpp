// Element types of kernel values: one table of their properties, and the host-side
// representations of the types C++ lacks (f16, bf16).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace tessel {

// Every element type, once, with the fields of DTypeInfo below. The promotion ranks follow C's
// usual arithmetic conversions (ir::promote meets f16 and bf16 in f32, the narrowest type that
// holds both exactly). A new type is a new line here: the enum and kDTypes are generated from this
// list, and -Werror=switch points at the switches that must handle it.
#define TESSEL_DTYPES(X)                                   \
  X(Bool, "bool", 8, false, false, 0, "bool")              \
  X(I32, "i32", 32, false, true, 5, "int32_t")             \
  X(U32, "u32", 32, false, false, 6, "uint32_t")           \
  X(I64, "i64", 64, false, true, 7, "int64_t")             \
  X(F16, "f16", 16, true, false, 11, "tessel_f16")         \
  X(BF16, "bf16", 16, true, false, 12, "tessel_bf16")      \
  X(F32, "f32", 32, true, false, 13, "float")              \
  X(I8, "i8", 8, false, true, 1, "int8_t")                 \
  X(U64, "u64", 64, false, false, 8, "uint64_t")           \
  X(U8, "u8", 8, false, false, 2, "uint8_t")               \
  X(I16, "i16", 16, false, true, 3, "int16_t")             \
  X(U16, "u16", 16, false, false, 4, "uint16_t")           \
  X(F8E4M3, "f8e4m3", 8, true, false, 9, "tessel_f8e4m3")  \
  X(F8E5M2, "f8e5m2", 8, true, false, 10, "tessel_f8e5m2") \
  X(I4, "i4", 4, false, true, -2, "uint8_t")               \
  X(U4, "u4", 4, false, false, -1, "uint8_t")

enum class DType : uint8_t {
#define TESSEL_DTYPE_ENUMERATOR(dtype, ...) dtype,
  TESSEL_DTYPES(TESSEL_DTYPE_ENUMERATOR)
#undef TESSEL_DTYPE_ENUMERATOR
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // in printed IR and messages
  int bits;               // in memory; the packed types (fewer than 8 bits) share bytes
  bool is_float;
  bool is_signed;           // a signed integer
  int promotion_rank;       // operands of two types meet in the type of higher rank
  std::string_view c_type;  // the element type in generated CUDA (for packed types, the byte of a pair)
};

// One row per enumerator, in enumerator order.
inline constexpr DTypeInfo kDTypes[] = {
#define TESSEL_DTYPE_ROW(dtype, ...) {DType::dtype, __VA_ARGS__},
    TESSEL_DTYPES(TESSEL_DTYPE_ROW)
#undef TESSEL_DTYPE_ROW
};

constexpr const DTypeInfo& dtype_info(DType t) { return kDTypes[size_t(t)]; }
constexpr std::string_view dtype_name(DType t) { return dtype_info(t).name; }
constexpr int dtype_bits(DType t) { return dtype_info(t).bits; }
// A packed type has fewer than 8 bits: its elements share bytes, so it is addressed by bits
// (docs/language.md, "Packed types") and has no byte size.
constexpr bool is_packed(DType t) { return dtype_bits(t) < 8; }
constexpr int dtype_bytes(DType t) {
  return is_packed(t) ? throw std::logic_error("dtype_bytes of a packed type: address it by dtype_bits")
                      : dtype_bits(t) / 8;
}
// The alignment, in bytes, of a pointer to elements of `t`: a packed pair's byte for packed types.
constexpr int element_alignment(DType t) { return is_packed(t) ? 1 : dtype_bytes(t); }
constexpr bool is_float(DType t) { return dtype_info(t).is_float; }
constexpr bool is_signed(DType t) { return dtype_info(t).is_signed; }

// IEEE binary16, stored as its bit pattern; conversions round to nearest even.
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  explicit f16(float v);
  explicit operator float() const;
  static f16 from_bits(uint16_t b) {
    f16 h;
    h.bits = b;
    return h;
  }
};

// bfloat16, stored as its bit pattern; conversions round to nearest even.
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float v);
  explicit operator float() const;
  static bf16 from_bits(uint16_t b) {
    bf16 h;
    h.bits = b;
    return h;
  }
};

using f32 = float;
using i8 = int8_t;
using u8 = uint8_t;
using i16 = int16_t;
using u16 = uint16_t;
using i32 = int32_t;
using u32 = uint32_t;
using i64 = int64_t;
using u64 = uint64_t;

// The fp8 formats of the OCP 8-bit floating point specification, as PTX's e4m3 and e5m2 types,
// stored as their bit patterns. e4m3 (E4M3FN: exponent bias 7) has no infinities, NaN S.1111.111
// and largest finite 448; e5m2 (bias 15) has IEEE infinities and NaNs and largest finite 57344.
// Conversions from float are PTX's `cvt.rn.satfinite`: nearest, ties to even; magnitudes beyond the
// largest finite value, infinities included, become the largest finite value of their sign; NaN
// becomes 0x7f with the sign of the input.
struct f8e4m3 {
  uint8_t bits = 0;
  f8e4m3() = default;
  explicit f8e4m3(float v);
  explicit operator float() const;
  static f8e4m3 from_bits(uint8_t b) {
    f8e4m3 x;
    x.bits = b;
    return x;
  }
};
struct f8e5m2 {
  uint8_t bits = 0;
  f8e5m2() = default;
  explicit f8e5m2(float v);
  explicit operator float() const;
  static f8e5m2 from_bits(uint8_t b) {
    f8e5m2 x;
    x.bits = b;
    return x;
  }
};

// The 4-bit integers. Memory holds them packed two to a byte, element 2i in the low nibble of byte
// i; a host buffer of them is one of bytes (uint8_t). These types only name the element type of a
// Ptr<T> or a tile: there is no host value of one.
struct i4 {};
struct u4 {};

// Rounds a float to the nearest value representable in the floating-point type `t` (identity for f32).
float round_to(DType t, float v);

namespace detail {
template <class T> inline constexpr bool no_element_type = false;
}
// The element type of a C++ type, for Ptr<T>, shared_tensor<T>, register_tensor<T>, to<T>().
template <class T> struct dtype_of {
  static_assert(detail::no_element_type<T>,
                "tessel has no element type for this C++ type; the element types are bool, int8_t, uint8_t, "
                "int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, tessel::i4, tessel::u4, tessel::f8e4m3, "
                "tessel::f8e5m2, tessel::f16, tessel::bf16 and float (docs/language.md, \"Element types\")");
};
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::I8; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::I16; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::U16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::I32; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::I64; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::U64; };
template <> struct dtype_of<i4> { static constexpr DType value = DType::I4; };
template <> struct dtype_of<u4> { static constexpr DType value = DType::U4; };
template <> struct dtype_of<f8e4m3> { static constexpr DType value = DType::F8E4M3; };
template <> struct dtype_of<f8e5m2> { static constexpr DType value = DType::F8E5M2; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::F16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::BF16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::F32; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace tessel
