// Element types of kernel values: one table of their properties, and the host-side
// representations of the types C++ lacks (f16, bf16).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace tessel {

// Every element type, once, with the fields of DTypeInfo below. The promotion ranks follow C's
// usual arithmetic conversions (ir::promote meets f16 and bf16 in f32, the narrowest type that
// holds both exactly); packed types take part in no arithmetic. A new type is a new line here: the
// enum and kDTypes are generated from these lists, and -Werror=switch points at the switches that
// must handle it.
#define TESSEL_BYTE_DTYPES(X)                                 \
  X(Bool, "bool", 8, false, false, 0, "bool", 0)              \
  X(I32, "i32", 32, false, true, 5, "int32_t", 0)             \
  X(U32, "u32", 32, false, false, 6, "uint32_t", 0)           \
  X(I64, "i64", 64, false, true, 7, "int64_t", 0)             \
  X(F16, "f16", 16, true, false, 11, "tessel_f16", 5)         \
  X(BF16, "bf16", 16, true, false, 12, "tessel_bf16", 8)      \
  X(F32, "f32", 32, true, false, 13, "float", 8)              \
  X(I8, "i8", 8, false, true, 1, "int8_t", 0)                 \
  X(U64, "u64", 64, false, false, 8, "uint64_t", 0)           \
  X(U8, "u8", 8, false, false, 2, "uint8_t", 0)               \
  X(I16, "i16", 16, false, true, 3, "int16_t", 0)             \
  X(U16, "u16", 16, false, false, 4, "uint16_t", 0)           \
  X(F8E4M3, "f8e4m3", 8, true, false, 9, "tessel_f8e4m3", 4)  \
  X(F8E5M2, "f8e5m2", 8, true, false, 10, "tessel_f8e5m2", 5) \
  X(TF32, "tf32", 32, true, false, -1, "tessel_tf32", 8)      \
  X(F64, "f64", 64, true, false, 14, "double", 11)            \
  X(E8M0, "e8m0", 8, true, false, -1, "tessel_e8m0", 8)

// The integers of 1 to 7 bits, packed (docs/language.md, "Packed types").
#define TESSEL_PACKED_INT_DTYPES(X)              \
  X(I4, "i4", 4, false, true, -1, "uint8_t", 0)  \
  X(U4, "u4", 4, false, false, -1, "uint8_t", 0) \
  X(I1, "i1", 1, false, true, -1, "uint8_t", 0)  \
  X(I2, "i2", 2, false, true, -1, "uint8_t", 0)  \
  X(I3, "i3", 3, false, true, -1, "uint8_t", 0)  \
  X(I5, "i5", 5, false, true, -1, "uint8_t", 0)  \
  X(I6, "i6", 6, false, true, -1, "uint8_t", 0)  \
  X(I7, "i7", 7, false, true, -1, "uint8_t", 0)  \
  X(U1, "u1", 1, false, false, -1, "uint8_t", 0) \
  X(U2, "u2", 2, false, false, -1, "uint8_t", 0) \
  X(U3, "u3", 3, false, false, -1, "uint8_t", 0) \
  X(U5, "u5", 5, false, false, -1, "uint8_t", 0) \
  X(U6, "u6", 6, false, false, -1, "uint8_t", 0) \
  X(U7, "u7", 7, false, false, -1, "uint8_t", 0)

// The floating-point formats of 3 to 7 bits, packed: fNeEmM has a sign, E exponent and M mantissa
// bits (N = 1 + E + M) and the exponent bias 2^(E-1) - 1. The formats with 5 exponent bits keep
// the top exponent for infinities and NaNs, as IEEE does; the others have neither (OCP MX's fp4
// and fp6 formats are e2m1, e2m3 and e3m2).
#define TESSEL_PACKED_FLOAT_DTYPES(X)                   \
  X(F3E1M1, "f3e1m1", 3, true, false, -1, "uint8_t", 1) \
  X(F4E1M2, "f4e1m2", 4, true, false, -1, "uint8_t", 1) \
  X(F4E2M1, "f4e2m1", 4, true, false, -1, "uint8_t", 2) \
  X(F5E1M3, "f5e1m3", 5, true, false, -1, "uint8_t", 1) \
  X(F5E2M2, "f5e2m2", 5, true, false, -1, "uint8_t", 2) \
  X(F5E3M1, "f5e3m1", 5, true, false, -1, "uint8_t", 3) \
  X(F6E2M3, "f6e2m3", 6, true, false, -1, "uint8_t", 2) \
  X(F6E3M2, "f6e3m2", 6, true, false, -1, "uint8_t", 3) \
  X(F6E4M1, "f6e4m1", 6, true, false, -1, "uint8_t", 4) \
  X(F7E2M4, "f7e2m4", 7, true, false, -1, "uint8_t", 2) \
  X(F7E3M3, "f7e3m3", 7, true, false, -1, "uint8_t", 3) \
  X(F7E4M2, "f7e4m2", 7, true, false, -1, "uint8_t", 4) \
  X(F7E5M1, "f7e5m1", 7, true, false, -1, "uint8_t", 5)

#define TESSEL_DTYPES(X) TESSEL_BYTE_DTYPES(X) TESSEL_PACKED_INT_DTYPES(X) TESSEL_PACKED_FLOAT_DTYPES(X)

// The packed types are the last enumerators, from I4 to F7E5M1 (checked below): the compiler's
// switches over DType name them all with `case TESSEL_PACKED_DTYPES:` (a case range, which GCC and
// Clang take), and -Werror=switch still sees each.
#define TESSEL_PACKED_DTYPES DType::I4... DType::F7E5M1

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
  std::string_view c_type;  // the element type in generated CUDA (for packed types, a byte of them)
  int exponent_bits;        // of a floating-point type; 0 for the others
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
static_assert(
    [] {
      for (const DTypeInfo& i : kDTypes)
        if (is_packed(i.dtype) != (i.dtype >= DType::I4)) return false;
      return kDTypes[std::size(kDTypes) - 1].dtype == DType::F7E5M1;
    }(),
    "the packed types must be the last enumerators, from I4 to F7E5M1");
constexpr bool is_signed(DType t) { return dtype_info(t).is_signed; }
// The integer types whose elements are addressed one by one (positions and indices): not bool, not
// floats, not packed.
constexpr bool is_byte_addressed_integer(DType t) { return !is_float(t) && t != DType::Bool && !is_packed(t); }
// The 8-bit integer types, which tensor cores multiply into 32-bit integer accumulators.
constexpr bool is_byte_integer(DType t) { return t == DType::I8 || t == DType::U8; }
// The 8-bit float types (OCP's e4m3 and e5m2), which tensor cores multiply into f32 accumulators.
constexpr bool is_fp8(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }

// The fields of a floating-point type and what its top exponent holds.
enum class FloatSpecials {
  ieee,        // infinities (mantissa 0) and NaNs: f32, f16, bf16, e5m2 and the packed e5 formats
  single_nan,  // only S.1111.111 is NaN, no infinities: e4m3 (OCP's E4M3FN)
  finite,      // every pattern is a number: the packed formats with fewer than 5 exponent bits
};
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  FloatSpecials specials;
  constexpr int bias() const { return (1 << (exponent_bits - 1)) - 1; }
};
constexpr FloatFormat float_format(DType t) {
  if (!is_float(t)) throw std::logic_error("float_format of a type that is not floating-point");
  if (t == DType::E8M0) throw std::logic_error("float_format of e8m0, which has neither sign nor mantissa");
  const int e = dtype_info(t).exponent_bits;
  // tf32 is f32's sign and exponent with the top 10 of its 23 mantissa bits.
  const int mantissa = t == DType::TF32 ? 10 : dtype_bits(t) - 1 - e;
  const FloatSpecials specials = t == DType::F8E4M3 ? FloatSpecials::single_nan
                                 : e >= 5           ? FloatSpecials::ieee
                                                    : FloatSpecials::finite;
  return FloatFormat{e, mantissa, specials};
}

// IEEE binary16, stored as its bit pattern; conversions round to nearest even, and a NaN becomes
// the canonical 0x7fff, as the GPU's cvt gives it.
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

// bfloat16, stored as its bit pattern; conversions round to nearest even, and a NaN becomes the
// canonical 0x7fff, as the GPU's cvt gives it.
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
// becomes 0x7f, whatever the sign of the input (as an H200 converts it).
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

// OCP MX's scale type E8M0 (PTX's ue8m0): an unsigned power of two, 2^(bits - 127), from 2^-127 to
// 2^127; 0xff is NaN, and there is neither zero nor infinity. A float converts to it by a stated
// rounding of its magnitude (the sign is dropped), as PTX's cvt.rz.satfinite.ue8m0x2.f32 and
// cvt.rp.satfinite.ue8m0x2.f32 convert: down (the greatest power of two not above |v|) or up (the
// least not below it), within [2^-127, 2^127]: zero becomes 2^-127 either way, infinities 2^127,
// and NaN 0xff. Widening is exact.
struct e8m0 {
  uint8_t bits = 0;
  e8m0() = default;
  static e8m0 round_down(float v);
  static e8m0 round_up(float v);
  explicit operator float() const;
  static e8m0 from_bits(uint8_t b) {
    e8m0 x;
    x.bits = b;
    return x;
  }
};

// NVIDIA's TensorFloat-32, the tensor cores' form of f32: f32's sign and 8-bit exponent with the top
// 10 of its 23 mantissa bits. A tf32 element is stored as an f32 in 32 bits, and its value is that
// f32's with the low 13 mantissa bits cleared, as the tensor cores read it (so any f32 is a tf32
// element, taken toward zero). Conversion from float is PTX's cvt.rna.tf32.f32: to nearest, ties
// away from zero, past the largest finite value to infinity; a NaN loses its low 13 bits (one whose
// payload lies only there becomes an infinity, as an H200 converts it).
struct tf32 {
  uint32_t bits = 0;
  tf32() = default;
  explicit tf32(float v);
  explicit operator float() const;
  static tf32 from_bits(uint32_t b) {
    tf32 x;
    x.bits = b;
    return x;
  }
};

// The packed types (fewer than 8 bits). Memory holds them as one stream of bits, element i in bits
// [i * N, (i + 1) * N) counted from the lowest bit of the first byte; a host buffer of them is one
// of bytes (uint8_t; pack_bits and unpack_bits below). These types only name the element type of a
// Ptr<T> or a tile: there is no host value of one.
template <int Bits, bool Signed> struct packed_int {};
template <int Exponent, int Mantissa> struct packed_float {};
using i1 = packed_int<1, true>;
using i2 = packed_int<2, true>;
using i3 = packed_int<3, true>;
using i4 = packed_int<4, true>;
using i5 = packed_int<5, true>;
using i6 = packed_int<6, true>;
using i7 = packed_int<7, true>;
using u1 = packed_int<1, false>;
using u2 = packed_int<2, false>;
using u3 = packed_int<3, false>;
using u4 = packed_int<4, false>;
using u5 = packed_int<5, false>;
using u6 = packed_int<6, false>;
using u7 = packed_int<7, false>;
using f3e1m1 = packed_float<1, 1>;
using f4e1m2 = packed_float<1, 2>;
using f4e2m1 = packed_float<2, 1>;
using f5e1m3 = packed_float<1, 3>;
using f5e2m2 = packed_float<2, 2>;
using f5e3m1 = packed_float<3, 1>;
using f6e2m3 = packed_float<2, 3>;
using f6e3m2 = packed_float<3, 2>;
using f6e4m1 = packed_float<4, 1>;
using f7e2m4 = packed_float<2, 4>;
using f7e3m3 = packed_float<3, 3>;
using f7e4m2 = packed_float<4, 2>;
using f7e5m1 = packed_float<5, 1>;

// Rounds a float to the nearest value representable in the floating-point type `t` (identity for f32).
float round_to(DType t, float v);

// A floating-point type's value of the bit pattern `bits`, and the pattern of a float converted to
// it (PTX's cvt.rn.satfinite: docs/language.md, "Conversions"; e8m0 rounds up, as
// e8m0::round_up). For f32 and the types of 16 bits or fewer.
float float_from_bits(DType t, uint32_t bits);
uint32_t float_to_bits(DType t, float v);
// The value of an element of type `t` whose bits are `bits`: its float, or its integer (a signed
// type's sign extended). For f32 and the types of 16 bits or fewer.
float value_from_bits(DType t, uint32_t bits);

// Host buffers of packed elements: `fields` (each element's bits, the low dtype_bits(t) of each
// value) packed into bytes in memory order, and field i of such bytes.
std::vector<uint8_t> pack_bits(DType t, const std::vector<uint32_t>& fields);
uint32_t unpack_bits(DType t, const uint8_t* bytes, int64_t i);

namespace detail {
template <class T> inline constexpr bool no_element_type = false;
}
// The element type of a C++ type, for Ptr<T>, shared_tensor<T>, register_tensor<T>, to<T>().
template <class T> struct dtype_of {
  static_assert(detail::no_element_type<T>,
                "tessel has no element type for this C++ type; the element types are bool, int8_t, uint8_t, "
                "int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, tessel::f8e4m3, tessel::f8e5m2, "
                "tessel::e8m0, tessel::f16, tessel::bf16, tessel::tf32, float, double, the packed integers tessel::i1 "
                "to tessel::i7 "
                "and tessel::u1 to "
                "tessel::u7, and the packed floats tessel::f3e1m1 to tessel::f7e5m1 (docs/language.md, \"Element "
                "types\")");
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
template <> struct dtype_of<double> { static constexpr DType value = DType::F64; };
namespace detail {
constexpr DType packed_dtype(int bits, bool is_float, bool is_signed, int exponent_bits) {
  for (const DTypeInfo& i : kDTypes)
    if (i.bits == bits && i.is_float == is_float && i.is_signed == is_signed && i.exponent_bits == exponent_bits)
      return i.dtype;
  throw std::logic_error("no packed type of these fields");
}
}  // namespace detail
template <int Bits, bool Signed> struct dtype_of<packed_int<Bits, Signed>> {
  static constexpr DType value = detail::packed_dtype(Bits, false, Signed, 0);
};
template <int Exponent, int Mantissa> struct dtype_of<packed_float<Exponent, Mantissa>> {
  static constexpr DType value = detail::packed_dtype(1 + Exponent + Mantissa, true, false, Exponent);
};
template <> struct dtype_of<f8e4m3> { static constexpr DType value = DType::F8E4M3; };
template <> struct dtype_of<f8e5m2> { static constexpr DType value = DType::F8E5M2; };
template <> struct dtype_of<e8m0> { static constexpr DType value = DType::E8M0; };
template <> struct dtype_of<tf32> { static constexpr DType value = DType::TF32; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::F16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::BF16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::F32; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace tessel
