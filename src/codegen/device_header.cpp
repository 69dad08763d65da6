// The device header of generated kernels: element types and the few helpers the emitter uses.
// Half-precision types are defined here (as bit patterns converted with PTX cvt) rather than taken
// from cuda_fp16.h, which keeps NVRTC compile times low and the header identical on every target.
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
  return fmt::format(R"CUDA(
// IEEE half: arithmetic happens in f32; conversions round to nearest even.
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

// bfloat16: arithmetic happens in f32; conversions round to nearest even.
struct tessel_bf16 {{
  unsigned short bits;
  tessel_bf16() = default;
  __device__ explicit tessel_bf16(float v) {{ {} }}
  __device__ explicit operator float() const {{ return __uint_as_float((unsigned int)bits << 16); }}
}};
)CUDA",
                     ptx_asm(Ptx::CvtRnF16F32, oldest, {{"bits"}, {"v"}}),
                     ptx_asm(Ptx::CvtF32F16, oldest, {{"v"}, {"bits"}}),
                     ptx_asm(Ptx::CvtRnBf16F32, oldest, {{"bits"}, {"v"}}));
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

// Four 8-bit integers in one 32-bit register, the first in the lowest byte (tensor-core operands).
__device__ __forceinline__ uint32_t tessel_pack4(int8_t b0, int8_t b1, int8_t b2, int8_t b3) {
  return uint32_t((unsigned char)b0) | (uint32_t((unsigned char)b1) << 8) | (uint32_t((unsigned char)b2) << 16) |
         (uint32_t((unsigned char)b3) << 24);
}

// The low (hi = 0) or high half of a 32-bit register as a 16-bit element.
template <class T> __device__ __forceinline__ T tessel_unpack(uint32_t r, int hi) {
  T x;
  x.bits = (unsigned short)(hi ? r >> 16 : r & 0xffffu);
  return x;
}

template <class T> __device__ __forceinline__ T tessel_shfl_xor(unsigned mask, T v, int lane_mask) {
  return __shfl_xor_sync(mask, v, lane_mask);
}

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
  static const std::string text = kIntegerTypes + half_types() + kHelpers;
  return text;
}

}  // namespace tessel::codegen
