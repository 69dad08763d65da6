#include "tessel/layout/wgmma_descriptor.hpp"

#include "tessel/error.hpp"
#include "tessel/layout/operand_addresses.hpp"

namespace tessel {

namespace {

// The descriptor's 2-bit swizzle field for tessel's swizzle bits, and back.
uint64_t swizzle_field(int swizzle_bits) {
  switch (swizzle_bits) {
    case 0: return 0;
    case 1: return 3;
    case 2: return 2;
    case 3: return 1;
  }
  TESSEL_CHECK(false, "no wgmma swizzle mode for swizzle bits {}", swizzle_bits);
  return 0;
}

int swizzle_bits_of_field(uint64_t field) {
  static constexpr int bits_of[4] = {0, 3, 2, 1};
  return bits_of[field & 3];
}

uint64_t field14(uint32_t bytes) { return (uint64_t(bytes) >> 4) & 0x3FFF; }

}  // namespace

uint64_t WgmmaDescriptor::bits() const {
  return field14(start_address) | field14(leading_byte_offset) << 16 | field14(stride_byte_offset) << 32 |
         uint64_t(base_offset & 7) << 49 | swizzle_field(swizzle_bits) << 62;
}

WgmmaDescriptor WgmmaDescriptor::decode(uint64_t b) {
  WgmmaDescriptor d;
  d.start_address = uint32_t(b & 0x3FFF) << 4;
  d.leading_byte_offset = uint32_t(b >> 16 & 0x3FFF) << 4;
  d.stride_byte_offset = uint32_t(b >> 32 & 0x3FFF) << 4;
  d.base_offset = int(b >> 49 & 7);
  d.swizzle_bits = swizzle_bits_of_field(b >> 62);
  return d;
}

int wgmma_swizzle_bits(int row_bytes) {
  switch (row_bytes) {
    case 32: return 1;
    case 64: return 2;
    case 128: return 3;
    default: return -1;
  }
}

WgmmaDescriptor wgmma_k_major_descriptor(uint32_t start_address, int swizzle_bits) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "K-major wgmma operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "wgmma operand start {} is not 16-byte aligned", start_address);
  const uint32_t span = 16u << swizzle_bits;
  return WgmmaDescriptor{start_address & 0x3FFFF, 16, 8 * span, 0, swizzle_bits};
}

int64_t wgmma_k_major_address(const WgmmaDescriptor& d, int row, int k, int elem_bytes) {
  return k_major_operand_address(d.start_address, d.stride_byte_offset, d.swizzle_bits, row, k, elem_bytes);
}

WgmmaDescriptor wgmma_mn_major_descriptor(uint32_t start_address, int swizzle_bits, uint32_t block_bytes) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "MN-major wgmma operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "wgmma operand start {} is not 16-byte aligned", start_address);
  TESSEL_CHECK(block_bytes % 16 == 0 && block_bytes < (1u << 18), "wgmma operand blocks {} bytes apart", block_bytes);
  const uint32_t span = 16u << swizzle_bits;
  return WgmmaDescriptor{start_address & 0x3FFFF, block_bytes ? block_bytes : 16, 8 * span, 0, swizzle_bits};
}

int64_t wgmma_mn_major_address(const WgmmaDescriptor& d, int row, int k, int elem_bytes) {
  return mn_major_operand_address(d.start_address, d.leading_byte_offset, d.stride_byte_offset, d.swizzle_bits, row, k,
                                  elem_bytes);
}

}  // namespace tessel
