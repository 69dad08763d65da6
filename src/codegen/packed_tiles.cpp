// Packed tiles (i4, u4) in generated code: a thread's slots are packed into 32-bit words, in the
// order of memory, so that loads and stores move whole words and conversions work on them.
#include <functional>

#include "emitter.hpp"

namespace tessel::codegen {

namespace {

std::string packed_args(DType t) { return fmt::format("{}, {}", dtype_bits(t), is_signed(t) ? "true" : "false"); }

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
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
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
                    row_inside, last, vec, e.expr(g->shape[last]), bits, bytes));
    if (e.debug) emit_access_check(e, n, what, g, "", "p", std::to_string(bytes), coordinates(g->rank()));
    words("p", "lv");
    e.close(" else {");
    ++e.indent;
  }
  e.line("#pragma unroll");
  e.open(fmt::format("for (int j = 0; j < {}; ++j)", vec));
  e.line(fmt::format("const int c{0}_j = c{0} + j;", last));
  e.open(fmt::format("if ({0} && c{1}_j >= 0 && c{1}_j < {2})", row_inside, last, e.expr(g->shape[last])));
  if (e.debug)
    emit_access_check(e, n, what, g, "", fmt::format("{} + (i + j) * {} / 8", byte_pointer(e, g, false), bits), "1",
                      coordinates(g->rank()));
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

// The byte of tessel_smem holding element `index` of shared view `s` (through its swizzle), and
// the element's place in that byte (what tessel_packed_read/write take as their element index).
std::string shared_byte(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  const int bits = dtype_bits(s->dtype);
  const std::string element = s->offset ? fmt::format("({}) + ({})", e.expr(s->offset), index) : index;
  const std::string byte = fmt::format("(({}) * {} / 8)", element, bits);
  const int64_t base = e.shared_offsets.at(s->allocation());
  return s->swizzle_bits ? fmt::format("{} + tessel_swizzle<{}>({})", base, s->swizzle_bits, byte)
                         : fmt::format("{} + {}", base, byte);
}
std::string place_in_byte(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  const std::string element = s->offset ? fmt::format("({}) + ({})", e.expr(s->offset), index) : index;
  return fmt::format("(({}) % {})", element, 8 / dtype_bits(s->dtype));
}

}  // namespace

int packed_words(const ir::RegisterTensor& t) { return t->layout.local_size() * dtype_bits(t->dtype) / 32; }

std::string packed_get(Emitter& e, const ir::RegisterTensor& t, const std::string& slot) {
  return fmt::format("tessel_packed_get<{}>({}, {})", packed_args(t->dtype), e.tile(t), slot);
}

std::string packed_set(Emitter& e, const ir::RegisterTensor& t, const std::string& slot, const std::string& value) {
  return fmt::format("tessel_packed_set<{}>({}, {}, {});", dtype_bits(t->dtype), e.tile(t), slot, value);
}

void emit_packed_load_global(Emitter& e, const ir::LoadGlobalNode& n) {
  const int bits = dtype_bits(n.out->dtype);
  const std::string fill = std::to_string(int64_t(n.fill));
  packed_global_access(
      e, n, "load_global reads", false, n.out, n.src, n.offsets, n.vector,
      [&](const std::string& p, const std::string& lv) {
        e.line(fmt::format("tessel_load_vec<uint32_t, {}>(&{}[{} / {}], reinterpret_cast<const uint32_t*>({}));",
                           n.vector * bits / 32, e.tile(n.out), lv, 32 / bits, p));
      },
      [&](const std::string& l, const std::string& index) {
        e.line(packed_set(e, n.out, l,
                          fmt::format("tessel_packed_read<{}>({}, {})", packed_args(n.src->dtype),
                                      byte_pointer(e, n.src, false), index)));
      },
      [&](const std::string& l) { e.line(packed_set(e, n.out, l, fill)); });
}

void emit_packed_store_global(Emitter& e, const ir::StoreGlobalNode& n) {
  const int bits = dtype_bits(n.src->dtype);
  packed_global_access(
      e, n, "store_global writes", true, n.src, n.dst, n.offsets, n.vector,
      [&](const std::string& p, const std::string& lv) {
        e.line(fmt::format("tessel_store_vec<uint32_t, {}>(reinterpret_cast<uint32_t*>({}), &{}[{} / {}]);",
                           n.vector * bits / 32, p, e.tile(n.src), lv, 32 / bits));
      },
      [&](const std::string& l, const std::string& index) {
        e.line(fmt::format("tessel_packed_write<{}>({}, {}, {});", bits, byte_pointer(e, n.dst, true), index,
                           packed_get(e, n.src, l)));
      },
      {});
}

std::string packed_shared_read(Emitter& e, const ir::SharedTensor& s, const std::string& index) {
  return fmt::format("tessel_packed_read<{}>(tessel_smem + {}, {})", packed_args(s->dtype), shared_byte(e, s, index),
                     place_in_byte(e, s, index));
}

void emit_packed_load_shared(Emitter& e, const ir::LoadSharedNode& n) {
  open_slot_loop(e, n.out, n.offsets);
  e.line(packed_set(e, n.out, "l", packed_shared_read(e, n.src, shared_index(n.src))));
  e.close();
}

void emit_packed_store_shared(Emitter& e, const ir::StoreSharedNode& n) {
  const int bits = dtype_bits(n.src->dtype);
  const std::string index = shared_index(n.dst);
  if (n.vector == 1) {
    open_slot_loop(e, n.src, n.offsets);
    e.line(fmt::format("tessel_packed_write<{}>(tessel_smem + {}, {}, {});", bits, shared_byte(e, n.dst, index),
                       place_in_byte(e, n.dst, index), packed_get(e, n.src, "l")));
    e.close();
    return;
  }
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  open_run_loop(e, n.src, n.offsets, "lv", n.vector);
  e.line(fmt::format("tessel_store_vec<uint32_t, {}>(reinterpret_cast<uint32_t*>(tessel_smem + {}), &{}[lv / {}]);",
                     n.vector * bits / 32, shared_byte(e, n.dst, index), e.tile(n.src), 32 / bits));
  e.close();
}

bool emit_packed_dequantize(Emitter& e, const ir::CastTensorNode& n) {
  const DType to = n.out->dtype;
  if (dtype_bits(n.a->dtype) != 4 || (to != DType::F16 && to != DType::BF16) || !(n.a->layout == n.out->layout))
    return false;
  e.line("#pragma unroll");
  e.line(fmt::format("for (int w = 0; w < {}; ++w) tessel_dequantize4_{}<{}>({}[w], &{}[8 * w]);", packed_words(n.a),
                     dtype_name(to), is_signed(n.a->dtype) ? "true" : "false", e.tile(n.a), e.tile(n.out)));
  return true;
}

}  // namespace tessel::codegen
