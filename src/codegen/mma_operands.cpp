// The shared operands of the tensor core (wgmma, tcgen05.mma) in generated code: an instruction's
// descriptor is constant bits derived from the operand's layout and swizzle, and the unswizzled
// shared address where its operand starts, the only field that varies at run time.
#include "emitter.hpp"

namespace tessel::codegen {

std::string mma_descriptor(Emitter& e, const ir::SharedTensor& t, const ir::MmaOperand& o, uint64_t constant_bits,
                           const std::string& row, int k) {
  std::string element;
  if (!o.mn_major)
    element = fmt::format("({}) * {} + {}", row, o.row_stride, k);
  else if (o.block_stride)
    element = fmt::format("({}) / {} * {} + {}", row, o.block, o.block_stride, int64_t(k) * o.row_stride);
  else
    element = std::to_string(int64_t(k) * o.row_stride);  // one block: every instruction starts at row 0
  // Elements to bytes: packed elements (fp4 pairs) come in whole bytes at every instruction's start.
  const int bits = t->slot_bits();
  const std::string bytes = bits % 8 == 0 ? std::to_string(bits / 8) : fmt::format("{} / 8", bits);
  // The start address in 16-byte units: the base shifted once, plus the operand's offset (a multiple of
  // 16 bytes) in int arithmetic, which the compiler folds into one add per instruction. Shared
  // addresses are below 2^18, so the field's 14 bits hold every start.
  return fmt::format("(0x{:x}ull | uint64_t((tessel_smem_base >> 4) + (({} + ({}{}) * {}) >> 4)))", constant_bits,
                     e.shared_offsets.at(t->allocation()), t->offset ? e.expr(t->offset) + " + " : "", element, bytes);
}

}  // namespace tessel::codegen
