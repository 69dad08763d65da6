// Element types of kernel values: one table of their properties, and the host-side
// representations of the types C++ lacks (f16, bf16).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessel {

// Every element type, once, with the fields of DTypeInfo below. The promotion ranks follow C's
// usual arithmetic conversions (ir::promote meets f16 and bf16 in f32, the narrowest type that
// holds both exactly). A new type is a new line here: the enum and kDTypes are generated from this
// list, and -Werror=switch points at the switches that must handle it.
#define TESSEL_DTYPES(X)                            \
  X(Bool, "bool", 1, false, false, 0, "bool")       \
  X(I32, "i32", 4, false, true, 2, "int32_t")       \
  X(U32, "u32", 4, false, false, 3, "uint32_t")     \
  X(I64, "i64", 8, false, true, 4, "int64_t")       \
  X(F16, "f16", 2, true, false, 6, "tessel_f16")    \
  X(BF16, "bf16", 2, true, false, 7, "tessel_bf16") \
  X(F32, "f32", 4, true, false, 8, "float")         \
  X(I8, "i8", 1, false, true, 1, "int8_t")          \
  X(U64, "u64", 8, false, false, 5, "uint64_t")

enum class DType : uint8_t {
#define TESSEL_DTYPE_ENUMERATOR(dtype, ...) dtype,
  TESSEL_DTYPES(TESSEL_DTYPE_ENUMERATOR)
#undef TESSEL_DTYPE_ENUMERATOR
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // in printed IR and messages
  int bytes;
  bool is_float;
  bool is_signed;           // a signed integer
  int promotion_rank;       // operands of two types meet in the type of higher rank
  std::string_view c_type;  // the element type in generated CUDA
};

// One row per enumerator, in enumerator order.
inline constexpr DTypeInfo kDTypes[] = {
#define TESSEL_DTYPE_ROW(dtype, ...) {DType::dtype, __VA_ARGS__},
    TESSEL_DTYPES(TESSEL_DTYPE_ROW)
#undef TESSEL_DTYPE_ROW
};

constexpr const DTypeInfo& dtype_info(DType t) { return kDTypes[size_t(t)]; }
constexpr std::string_view dtype_name(DType t) { return dtype_info(t).name; }
constexpr int dtype_bytes(DType t) { return dtype_info(t).bytes; }
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
