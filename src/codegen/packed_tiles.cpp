// Packed tiles (integers and floats of 1 to 7 bits) in generated code: a thread's slots are packed
// into 32-bit words, in the order of memory, so that loads and stores move whole words and
// conversions work on them.
#include <functional>

#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

// The value of a packed element's bits `field` (a uint32_t expression): an int, or a float for a
// packed float.
std::string packed_value(DType t, const std::string& field) {
  const int bits = dtype_bits(t);
  if (is_float(t)) {
    const FloatFormat f = float_format(t);
    return fmt::format("tessel_decode_float<{}, {}, {}>({})", f.exponent_bits, f.mantissa_bits,
                       f.specials == FloatSpecials::ieee ? 0 : 1, field);
  }
  return is_signed(t) ? fmt::format("tessel_sign_extend<{}>({})", bits, field) : fmt::format("int({})", field);
}

// A run of `words` 32-bit words between registers and memory at `p` by `access` (global_access's
// function, or tessel_load_vec and tessel_store_vec): one vector access for a power-of-two count,
// word by word otherwise (a vector needs a power-of-two size and alignment).
std::string move_words(int words, const std::string& dst, const std::string& src, const std::string& access) {
  if ((words & (words - 1)) == 0) return fmt::format("{}<uint32_t, {}>({}, {});", access, words, dst, src);
  return fmt::format("for (int k = 0; k < {}; ++k) {}<uint32_t, 1>({} + k, {} + k);", words, access, dst, src);
}

// The alignment, in bytes, that a run of `words` words needs.
int run_alignment(int words) { return (words & (words - 1)) == 0 ? 4 * words : 4; }

std::string byte_pointer(Emitter& e, const ir::GlobalTensor& g, bool write) {
  return fmt::format("reinterpret_cast<{}uint8_t*>({})", write ? "" : "const ", e.expr(g->ptr));
}

// The per-thread loop over runs of `vec` slots of a packed global access: a run that lies in the
// view, starts on a byte and is aligned moves as whole words (`words`); any other run element by
// element (`element`, given the element's index in the view, or skipped outside it).
void packed_global_access(Emitter& e, const ir::StmtNode& n, const std::string& what, bool write,
                          const ir::RegisterTensor& tile, const ir::GlobalTensor& g,
                          const std::vector<ir::Expr>& offsets, int vec,
                          const std::function<void(const std::string& p, const std::string& lv)>& words,
                          const std::function<void(const std::string& l, const std::string& index)>& element,
                          const std::function<void(const std::string& l)>& outside) {
  const int bits = dtype_bits(g->dtype), last = g->rank() - 1;
  TESSEL_CHECK(vec == 1 || vec * bits % 32 == 0, "packed access at {} in runs of {} elements", n.loc.str(), vec);
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  open_run_loop(e, tile, offsets, "lv", vec);
  e.line(fmt::format("const int64_t i = {};", global_index(e, g)));  // the last stride is 1
  std::vector<std::string> rows;
  for (int d = 0; d < last; ++d) rows.push_back(fmt::format("c{0} >= 0 && c{0} < {1}", d, e.expr(g->shape[d])));
  const std::string row_inside = rows.empty() ? "true" : fmt::format("{}", fmt::join(rows, " && "));
  if (vec > 1) {
    const int bytes = vec * bits / 8;
    e.line(fmt::format("{}uint8_t* p = {} + i * {} / 8;", write ? "" : "const ", byte_pointer(e, g, write), bits));
    e.open(
        fmt::format("if ({0} && c{1} >= 0 && c{1} + {2} <= {3} && (i * {4}) % 8 == 0 && "
                    "reinterpret_cast<uint64_t>(p) % {5} == 0)",
                    row_inside, last, vec, e.expr(g->shape[last]), bits, run_alignment(bytes / 4)));
    if (e.debug) emit_access_check(e, n, what, g, "", "p", std::to_string(bytes), coordinates(g->rank()));
    words("p", "lv");
    e.close(" else {");
    ++e.indent;
  }
  e.line("#pragma unroll");
  e.open(fmt::format("for (int j = 0; j < {}; ++j)", vec));
  e.line(fmt::format("const int c{0}_j = c{0} + j;", last));
  e.open(fmt::format("if ({0} && c{1}_j >= 0 && c{1}_j < {2})", row_inside, last, e.expr(g->shape[last])));
  // The element's bytes: one, or two where it crosses a byte.
  if (e.debug)
    emit_access_check(e, n, what, g, "", fmt::format("{} + (i + j) * {} / 8", byte_pointer(e, g, false), bits),
                      fmt::format("((i + j) * {0} % 8 + {0} > 8 ? 2 : 1)", bits), coordinates(g->rank()));
  element("lv + j", "i + j");
  e.close(outside ? " else {" : "");
  if (outside) {
    ++e.indent;
    outside("lv + j");
    e.close();
  }
  e.close();
  if (vec > 1) e.close();
  e.close();
}

// The bit of shared view `s`'s allocation where element `index` of the view starts: a bit stream, or
// 16 elements to each 16-byte chunk (ir::SharedTensorNode::chunks16).
std::string shared_bit(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  const int bits = dtype_bits(s->dtype);
  const std::string element = s->offset ? fmt::format("(({}) + ({}))", e.expr(s->offset), index) : index;
  return s->allocation()->chunks16 ? fmt::format("(({0}) / 16 * 128 + ({0}) % 16 * {1})", element, bits)
                                   : fmt::format("(({}) * {})", element, bits);
}

// The byte of tessel_smem holding the first bit of element `index` of shared view `s` (through its
// swizzle), and that bit's place in the byte. Views of widths that do not divide 8 have no swizzle
// (lang/memory.cpp), or keep their elements inside 16-byte chunks, which a swizzle moves whole, so
// an element's second byte is the next one.
std::string shared_byte(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  const std::string byte = fmt::format("({} / 8)", shared_bit(e, s, index));
  const int64_t base = e.shared_offsets.at(s->allocation());
  return s->swizzle_bits ? fmt::format("{} + tessel_swizzle<{}>({})", base, s->swizzle_bits, byte)
                         : fmt::format("{} + {}", base, byte);
}
std::string bit_in_byte(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  return fmt::format("int({} % 8)", shared_bit(e, s, index));
}

}  // namespace

int packed_words(const ir::RegisterTensor& t) { return t->layout.local_size() * dtype_bits(t->dtype) / 32; }

std::string packed_field(Emitter& e, const ir::RegisterTensor& t, const std::string& slot) {
  return fmt::format("tessel_packed_field<{}>({}, {})", dtype_bits(t->dtype), e.tile(t), slot);
}

std::string packed_get(Emitter& e, const ir::RegisterTensor& t, const std::string& slot) {
  return packed_value(t->dtype, packed_field(e, t, slot));
}

std::string packed_set(Emitter& e, const ir::RegisterTensor& t, const std::string& slot, const std::string& field) {
  return fmt::format("tessel_packed_set<{}>({}, {}, uint32_t({}));", dtype_bits(t->dtype), e.tile(t), slot, field);
}

std::string packed_encode(DType t, const std::string& value, DType from) {
  if (!is_float(t)) return fmt::format("int({})", value);
  const FloatFormat f = float_format(t);
  // An f16 NaN widens to f32's canonical NaN, which has no sign (cvt.f32.f16): the f16's sign is
  // put back, so that the NaN encodes with its sign as the conversion states.
  const std::string wide =
      from == DType::F16 ? fmt::format("tessel_f16_with_nan_sign({})", value) : fmt::format("float({})", value);
  return fmt::format("tessel_encode_float<{}, {}>({}, {})", f.exponent_bits, f.mantissa_bits, wide,
                     float_literal(double(float_from_bits(t, float_to_bits(t, INFINITY)))));
}

void emit_packed_load_global(Emitter& e, const ir::LoadGlobalNode& n) {
  const int bits = dtype_bits(n.out->dtype);
  const std::string fill = packed_encode(n.out->dtype, std::to_string(n.fill));
  packed_global_access(
      e, n, "load_global reads", false, n.out, n.src, n.offsets, n.vector,
      [&](const std::string& p, const std::string& lv) {
        e.line(move_words(n.vector * bits / 32, fmt::format("&{}[{} * {} / 32]", e.tile(n.out), lv, bits),
                          fmt::format("reinterpret_cast<const uint32_t*>({})", p), global_access(e, *n.src, true)));
      },
      [&](const std::string& l, const std::string& index) {
        e.line(packed_set(e, n.out, l,
                          fmt::format("tessel_packed_read<{0}>({1} + ({2}) * {0} / 8, int(({2}) * {0} % 8))", bits,
                                      byte_pointer(e, n.src, false), index)));
      },
      [&](const std::string& l) { e.line(packed_set(e, n.out, l, fill)); });
}

void emit_packed_store_global(Emitter& e, const ir::StoreGlobalNode& n) {
  const int bits = dtype_bits(n.src->dtype);
  packed_global_access(
      e, n, "store_global writes", true, n.src, n.dst, n.offsets, n.vector,
      [&](const std::string& p, const std::string& lv) {
        e.line(move_words(n.vector * bits / 32, fmt::format("reinterpret_cast<uint32_t*>({})", p),
                          fmt::format("&{}[{} * {} / 32]", e.tile(n.src), lv, bits), global_access(e, *n.dst, false)));
      },
      [&](const std::string& l, const std::string& index) {
        e.line(fmt::format("tessel_packed_write<{0}>({1} + ({2}) * {0} / 8, int(({2}) * {0} % 8), {3});", bits,
                           byte_pointer(e, n.dst, true), index, packed_field(e, n.src, l)));
      },
      {});
}

std::string packed_shared_read(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  return packed_value(s->dtype, fmt::format("tessel_packed_read<{}>(tessel_smem + {}, {})", dtype_bits(s->dtype),
                                            shared_byte(e, s, index), bit_in_byte(e, s, index)));
}

void emit_packed_load_shared(Emitter& e, const ir::LoadSharedNode& n) {
  const ir::SharedTensor& s = n.src;
  const std::string index = shared_index(s);
  open_slot_loop(e, n.out, n.offsets);
  e.line(packed_set(e, n.out, "l",
                    fmt::format("tessel_packed_read<{}>(tessel_smem + {}, {})", dtype_bits(s->dtype),
                                shared_byte(e, s, index), bit_in_byte(e, s, index))));
  e.close();
}

void emit_packed_store_shared(Emitter& e, const ir::StoreSharedNode& n) {
  const int bits = dtype_bits(n.src->dtype);
  const std::string index = shared_index(n.dst);
  if (n.vector == 1) {
    open_slot_loop(e, n.src, n.offsets);
    e.line(fmt::format("tessel_packed_write<{}>(tessel_smem + {}, {}, {});", bits, shared_byte(e, n.dst, index),
                       bit_in_byte(e, n.dst, index), packed_field(e, n.src, "l")));
    e.close();
    return;
  }
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  open_run_loop(e, n.src, n.offsets, "lv", n.vector);
  e.line(move_words(n.vector * bits / 32,
                    fmt::format("reinterpret_cast<uint32_t*>(tessel_smem + {})", shared_byte(e, n.dst, index)),
                    fmt::format("&{}[lv * {} / 32]", e.tile(n.src), bits), "tessel_store_vec"));
  e.close();
}

namespace {

// A packed float to f16 or bf16, two elements at a time: their bits moved under the 16-bit type's
// (tessel_float_bits_pair) and one packed multiply by 2^(bias of the 16-bit type - the format's
// bias). Exact where the format's exponents and mantissas fit the 16-bit type's and its specials
// map onto them: the formats without infinities, and the IEEE ones of f16's bias into f16 (which
// need no multiply).
bool emit_packed_float_dequantize(Emitter& e, const ir::CastTensorNode& n) {
  const DType from = n.a->dtype, to = n.out->dtype;
  const FloatFormat f = float_format(from);
  const bool half = to == DType::F16;
  const int mantissa16 = half ? 10 : 7, bias16 = half ? 15 : 127;
  const bool ieee_as_is = f.specials == FloatSpecials::ieee && half && f.bias() == bias16;
  if (!ieee_as_is && f.specials != FloatSpecials::finite) return false;
  const int scale_exponent = bias16 + (bias16 - f.bias());  // the field of 2^(bias16 - bias)
  const uint32_t scale = uint32_t(scale_exponent) << mantissa16;
  for (int l = 0; l < n.out->layout.local_size(); l += 2) {
    std::string pair =
        fmt::format("tessel_float_bits_pair<{}, {}, {}>({}, {})", f.exponent_bits, f.mantissa_bits, mantissa16,
                    packed_field(e, n.a, std::to_string(l)), packed_field(e, n.a, std::to_string(l + 1)));
    if (!ieee_as_is)
      pair = fmt::format("tessel_fma_{}x2({}, {:#x}u, 0x80008000u)", dtype_name(to), pair, scale | scale << 16);
    e.line(fmt::format("tessel_unpair2({}, {}[{}], {}[{}]);", pair, e.tile(n.out), l, e.tile(n.out), l + 1));
  }
  return true;
}

// Packed integers of widths other than 4 to f16 or bf16, two elements at a time: the two fields
// in the halves of a register under the exponent of a magic number whose last place is worth 1
// (1024 in f16, 128 in bf16; both hold every field of up to 7 bits), and one packed multiply-add
// that subtracts it. Signed fields are made excess-2^(bits - 1) first by flipping their sign bit,
// and the excess is subtracted with the magic.
bool emit_packed_integer_pairs(Emitter& e, const ir::CastTensorNode& n) {
  const int bits = dtype_bits(n.a->dtype), slots = n.out->layout.local_size();
  if (slots % 2 != 0) return false;
  const bool half = n.out->dtype == DType::F16;
  const uint32_t magic = half ? 0x6400u : 0x4300u, one = half ? 0x3c00u : 0x3f80u;
  const uint32_t excess = is_signed(n.a->dtype) ? 1u << (bits - 1) : 0u;
  const uint32_t minus_magic = (half ? 0xe400u : 0xc300u) + excess;  // -(magic + excess): the last place is 1
  for (int l = 0; l < slots; l += 2) {
    const std::string pair =
        fmt::format("((({} | {} << 16) ^ {:#x}u) | {:#x}u)", packed_field(e, n.a, std::to_string(l)),
                    packed_field(e, n.a, std::to_string(l + 1)), excess * 0x10001u, magic * 0x10001u);
    e.line(fmt::format("tessel_unpair2(tessel_fma_{}x2({}, {:#x}u, {:#x}u), {}[{}], {}[{}]);", dtype_name(n.out->dtype),
                       pair, one * 0x10001u, minus_magic * 0x10001u, e.tile(n.out), l, e.tile(n.out), l + 1));
  }
  return true;
}

}  // namespace

bool emit_packed_dequantize(Emitter& e, const ir::CastTensorNode& n, const ir::RegisterTensor* words) {
  const DType from = n.a->dtype, to = n.out->dtype;
  if ((to != DType::F16 && to != DType::BF16) || !(n.a->layout == n.out->layout)) return false;
  const int slots = n.out->layout.local_size();
  if ((from == DType::I8 || from == DType::U8) && slots % 4 == 0) {
    const std::string_view half = dtype_name(to), is_signed = from == DType::I8 ? "true" : "false";
    e.line("#pragma unroll");
    if (words) {
      e.line(fmt::format("for (int w = 0; w < {}; ++w) tessel_dequantize8_word_{}<{}>(unsigned({}[w]), &{}[4 * w]);",
                         slots / 4, half, is_signed, e.tile(*words), e.tile(n.out)));
      return true;
    }
    e.line(
        fmt::format("for (int l = 0; l < {0}; l += 4) tessel_dequantize8_{1}<{2}>({3}[l], {3}[l + 1], {3}[l + 2], "
                    "{3}[l + 3], &{4}[l]);",
                    slots, half, is_signed, e.tile(n.a), e.tile(n.out)));
    return true;
  }
  if (!is_packed(from)) return false;
  if (is_float(n.a->dtype)) return emit_packed_float_dequantize(e, n);
  if (dtype_bits(n.a->dtype) != 4) return emit_packed_integer_pairs(e, n);
  e.line("#pragma unroll");
  e.line(fmt::format("for (int w = 0; w < {}; ++w) tessel_dequantize4_{}<{}>({}[w], &{}[8 * w]);", packed_words(n.a),
                     dtype_name(to), is_signed(n.a->dtype) ? "true" : "false", e.tile(n.a), e.tile(n.out)));
  return true;
}

}  // namespace tessel::codegen
