// The operands of the tensor core in generated code. A shared operand (wgmma, tcgen05.mma) is an
// instruction's descriptor: constant bits derived from the operand's layout and swizzle, and the
// unswizzled shared address where its operand starts, the only field that varies at run time. A
// register operand (mma.sync, wgmma's A) is its tile's slots packed into 32-bit registers.
#include "emitter.hpp"

namespace tessel::codegen {

std::string mma_descriptor(Emitter& e, const ir::SharedTensor& t, const ir::MmaOperand& o, uint64_t constant_bits,
                           const std::string& row, int k) {
  // The operand's start in elements: a part that varies at run time (the tile's offset and the row)
  // and the instruction's own, known here (its column k).
  std::string varying;
  int64_t known = 0;
  if (!o.mn_major) {
    varying = fmt::format("({}) * {}", row, o.row_stride);
    known = k;
  } else if (o.block_stride) {
    varying = fmt::format("({}) / {} * {}", row, o.block, o.block_stride);
    known = int64_t(k) * o.row_stride;
  } else {
    varying = "0";  // one block: every instruction starts at row 0
    known = int64_t(k) * o.row_stride;
  }
  if (t->offset) varying = e.expr(t->offset) + " + " + varying;
  // Elements to bytes: packed elements (fp4 pairs) come in whole bytes at every instruction's start.
  const int bits = t->slot_bits();
  const std::string bytes = bits % 8 == 0 ? std::to_string(bits / 8) : fmt::format("{} / 8", bits);
  // The start address in 16-byte units, in unsigned 32-bit arithmetic: the low word of the constant
  // bits (whose address field is zero) plus the varying start, the same expression for every
  // instruction of one operand, which the compiler computes once, plus the instruction's own
  // offset, one add each. Shared addresses are below 2^18, so the field's 14 bits hold every start
  // and no sum carries out of it. An offset that is not whole 16-byte units stays in the varying part.
  if (known * bits % 128 != 0) {
    varying = fmt::format("{} + {}", varying, known);
    known = 0;
  }
  const int64_t units = known * bits / 128;
  return fmt::format(
      "(uint64_t(0x{:x}u) << 32 | (0x{:x}u + (tessel_smem_base >> 4) + (uint32_t({} + ({}) * {}) >> 4){}))",
      constant_bits >> 32, constant_bits & 0xffff'ffffu, e.shared_offsets.at(t->allocation()), varying, bytes,
      units ? fmt::format(" + {}u", units) : "");
}

std::vector<std::string> mma_register_words(const std::string& tile, int first, int count, DType t) {
  const int per_register = 4 / dtype_bytes(t);
  std::vector<std::string> words;
  // A tf32 element is a register of its bits.
  if (per_register == 1) {
    for (int i = 0; i < count; ++i) words.push_back(fmt::format("{}[{}].bits", tile, first + i));
    return words;
  }
  // An fp8 element is a struct of its bits; integers convert to their bytes.
  const char* bits = is_float(t) && per_register == 4 ? ".bits" : "";
  for (int i = 0; i < count; i += per_register) {
    std::vector<std::string> elements;
    for (int j = 0; j < per_register; ++j) elements.push_back(fmt::format("{}[{}]{}", tile, first + i + j, bits));
    words.push_back(fmt::format("tessel_pack{}({})", per_register, fmt::join(elements, ", ")));
  }
  return words;
}

}  // namespace tessel::codegen
