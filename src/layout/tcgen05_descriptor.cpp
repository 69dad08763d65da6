#include "tessel/layout/tcgen05_descriptor.hpp"

#include "tessel/error.hpp"
#include "tessel/layout/operand_addresses.hpp"

namespace tessel {

namespace {

// The descriptor's 3-bit swizzle code for tessel's swizzle bits.
uint64_t swizzle_code(int swizzle_bits) {
  switch (swizzle_bits) {
    case 0: return 0;
    case 1: return 6;
    case 2: return 4;
    case 3: return 2;
  }
  TESSEL_CHECK(false, "no tcgen05 swizzle mode for swizzle bits {}", swizzle_bits);
  return 0;
}

int swizzle_bits_of_code(uint64_t code) {
  switch (code) {
    case 0: return 0;
    case 2: return 3;
    case 4: return 2;
    case 6: return 1;
  }
  TESSEL_CHECK(false, "tcgen05 shared-memory descriptor with swizzle code {}", code);
  return 0;
}

uint64_t field14(uint32_t bytes) { return (uint64_t(bytes) >> 4) & 0x3FFF; }

uint32_t type_code(DType t) {
  TESSEL_CHECK(t == DType::F16 || t == DType::BF16, "tcgen05 kind::f16 operand of type {}", dtype_name(t));
  return t == DType::BF16 ? 1 : 0;
}

DType type_of_code(uint32_t code) {
  TESSEL_CHECK(code <= 1, "tcgen05 instruction descriptor with operand type code {}", code);
  return code == 1 ? DType::BF16 : DType::F16;
}

}  // namespace

uint64_t Tcgen05SmemDescriptor::bits() const {
  return field14(start_address) | field14(leading_byte_offset) << 16 | field14(stride_byte_offset) << 32 |
         uint64_t(version & 7) << 46 | uint64_t(base_offset & 7) << 49 | swizzle_code(swizzle_bits) << 61;
}

Tcgen05SmemDescriptor Tcgen05SmemDescriptor::decode(uint64_t b) {
  Tcgen05SmemDescriptor d;
  d.start_address = uint32_t(b & 0x3FFF) << 4;
  d.leading_byte_offset = uint32_t(b >> 16 & 0x3FFF) << 4;
  d.stride_byte_offset = uint32_t(b >> 32 & 0x3FFF) << 4;
  d.version = int(b >> 46 & 7);
  d.base_offset = int(b >> 49 & 7);
  d.swizzle_bits = swizzle_bits_of_code(b >> 61);
  TESSEL_CHECK(d.version == 1, "tcgen05 shared-memory descriptor 0x{:x} has version {} (Blackwell needs 1)", b,
               d.version);
  return d;
}

Tcgen05SmemDescriptor tcgen05_k_major_descriptor(uint32_t start_address, int swizzle_bits) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "K-major tcgen05 operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "tcgen05 operand start {} is not 16-byte aligned", start_address);
  const uint32_t span = 16u << swizzle_bits;
  return Tcgen05SmemDescriptor{start_address & 0x3FFFF, 16, 8 * span, 1, 0, swizzle_bits};
}

int64_t tcgen05_k_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes) {
  return k_major_operand_address(d.start_address, d.stride_byte_offset, d.swizzle_bits, row, k, elem_bytes);
}

Tcgen05SmemDescriptor tcgen05_mn_major_descriptor(uint32_t start_address, int swizzle_bits, uint32_t block_bytes) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "MN-major tcgen05 operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "tcgen05 operand start {} is not 16-byte aligned", start_address);
  TESSEL_CHECK(block_bytes % 16 == 0 && block_bytes < (1u << 18), "tcgen05 operand blocks {} bytes apart", block_bytes);
  const uint32_t span = 16u << swizzle_bits;
  return Tcgen05SmemDescriptor{start_address & 0x3FFFF, block_bytes ? block_bytes : 16, 8 * span, 1, 0, swizzle_bits};
}

int64_t tcgen05_mn_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes) {
  return mn_major_operand_address(d.start_address, d.leading_byte_offset, d.stride_byte_offset, d.swizzle_bits, row, k,
                                  elem_bytes);
}

uint32_t Tcgen05InstrDescriptor::bits() const {
  TESSEL_CHECK(d_type == DType::F32, "tcgen05 kind::f16 accumulator of type {}", dtype_name(d_type));
  return 1u << 4 | type_code(a_type) << 7 | type_code(b_type) << 10 | uint32_t(a_mn_major) << 15 |
         uint32_t(b_mn_major) << 16 | uint32_t(n >> 3) << 17 | uint32_t(m >> 4) << 24;
}

Tcgen05InstrDescriptor Tcgen05InstrDescriptor::decode(uint32_t b) {
  constexpr uint32_t known = 3u << 4 | 0x3Fu << 7 | 3u << 15 | 0x3Fu << 17 | 0x1Fu << 24;
  TESSEL_CHECK((b & ~known) == 0, "tcgen05 instruction descriptor 0x{:x} sets bits tessel never sets", b);
  TESSEL_CHECK((b >> 4 & 3) == 1, "tcgen05 instruction descriptor 0x{:x} has a D type other than f32", b);
  Tcgen05InstrDescriptor d;
  d.m = int(b >> 24 & 0x1F) << 4;
  d.n = int(b >> 17 & 0x3F) << 3;
  d.a_type = type_of_code(b >> 7 & 7);
  d.b_type = type_of_code(b >> 10 & 7);
  d.a_mn_major = (b >> 15 & 1) != 0;
  d.b_mn_major = (b >> 16 & 1) != 0;
  return d;
}

bool tcgen05_mma_shape_is_legal(int m, int n, int cta_group) {
  if (cta_group == 1 && m == 64) return n >= 8 && n <= 256 && n % 8 == 0;
  if ((cta_group == 1 && m == 128) || (cta_group == 2 && (m == 128 || m == 256)))
    return n >= 16 && n <= 256 && n % 16 == 0;
  return false;
}

}  // namespace tessel
