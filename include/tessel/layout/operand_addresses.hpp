// The swizzled canonical layouts of tensor-core operands in shared memory, which wgmma and
// tcgen05.mma share (PTX ISA 9.7.15.5.1.2.1.3; hw-semantics.md §4.3 and §5.5): the byte from
// which the tensor core reads element (row, k), row being the M or N index, given a descriptor's
// start address, leading and stride byte offsets and swizzle. What the simulator reads.
#pragma once

#include <cstdint>

namespace tessel {

// K-major: rows of one swizzle span, 8-row groups `stride` bytes apart (the leading offset unused).
int64_t k_major_operand_address(int64_t start, int64_t stride, int swizzle_bits, int row, int k, int elem_bytes);

// MN-major: k-rows of one span, 8-k-row groups `stride` bytes apart, span-wide blocks along M or N
// `leading` bytes apart.
int64_t mn_major_operand_address(int64_t start, int64_t leading, int64_t stride, int swizzle_bits, int row, int k,
                                 int elem_bytes);

}  // namespace tessel
