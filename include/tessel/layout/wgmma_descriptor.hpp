// The 64-bit shared-memory matrix descriptor through which wgmma reads an operand tile (PTX ISA
// 9.7.15.5.1.2.2; hw-semantics.md §4.2), derived from the tile's layout and swizzle:
//   bits  0-13  start address >> 4 (the address's low 18 bits)
//   bits 16-29  leading-dimension byte offset >> 4
//   bits 32-45  stride-dimension byte offset >> 4
//   bits 49-51  base offset (0: the operand starts on a repeat of its swizzle pattern)
//   bits 62-63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
// K-major operands (PTX ISA 9.7.15.5.1.2.1.3) have rows (the M or N index) of exactly one swizzle
// span (32, 64 or 128 bytes, i.e. K = 16, 32 or 64 halves), 8-row groups one stride offset (8
// spans) apart, the swizzle XOR applied to the address (hw-semantics.md §4.3). The leading offset
// is unused for swizzled K-major operands and set to 1, as CUTLASS does. The k-th k16 step of a
// row is addressed by moving the start address 32 bytes per step.
// An MN-major operand (16-bit types only) has k-rows of one swizzle span along M or N: groups of 8
// k-rows one stride offset (8 spans) apart, and blocks of one span along M or N one leading offset
// apart (unused, and set to 1, when M or N is one span). The k-th k16 step starts 16 k-rows
// further.
#pragma once

#include <cstdint>

namespace tessel {

struct WgmmaDescriptor {
  uint32_t start_address = 0;        // bytes, in the shared window; a multiple of 16
  uint32_t leading_byte_offset = 0;  // bytes, a multiple of 16
  uint32_t stride_byte_offset = 0;   // bytes, a multiple of 16
  int base_offset = 0;
  int swizzle_bits = 0;  // tessel's swizzle (shared_swizzle.hpp): 0 none, 1/2/3 = 32/64/128 bytes

  uint64_t bits() const;
  static WgmmaDescriptor decode(uint64_t bits);
  bool operator==(const WgmmaDescriptor&) const = default;
};

// The swizzle a K-major wgmma operand with rows of `row_bytes` must have (the span equal to the
// row): 1, 2 or 3 for rows of 32, 64 or 128 bytes; -1 for rows of any other size, which have no
// canonical K-major layout as a row-major tile.
int wgmma_swizzle_bits(int row_bytes);

// The descriptor of a K-major operand starting at shared byte `start_address` (the unswizzled
// address of its row 0, column k) in a tile swizzled by `swizzle_bits` (1..3, rows of one span).
WgmmaDescriptor wgmma_k_major_descriptor(uint32_t start_address, int swizzle_bits);

// The descriptor of an MN-major operand starting at shared byte `start_address` (the unswizzled
// address of its k-row 0) in a tile swizzled by `swizzle_bits` (1..3, k-rows of one span), with
// its span-wide blocks `block_bytes` apart (0: one block).
WgmmaDescriptor wgmma_mn_major_descriptor(uint32_t start_address, int swizzle_bits, uint32_t block_bytes);

// The shared byte address from which the tensor core reads element (n, k) of an MN-major operand.
int64_t wgmma_mn_major_address(const WgmmaDescriptor& d, int n, int k, int elem_bytes);

// The shared byte address from which the tensor core reads element (row, k) of a K-major operand
// described by `d` with elements of `elem_bytes` (hw-semantics.md §4.3): what the simulator reads.
int64_t wgmma_k_major_address(const WgmmaDescriptor& d, int row, int k, int elem_bytes);

}  // namespace tessel
