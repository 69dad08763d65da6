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
// Instruction descriptor, 32 bits (PTX ISA 9.7.16.4.2, Tables 42-44; hw-semantics.md §5.4):
//   kind::f16, f8f6f4 and i8: bits 4-5 D type (1: f32, 2: s32), 7-9 A type and 10-12 B type, 15/16
//   A/B MN-major (0: K-major), 17-22 N >> 3, 24-28 M >> 4; the others 0 (dense, no negation).
//   The block-scaled kinds: bits 4-5 B's scale-factor ID, 7-9 / 10-12 the types, 15/16 the
//   majors, 17-22 N >> 3, 23 the scale format (0 ue4m3, 1 ue8m0), 24-28 M >> 4, 29-30 A's
//   scale-factor ID; D is f32.
// Type codes: kind::f16 f16 0, bf16 1; kind::f8f6f4 and mxf8f6f4 e4m3 0, e5m2 1, e2m3 3, e3m2 4,
// e2m1 5; kind::mxf4 and mxf4nvf4 e2m1 1; kind::i8 u8 0, s8 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

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

// The kinds of tcgen05.mma tessel issues (PTX ISA 9.7.16.10.9.1). Every instruction reads 32 bytes
// of k from each operand row: 16 halves, 8 tf32 values, 32 fp8 values or fp6 / fp4 values in 16-byte
// chunks of 16, or 64 fp4 values packed two per byte.
enum class Tcgen05Kind {
  f16,       // f16 or bf16 operands
  tf32,      // tf32 operands
  f8f6f4,    // e4m3, e5m2, e2m3, e3m2 or e2m1 operands (the last three in chunks), unscaled
  mxf8f6f4,  // the same operands, one ue8m0 scale per 32 of k (scale_vec::1X)
  mxf4,      // e2m1 operands, one ue8m0 scale per 32 of k (scale_vec::2X)
  mxf4nvf4,  // e2m1 operands, one ue4m3 scale per 16 of k (scale_vec::4X): NVFP4
  i8,        // s8 or u8 operands (any pairing) into an s32 accumulator, exact and wrapping
};

// The block scales' format: ue8m0 is 2^(e - 127) (0xff is NaN), ue4m3 an e4m3 value without a
// sign bit (bit 7 zero; 0x7f is NaN).
enum class Tcgen05ScaleFormat { none, ue8m0, ue4m3 };

std::string_view tcgen05_kind_name(Tcgen05Kind k);
// An mma operand as the kind depends on it: its element type, and whether its packed elements lie
// 16 to a 16-byte chunk (SharedTensorNode::chunks16) or two to a byte.
struct Tcgen05Operand {
  DType type;
  bool chunks16 = false;
};
// The kind of an mma of operands a and b with scales of `scales` (none: unscaled), or nullopt
// where PTX has none.
std::optional<Tcgen05Kind> tcgen05_kind(Tcgen05Operand a, Tcgen05Operand b, Tcgen05ScaleFormat scales);
bool tcgen05_kind_is_block_scaled(Tcgen05Kind k);
// The k of one instruction: 32 bytes of operand row.
int tcgen05_instruction_k(Tcgen05Kind k);
// Block-scaled kinds: the scales each row (of A) or column (of B) takes per instruction, 1, 2 or 4,
// and the k one scale covers.
int tcgen05_scale_vector(Tcgen05Kind k);
int tcgen05_scale_block(Tcgen05Kind k);

struct Tcgen05InstrDescriptor {
  int m = 0, n = 0;
  DType a_type = DType::F16, b_type = DType::F16, d_type = DType::F32;
  bool a_mn_major = false, b_mn_major = false;
  Tcgen05Kind kind = Tcgen05Kind::f16;
  Tcgen05ScaleFormat scale_format = Tcgen05ScaleFormat::none;  // the block-scaled kinds'
  int a_scale_id = 0, b_scale_id = 0;                          // the first byte of a scale cell the instruction reads
  bool saturate = false;  // kind::i8: the s32 sum clamped after the instruction (bit 3)

  uint32_t bits() const;
  // Throws an internal error on a descriptor tessel cannot have made (reserved bits, types).
  static Tcgen05InstrDescriptor decode(uint32_t bits, Tcgen05Kind kind = Tcgen05Kind::f16);
  bool operator==(const Tcgen05InstrDescriptor&) const = default;
};

// tcgen05.cp 32x128b.warpx4 reads 32 rows of 16 bytes through a descriptor without swizzle: rows
// 16 bytes apart in groups of 8 (a 128-byte core matrix), groups `stride_byte_offset` apart.
Tcgen05SmemDescriptor tcgen05_interleaved_descriptor(uint32_t start_address);
int64_t tcgen05_interleaved_address(const Tcgen05SmemDescriptor& d, int row, int byte);

// tcgen05.mma's shapes (PTX ISA 9.7.16.2.1): with one CTA (cta_group::1), M 64 or 128, N a
// multiple of 8 (M = 64) or 16 (M = 128) from 8 or 16 to 256; with a CTA pair (cta_group::2), M 128
// or 256, N a multiple of 16 from 16 to 256.
bool tcgen05_mma_shape_is_legal(int m, int n, int cta_group = 1);

}  // namespace tessel
