// The device header of generated kernels: element types and the few helpers the emitter uses.
// Half-precision types are defined here (as bit patterns converted with PTX cvt) rather than taken
// from cuda_fp16.h, which keeps NVRTC compile times low and the header identical on every target.
#include <utility>

#include <fmt/format.h>

#include "ptx.hpp"
#include "tessel/codegen/cuda.hpp"

namespace tessel::codegen {

namespace {

// NVRTC has no C library headers; nvcc, which compiles the standalone form of a kernel, has them,
// and its int64_t is not `long long` on Linux.
const char* const kIntegerTypes = R"CUDA(#pragma once
#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif
)CUDA";

// The conversions are rendered for the oldest target, so the header is the same on every target.
// bf16 widens to f32 by a shift, which needs no instruction of its own.
std::string half_types() {
  const ir::Arch oldest = ir::Arch::Sm80;
  return fmt::format(
      R"CUDA(
// IEEE half: arithmetic happens in f32, but for +, - and * of tiles, in pairs (emit_tiles.cpp);
// conversions round to nearest even.
struct tessel_f16 {{
  unsigned short bits;
  tessel_f16() = default;
  __device__ explicit tessel_f16(float v) {{ {} }}
  __device__ explicit operator float() const {{
    float v;
    {}
    return v;
  }}
}};

// bfloat16: as tessel_f16.
struct tessel_bf16 {{
  unsigned short bits;
  tessel_bf16() = default;
  __device__ explicit tessel_bf16(float v) {{ {} }}
  __device__ explicit operator float() const {{ return __uint_as_float((unsigned int)bits << 16); }}
}};

// tf32: an f32 whose low 13 mantissa bits the tensor cores ignore; its value has them cleared.
// Conversions round to nearest, ties away from zero.
struct tessel_tf32 {{
  unsigned int bits;
  tessel_tf32() = default;
  __device__ explicit tessel_tf32(float v) {{ {} }}
  __device__ explicit operator float() const {{ return __uint_as_float(bits & 0xffffe000u); }}
}};
)CUDA",
      ptx_asm(Ptx::CvtRnF16F32, oldest, {{"bits"}, {"v"}}), ptx_asm(Ptx::CvtF32F16, oldest, {{"v"}, {"bits"}}),
      ptx_asm(Ptx::CvtRnBf16F32, oldest, {{"bits"}, {"v"}}), ptx_asm(Ptx::CvtRnaTf32F32, oldest, {{"bits"}, {"v"}}));
}

// fp8 converts with PTX cvt where the target has it (sm_89 and newer) and with the same rounding in
// integer arithmetic on sm_80 (dtype.hpp states the conversions).
std::string fp8_types() {
  const ir::Arch fp8 = ir::Arch::Sm90a;
  std::string text = R"CUDA(
// fp8 on targets without fp8 cvt: nearest (ties to even), saturated to the largest finite value,
// NaN as 0x7f with its sign.
__device__ __forceinline__ unsigned char tessel_f32_to_f8(float v, int mantissa, int bias, float max_finite) {
  if (v != v) return 0x7fu;  // NaN, positive whatever its sign, as sm_89's cvt gives it
  const unsigned char sign = (__float_as_uint(v) >> 24) & 0x80u;
  const float a = fminf(fabsf(v), max_finite);
  const int min_exponent = 1 - bias;
  const int e = a == 0.0f ? min_exponent : max(ilogbf(a), min_exponent);
  int m = int(rintf(ldexpf(a, mantissa - e)));
  if (m == 0) return sign;
  int exponent = e;
  if (m >= 2 << mantissa) {
    m >>= 1;
    ++exponent;
  }
  const int field = m >= 1 << mantissa ? exponent + bias : 0;
  return (unsigned char)(sign | field << mantissa | (m & ((1 << mantissa) - 1)));
}
__device__ __forceinline__ float tessel_f8_to_f32(unsigned char b, int mantissa, int bias, bool has_infinity) {
  const int top = (1 << (7 - mantissa)) - 1;
  const int field = (b >> mantissa) & top, m = b & ((1 << mantissa) - 1);
  const float sign = (b & 0x80u) ? -1.0f : 1.0f;
  if (has_infinity && field == top) return m == 0 ? sign * __int_as_float(0x7f800000) : __int_as_float(0x7fffffff);
  if (!has_infinity && field == top && m == (1 << mantissa) - 1) return __int_as_float(0x7fffffff);
  if (field == 0) return sign * ldexpf(float(m), 1 - bias - mantissa);
  return sign * ldexpf(float(m | 1 << mantissa), field - bias - mantissa);
}
)CUDA";
  struct Format {
    const char* type;
    const char* ptx;
    const char* description;
    int mantissa, bias;
    const char* max_finite;
    bool has_infinity;
  };
  for (const Format& f : {Format{"tessel_f8e4m3", "e4m3", "fp8 e4m3 (OCP E4M3FN)", 3, 7, "448.0f", false},
                          Format{"tessel_f8e5m2", "e5m2", "fp8 e5m2", 2, 15, "57344.0f", true}}) {
    const PtxModifiers format{{"format", f.ptx}};
    text += fmt::format(R"CUDA(
// {0}: arithmetic happens in f32.
struct {1} {{
  unsigned char bits;
  {1}() = default;
  __device__ explicit {1}(float v) {{
#if __CUDA_ARCH__ >= 890
    unsigned short pair;
    const float zero = 0.0f;
    {2}
    bits = (unsigned char)(pair & 0xffu);
#else
    bits = tessel_f32_to_f8(v, {4}, {5}, {6});
#endif
  }}
  __device__ explicit operator float() const {{
#if __CUDA_ARCH__ >= 890
    const unsigned short in = bits;
    unsigned int pair;
    {3}
    const unsigned short half = (unsigned short)(pair & 0xffffu);
    float v;
    {7}
    return v;
#else
    return tessel_f8_to_f32(bits, {4}, {5}, {8});
#endif
  }}
}};
)CUDA",
                        f.description, f.type,
                        ptx_asm(Ptx::CvtRnSatfiniteF8x2F32, fp8, {{"pair"}, {"zero"}, {"v"}}, format),
                        ptx_asm(Ptx::CvtRnF16x2F8x2, fp8, {{"pair"}, {"in"}}, format), f.mantissa, f.bias, f.max_finite,
                        ptx_asm(Ptx::CvtF32F16, ir::Arch::Sm80, {{"v"}, {"half"}}), f.has_infinity ? "true" : "false");
  }
  return text;
}

// e8m0 converts in integer arithmetic on every target (sm_100a's cvt...ue8m0x2 gives the same bits), so
// that the H200 runs what Blackwell runs (dtype.hpp states the conversions).
const char* const kScaleType = R"CUDA(
// e8m0, OCP MX's scale: 2^(bits - 127), NaN 0xff. From f32 the magnitude rounds down or up to a power
// of two within [2^-127, 2^127], NaN to 0xff; the constructor of one float rounds up.
struct tessel_e8m0 {
  unsigned char bits;
  tessel_e8m0() = default;
  __device__ tessel_e8m0(float v, bool up) {
    const unsigned int magnitude = __float_as_uint(v) & 0x7fffffffu;
    unsigned int field = magnitude >> 23;
    if (up && (magnitude & 0x7fffffu) != 0u && magnitude > 0x00400000u) ++field;
    bits = (unsigned char)(magnitude > 0x7f800000u ? 0xffu : min(field, 0xfeu));
  }
  __device__ explicit tessel_e8m0(float v) : tessel_e8m0(v, true) {}
  __device__ explicit operator float() const {
    if (bits == 0xffu) return __int_as_float(0x7fffffff);
    return __int_as_float(bits == 0u ? 0x00400000 : int(bits) << 23);
  }
};
)CUDA";

// Eight 4-bit integers of one word as f16 or bf16, in order, without a conversion instruction:
// byte j of the word (elements 2j and 2j + 1) is copied into both halves of a register by one byte
// permute, one lop3 leaves an element's bits in the mantissa of a magic number whose last place is
// worth 1 (1024 in f16, 128 in bf16), and one packed multiply-add removes the magic. In f16 the high
// nibble is taken in place, as 16 units, and scaled by 1/16 in the same multiply-add; in bf16 (whose
// mantissa is 7 bits) it is shifted down first. Signed elements are offset by 8 (x ^ 8 = x + 8 in 4
// bits, by the same lop3) and the offset removed with the magic. Per 8 values: 4 permutes, 4 lop3, 4
// multiply-adds, and a shift (bf16). 8-bit integers go the same way to f16, a byte per half.
std::string dequantize_narrow_integers() {
  const ir::Arch oldest = ir::Arch::Sm80;
  return fmt::format(R"CUDA(
__device__ __forceinline__ unsigned int tessel_fma_f16x2(unsigned int a, unsigned int b, unsigned int c) {{
  unsigned int d;
  {}
  return d;
}}
__device__ __forceinline__ unsigned int tessel_fma_bf16x2(unsigned int a, unsigned int b, unsigned int c) {{
  unsigned int d;
  {}
  return d;
}}
// Two 16-bit values in one 32-bit register, the first in the low half, and back.
__device__ __forceinline__ unsigned int tessel_pair2(unsigned short lo, unsigned short hi) {{
  return (unsigned int)lo | (unsigned int)hi << 16;
}}
template <class T> __device__ __forceinline__ void tessel_unpair2(unsigned int v, T& lo, T& hi) {{
  lo.bits = (unsigned short)(v & 0xffffu);
  hi.bits = (unsigned short)(v >> 16);
}}
// Two packed floats of E exponent and M mantissa bits (fields f0 and f1) under the bits of a
// 16-bit float of Mantissa16 mantissa bits, in the halves of a register: each sign to bit 15, the
// exponent and mantissa under the 16-bit type's. A packed multiply by the power of two between the
// biases then gives the values exactly, subnormals included.
template <int E, int M, int Mantissa16>
__device__ __forceinline__ unsigned int tessel_float_bits_pair(unsigned int f0, unsigned int f1) {{
  const unsigned int pair = f0 | f1 << 16, magnitude = ((1u << (E + M)) - 1u) * 0x10001u;
  return (pair & magnitude) << (Mantissa16 - M) | (pair >> (E + M) & 0x10001u) << 15;
}}
template <int Selector> __device__ __forceinline__ unsigned int tessel_prmt(unsigned int a, unsigned int b) {{
  unsigned int d;
  {}
  return d;
}}
// Any function of a, b and c, bit by bit, in one instruction: Lut is its truth table for a = 0xf0,
// b = 0xcc, c = 0xaa ((a & b) | c: 0xea; (a & b) ^ c: 0x6a).
template <unsigned int Lut>
__device__ __forceinline__ unsigned int tessel_lop3(unsigned int a, unsigned int b, unsigned int c) {{
  unsigned int d;
  {}
  return d;
}}
template <bool Signed> __device__ __forceinline__ void tessel_dequantize4_f16(uint32_t w, tessel_f16* out) {{
  // Signed nibbles are made excess-8 by flipping their top bits (bits 3 and 23 of a pair) with the magic.
  const unsigned int magic = Signed ? 0x64806408u : 0x64006400u;
  const unsigned int scale = 0x2c003c00u;                            // (1, 1/16)
  const unsigned int minus_magic = Signed ? 0xd480e408u : 0xd400e400u;  // (-1024, -1024/16), - 8 if signed
  // Byte j in bytes 0 and 2, zeros in bytes 1 and 3.
  const unsigned int pairs[4] = {{tessel_prmt<0x4040>(w, 0), tessel_prmt<0x4141>(w, 0), tessel_prmt<0x4242>(w, 0),
                                 tessel_prmt<0x4343>(w, 0)}};
#pragma unroll
  for (int j = 0; j < 4; ++j)
    tessel_unpair2(tessel_fma_f16x2(tessel_lop3<0x6a>(pairs[j], 0x00f0000fu, magic), scale, minus_magic), out[2 * j],
                   out[2 * j + 1]);
}}
// 8-bit integers to f16, four at a time from the word that holds them, byte j element j (two
// permutes and two multiply-adds): each byte under the exponent of 1024 (0x64) is the f16 1024 + v,
// exactly; signed bytes are made excess-128 first.
template <bool Signed> __device__ __forceinline__ void tessel_dequantize8_word_f16(unsigned int w, tessel_f16* out) {{
  if (Signed) w ^= 0x80808080u;
  const unsigned int one = 0x3c003c00u, minus_magic = Signed ? 0xe480e480u : 0xe400e400u;  // -1024 (- 128)
  tessel_unpair2(tessel_fma_f16x2(tessel_prmt<0x4140>(w, 0x64646464u), one, minus_magic), out[0], out[1]);
  tessel_unpair2(tessel_fma_f16x2(tessel_prmt<0x4342>(w, 0x64646464u), one, minus_magic), out[2], out[3]);
}}
// The same from four bytes, one a register.
template <bool Signed>
__device__ __forceinline__ void tessel_dequantize8_f16(unsigned int b0, unsigned int b1, unsigned int b2,
                                                       unsigned int b3, tessel_f16* out) {{
  tessel_dequantize8_word_f16<Signed>((b0 & 0xffu) | (b1 & 0xffu) << 8 | (b2 & 0xffu) << 16 | (b3 & 0xffu) << 24,
                                      out);
}}
// 8-bit integers to bf16, four at a time from the word that holds them: bf16's 7 mantissa bits
// cannot hold a byte under a magic exponent, so each byte goes under f32's exponent of 2^23 (0x4b)
// by one permute, one subtraction makes it exact, and one conversion rounds each pair (exactly:
// every 8-bit integer is a bf16); signed bytes are made excess-128 first.
__device__ __forceinline__ unsigned int tessel_bf16x2_from_f32(float hi, float lo) {{
  unsigned int d;
  {}
  return d;
}}
template <bool Signed> __device__ __forceinline__ void tessel_dequantize8_word_bf16(unsigned int w, tessel_bf16* out) {{
  if (Signed) w ^= 0x80808080u;
  const float magic = Signed ? 8388736.0f : 8388608.0f;  // 2^23 (+ 128)
  const float v0 = __uint_as_float(tessel_prmt<0x7540>(w, 0x4b000000u)) - magic,
              v1 = __uint_as_float(tessel_prmt<0x7541>(w, 0x4b000000u)) - magic,
              v2 = __uint_as_float(tessel_prmt<0x7542>(w, 0x4b000000u)) - magic,
              v3 = __uint_as_float(tessel_prmt<0x7543>(w, 0x4b000000u)) - magic;
  tessel_unpair2(tessel_bf16x2_from_f32(v1, v0), out[0], out[1]);
  tessel_unpair2(tessel_bf16x2_from_f32(v3, v2), out[2], out[3]);
}}
template <bool Signed>
__device__ __forceinline__ void tessel_dequantize8_bf16(unsigned int b0, unsigned int b1, unsigned int b2,
                                                        unsigned int b3, tessel_bf16* out) {{
  tessel_dequantize8_word_bf16<Signed>((b0 & 0xffu) | (b1 & 0xffu) << 8 | (b2 & 0xffu) << 16 | (b3 & 0xffu) << 24,
                                       out);
}}
template <bool Signed> __device__ __forceinline__ void tessel_dequantize4_bf16(uint32_t w, tessel_bf16* out) {{
  // Signed nibbles are made excess-8 by flipping their top bits (bits 3 and 19 of a pair) with the magic.
  const unsigned int magic = Signed ? 0x43084308u : 0x43004300u;
  const unsigned int one = 0x3f803f80u, minus_magic = Signed ? 0xc308c308u : 0xc300c300u;  // -128 (- 8)
  const unsigned int high = w >> 4;
  // Byte j of w in byte 0, byte j of w >> 4 in byte 2.
  const unsigned int pairs[4] = {{tessel_prmt<0x0400>(w, high), tessel_prmt<0x0501>(w, high),
                                 tessel_prmt<0x0602>(w, high), tessel_prmt<0x0703>(w, high)}};
#pragma unroll
  for (int j = 0; j < 4; ++j)
    tessel_unpair2(tessel_fma_bf16x2(tessel_lop3<0x6a>(pairs[j], 0x000f000fu, magic), one, minus_magic), out[2 * j],
                   out[2 * j + 1]);
}}
)CUDA",
                     ptx_asm(Ptx::FmaF16x2, oldest, {{"d"}, {"a"}, {"b"}, {"c"}}),
                     ptx_asm(Ptx::FmaBf16x2, oldest, {{"d"}, {"a"}, {"b"}, {"c"}}),
                     ptx_asm(Ptx::Prmt, oldest, {{"d"}, {"a"}, {"b"}, {"Selector"}}),
                     ptx_asm(Ptx::Lop3, oldest, {{"d"}, {"a"}, {"b"}, {"c"}, {"Lut"}}),
                     ptx_asm(Ptx::CvtRnBf16x2F32, oldest, {{"d"}, {"hi"}, {"lo"}}));
}

// The fast forms of the math functions (Precision::fast): PTX's approximations, one f32 -> f32
// function each, named as emit_kernel.cpp's unary_expr calls them.
std::string fast_math() {
  static const std::pair<const char*, Ptx> kApproximations[] = {{"ex2", Ptx::Ex2Approx},   {"lg2", Ptx::Lg2Approx},
                                                                {"tanh", Ptx::TanhApprox}, {"sqrt", Ptx::SqrtApprox},
                                                                {"sin", Ptx::SinApprox},   {"cos", Ptx::CosApprox}};
  std::string out = "\n";
  for (const auto& [name, ptx] : kApproximations)
    out += fmt::format(R"CUDA(__device__ __forceinline__ float tessel_{}_approx(float x) {{
  float y;
  {}
  return y;
}}
)CUDA",
                       name, ptx_asm(ptx, ir::Arch::Sm80, {{"y"}, {"x"}}));
  return out;
}

// The L2 cache policies of a view's cache hints (ir::CacheHint), one function each, which the
// kernel's qualified accesses call (global_access.cpp).
std::string cache_policies() {
  std::string policies;
  for (const ir::CacheHint hint : {ir::CacheHint::EvictFirst, ir::CacheHint::EvictLast})
    policies += fmt::format(
        R"CUDA(
__device__ __forceinline__ uint64_t {}() {{
  uint64_t policy;
  {}
  return policy;
}}
)CUDA",
        cache_policy_function(hint),
        ptx_asm(Ptx::CreatePolicy, ir::Arch::Sm80, {{"policy"}},
                {{"priority", std::string(ir::cache_hint_name(hint))}}));
  return policies;
}

const char* const kHelpers = R"CUDA(
// N consecutive elements moved as one access (16 bytes at most); `p` must be aligned to it.
template <class T, int N> struct alignas(sizeof(T) * N) tessel_vec {
  T v[N];
};
template <class T, int N> __device__ __forceinline__ void tessel_load_vec(T* dst, const T* p) {
  const tessel_vec<T, N> x = *reinterpret_cast<const tessel_vec<T, N>*>(p);
#pragma unroll
  for (int i = 0; i < N; ++i) dst[i] = x.v[i];
}
template <class T, int N> __device__ __forceinline__ void tessel_store_vec(T* p, const T* src) {
  tessel_vec<T, N> x;
#pragma unroll
  for (int i = 0; i < N; ++i) x.v[i] = src[i];
  *reinterpret_cast<tessel_vec<T, N>*>(p) = x;
}

// Packed tiles: register slot l of a thread is bits [B*l, B*l + B) of the stream of its words,
// the order of the elements in memory; a field of a width that does not divide 32 may cross into
// the next word.
template <int B> __device__ __forceinline__ uint32_t tessel_packed_field(const uint32_t* words, int l) {
  const int bit = l * B, w = bit / 32, s = bit % 32;
  uint32_t field = words[w] >> s;
  if (s + B > 32) field |= words[w + 1] << (32 - s);
  return field & ((1u << B) - 1u);
}
template <int B> __device__ __forceinline__ void tessel_packed_set(uint32_t* words, int l, uint32_t v) {
  const int bit = l * B, w = bit / 32, s = bit % 32;
  const uint32_t mask = (1u << B) - 1u;
  words[w] = (words[w] & ~(mask << s)) | ((v & mask) << s);
  if (s + B > 32) words[w + 1] = (words[w + 1] & ~(mask >> (32 - s))) | ((v & mask) >> (32 - s));
}
template <int B> __device__ __forceinline__ int tessel_sign_extend(uint32_t field) {
  return int(field << (32 - B)) >> (32 - B);
}
// The packed element whose first bit is bit `shift` of `byte`; it may end in the next byte.
template <int B> __device__ __forceinline__ uint32_t tessel_packed_read(const uint8_t* byte, int shift) {
  uint32_t bits = uint32_t(byte[0]) >> shift;
  if (shift + B > 8) bits |= uint32_t(byte[1]) << (8 - shift);
  return bits & ((1u << B) - 1u);
}
// A packed element written alone shares its bytes with neighbours that other threads may write:
// the read-modify-write of each 32-bit word it touches is two atomics on disjoint bits.
template <int B> __device__ __forceinline__ void tessel_packed_write(uint8_t* byte, int shift, uint32_t v) {
  const unsigned long long address = reinterpret_cast<unsigned long long>(byte);
  unsigned int* word = reinterpret_cast<unsigned int*>(address & ~3ull);
  const int s = int(address & 3) * 8 + shift;
  const unsigned int field = v & ((1u << B) - 1u);
  atomicAnd(word, ~(((1u << B) - 1u) << s));
  atomicOr(word, field << s);
  if (s + B > 32) {
    atomicAnd(word + 1, ~(((1u << B) - 1u) >> (32 - s)));
    atomicOr(word + 1, field >> (32 - s));
  }
}
// A packed float's value (Specials 0: infinities and NaNs in the top exponent, 1: none), exact in
// f32; and the pattern of a float converted to it as cvt.rn.satfinite converts (`max_finite` the
// format's largest finite value; NaN becomes the pattern of all ones with its sign).
template <int E, int M, int Specials> __device__ __forceinline__ float tessel_decode_float(uint32_t f) {
  constexpr int bias = (1 << (E - 1)) - 1, top = (1 << E) - 1;
  const uint32_t sign = (f >> (E + M) & 1u) << 31;
  const int field = int(f >> M) & top;
  const uint32_t m = f & ((1u << M) - 1u);
  if (Specials == 0 && field == top) return __uint_as_float(sign | 0x7f800000u | (m << (23 - M)));
  if (field == 0) return __uint_as_float(sign | __float_as_uint(float(m) * __uint_as_float(uint32_t(128 - bias - M) << 23)));
  return __uint_as_float(sign | uint32_t(field - bias + 127) << 23 | m << (23 - M));
}
// An f16 widened to f32 with its sign kept also where it is a NaN (cvt.f32.f16 gives the
// canonical NaN, which has none).
__device__ __forceinline__ float tessel_f16_with_nan_sign(tessel_f16 h) {
  return copysignf(float(h), (h.bits & 0x8000u) ? -1.0f : 1.0f);
}
template <int E, int M> __device__ __forceinline__ uint32_t tessel_encode_float(float v, float max_finite) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const uint32_t x = __float_as_uint(v), sign = (x >> 31) << (E + M);
  if ((x & 0x7fffffffu) > 0x7f800000u) return sign | ((1u << (E + M)) - 1u);
  const float a = fminf(__uint_as_float(x & 0x7fffffffu), max_finite);
  int e = max(int(__float_as_uint(a) >> 23) - 127, 1 - bias);
  // Units of the last place at exponent e (an exact scaling by 2^(M - e)), rounded to even.
  int m = int(rintf(a * __uint_as_float(uint32_t(M - e + 127) << 23)));
  if (m >= (2 << M)) {
    m >>= 1;
    ++e;
  }
  const uint32_t field = m >= (1 << M) ? uint32_t(e + bias) : 0u;
  return sign | field << M | (uint32_t(m) & ((1u << M) - 1u));
}
// The byte offset of a shared element under a swizzle of B bits (layout/shared_swizzle.hpp).
template <int B> __device__ __forceinline__ int tessel_swizzle(int byte) {
  return byte ^ (((byte >> 7) & ((1 << B) - 1)) << 4);
}

// A CUtensorMap as the driver encodes it on the host (128 opaque bytes, 64-byte aligned); kernels
// take it as a `const __grid_constant__` parameter so that TMA reads it where it was passed.
struct alignas(64) tessel_tensor_map {
  unsigned long long opaque[16];
};

// Two 16-bit values in one 32-bit register, the first in the low half (tensor-core operands).
template <class T> __device__ __forceinline__ uint32_t tessel_pack2(T lo, T hi) {
  return uint32_t(lo.bits) | (uint32_t(hi.bits) << 16);
}

// Four 8-bit integers of either signedness in one 32-bit register, the first in the lowest byte
// (tensor-core operands): each converts to its byte modulo 2^8.
__device__ __forceinline__ uint32_t tessel_pack4(uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
  return uint32_t(b0) | (uint32_t(b1) << 8) | (uint32_t(b2) << 16) | (uint32_t(b3) << 24);
}

// The low (hi = 0) or high half of a 32-bit register as a 16-bit element.
template <class T> __device__ __forceinline__ T tessel_unpack(uint32_t r, int hi) {
  T x;
  x.bits = (unsigned short)(hi ? r >> 16 : r & 0xffffu);
  return x;
}

// An element of type T with the bits `b` (a bitcast to a type stored as its bit pattern).
template <class T, class U> __device__ __forceinline__ T tessel_from_bits(U b) {
  T x;
  x.bits = b;
  return x;
}

// An f64 value as an f32 rounded to odd: toward zero, with the last bit set where bits were cut
// off, so that rounding it again to a narrower float rounds the f64 value once.
__device__ __forceinline__ float tessel_f64_to_f32_odd(double v) {{
  const float t = __double2float_rz(v);
  return (double)t == v || v != v ? t : __uint_as_float(__float_as_uint(t) | 1u);
}}

template <class T> __device__ __forceinline__ T tessel_shfl_xor(unsigned mask, T v, int lane_mask) {
  return __shfl_xor_sync(mask, v, lane_mask);
}

// Orders the memory accesses of `lanes` of the warp with each other (bar.warp.sync): emitted where
// a thread group covering part of a warp is entered and left, and around an instruction one thread
// issues for its group, so that what those lanes do is ordered with what the warp's other lanes
// did before and do after, as the simulator orders a warp's instructions. `lanes` is every lane of
// the warp where the code around is the same for all of them, and the lanes converged there
// (__activemask()) under a loop or branch, which need not wait for lanes that left.
__device__ __forceinline__ void tessel_sync_lanes(unsigned lanes) { __syncwarp(lanes); }

// fast_divmod's quotient x / d, from d's magic multiplier m and l = ceil(log2 d) computed at launch
// (ir/fast_divmod.hpp); a signed x divides its magnitude and takes its sign back.
__device__ __forceinline__ uint32_t tessel_fast_divide(uint32_t x, uint32_t m, uint32_t l) {
  const uint32_t t = __umulhi(m, x);
  return (t + ((x - t) >> min(l, 1u))) >> (l > 0u ? l - 1u : 0u);
}
__device__ __forceinline__ int32_t tessel_fast_divide(int32_t x, uint32_t m, uint32_t l) {
  const uint32_t q = tessel_fast_divide(x < 0 ? 0u - uint32_t(x) : uint32_t(x), m, l);
  return x < 0 ? int32_t(0u - q) : int32_t(q);
}
)CUDA";

}  // namespace

const std::string& device_header() {
  static const std::string text = kIntegerTypes + half_types() + fp8_types() + kScaleType + fast_math() +
                                  dequantize_narrow_integers() + kHelpers + cache_policies();
  return text;
}

}  // namespace tessel::codegen
