// The descriptors through which tcgen05.mma (sm_100a) reads its operands and learns its shape.
//
// Shared-memory matrix descriptor, 64 bits (PTX ISA 9.7.16.4.1; hw-semantics.md §5.5): the
// wgmma descriptor's fields plus a version:
//   bits  0-13  start address >> 4 (the address's low 18 bits)
//   bits 16-29  leading-dimension byte offset >> 4
//   bits 32-45  stride-dimension byte offset >> 4
//   bits 46-48  version: 0b001 on Blackwell
//   bits 49-51  base offset (0: the operand starts on a repeat of its swizzle pattern)
//   bits 61-63  swizzle: 0 none, 2 128-byte, 4 64-byte, 6 32-byte (1: 128-byte with 32-byte
//               atoms, which tessel does not use; 3, 5, 7 invalid)
// tessel's operands have the layouts of wgmma's (wgmma_descriptor.hpp): K-major rows of exactly
// one swizzle span, 8-row groups 8 spans apart, the leading offset unused (1), the k-th 32-byte
// step of a row addressed by moving the start address; or MN-major k-rows of one span, span-wide
// blocks along M or N one leading offset apart, the k-th step 16 k-rows further.
//
// Instruction descriptor, 32 bits, for kind::f16 (PTX ISA 9.7.16.4.2; hw-semantics.md §5.4):
//   bits 4-5 D type (1: f32), 7-9 A type and 10-12 B type (0: f16, 1: bf16), 15/16 A/B
//   MN-major (0: K-major), 17-22 N >> 3, 24-28 M >> 4; the others 0 (dense, no negation).
#pragma once

#include <cstdint>

#include "tessel/dtype.hpp"

namespace tessel {

struct Tcgen05SmemDescriptor {
  uint32_t start_address = 0;        // bytes, in the shared window; a multiple of 16
  uint32_t leading_byte_offset = 0;  // bytes, a multiple of 16
  uint32_t stride_byte_offset = 0;   // bytes, a multiple of 16
  int version = 1;
  int base_offset = 0;
  int swizzle_bits = 0;  // tessel's swizzle (shared_swizzle.hpp): 0 none, 1/2/3 = 32/64/128 bytes

  uint64_t bits() const;
  // Throws an internal error on a field a tcgen05.mma would reject (version, swizzle code).
  static Tcgen05SmemDescriptor decode(uint64_t bits);
  bool operator==(const Tcgen05SmemDescriptor&) const = default;
};

// The descriptor of a K-major operand starting at shared byte `start_address` (the unswizzled
// address of its row 0, column k) in a tile swizzled by `swizzle_bits` (1..3, rows of one span).
Tcgen05SmemDescriptor tcgen05_k_major_descriptor(uint32_t start_address, int swizzle_bits);

// The shared byte address from which the tensor core reads element (row, k) of a K-major operand
// described by `d` with elements of `elem_bytes`: what the simulator reads.
int64_t tcgen05_k_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes);

// The descriptor of an MN-major operand starting at shared byte `start_address` (the unswizzled
// address of its k-row 0) in a tile swizzled by `swizzle_bits` (1..3, k-rows of one span), with
// its span-wide blocks `block_bytes` apart (0: one block).
Tcgen05SmemDescriptor tcgen05_mn_major_descriptor(uint32_t start_address, int swizzle_bits, uint32_t block_bytes);

// The shared byte address from which the tensor core reads element (row, k) of an MN-major
// operand, `row` its M or N index.
int64_t tcgen05_mn_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes);

struct Tcgen05InstrDescriptor {
  int m = 0, n = 0;
  DType a_type = DType::F16, b_type = DType::F16, d_type = DType::F32;
  bool a_mn_major = false, b_mn_major = false;

  uint32_t bits() const;
  // Throws an internal error on a descriptor tessel cannot have made (reserved bits, types).
  static Tcgen05InstrDescriptor decode(uint32_t bits);
  bool operator==(const Tcgen05InstrDescriptor&) const = default;
};

// tcgen05.mma's shapes (PTX ISA 9.7.16.2.1): with one CTA (cta_group::1), M 64 or 128, N a
// multiple of 8 (M = 64) or 16 (M = 128) from 8 or 16 to 256; with a CTA pair (cta_group::2), M 128
// or 256, N a multiple of 16 from 16 to 256. 32 bytes of K per instruction (16 halves).
inline constexpr int kTcgen05K = 16;
bool tcgen05_mma_shape_is_legal(int m, int n, int cta_group = 1);

}  // namespace tessel
