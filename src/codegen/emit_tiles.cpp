// Register-tile instructions: creation, elementwise math, casts, copies, slices and printing.
#include <algorithm>
#include <functional>

#include "emitter.hpp"

namespace tessel::codegen {

void Emitter::declare_tile(const ir::RegisterTensor& t) {
  tile_depths[t.get()] = indent;
  if (is_packed(t->dtype))
    return line(fmt::format("uint32_t {}[{}] = {{}};  // {} {}, packed", tile(t), packed_words(t), dtype_name(t->dtype),
                            t->layout.str()));
  line(fmt::format("{} {}[{}];  // {} {}", c_type(t->dtype), tile(t), t->layout.local_size(), dtype_name(t->dtype),
                   t->layout.str()));
}

std::vector<int> Emitter::broadcast_slots(const ir::RegisterTensor& operand, const Layout& out) {
  const Layout& in = operand->layout;
  std::vector<int> slots(out.local_size(), -1);
  for (int l = 0; l < out.local_size(); ++l)
    for (int t = 0; t < out.num_threads(); ++t) {
      std::vector<int> c = out.coords(t, l);
      for (int d = 0; d < in.rank(); ++d)
        if (in.shape()[d] == 1) c[d] = 0;
      int slot = -1;
      TESSEL_CHECK(in.holds(t, c, &slot), "operand {} lacks an element for thread {}", operand->name, t);
      if (slots[l] < 0) slots[l] = slot;
      if (slots[l] != slot)
        throw Error(operand->loc, fmt::format("tile {} ({}) is broadcast to {} with a register mapping that differs "
                                              "between threads; give it the reduced layout of the result",
                                              operand->name, in.str(), out.str()));
    }
  return slots;
}

std::string Emitter::operand(const ir::Operand& o, const std::string& l) {
  if (o.scalar) return to_arith(o.scalar->type.dtype, expr(o.scalar));
  if (is_packed(o.tensor->dtype)) return packed_get(*this, o.tensor, l);
  return to_arith(o.tensor->dtype, fmt::format("{}[{}]", tile(o.tensor), l));
}

namespace {

// Emits `out[l] = f(l, slot of each operand)` over the output's slots: one loop when every
// operand shares the output's layout, unrolled statements with resolved slots otherwise.
void for_each_slot(Emitter& e, const ir::RegisterTensor& out, const std::vector<const ir::Operand*>& ops,
                   const std::function<std::string(const std::vector<std::string>&)>& value) {
  bool same = true;
  for (const ir::Operand* o : ops) same &= !o->tensor || o->tensor->layout == out->layout;
  const int n = out->layout.local_size();
  if (same) {
    std::vector<std::string> args;
    for (const ir::Operand* o : ops) args.push_back(e.operand(*o, "l"));
    e.line("#pragma unroll");
    e.line(
        fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n, e.tile(out), to_storage(out->dtype, value(args))));
    return;
  }
  std::vector<std::vector<int>> slots;
  for (const ir::Operand* o : ops)
    slots.push_back(o->tensor ? e.broadcast_slots(o->tensor, out->layout) : std::vector<int>{});
  for (int l = 0; l < n; ++l) {
    std::vector<std::string> args;
    for (size_t i = 0; i < ops.size(); ++i)
      args.push_back(e.operand(*ops[i], ops[i]->tensor ? std::to_string(slots[i][l]) : ""));
    e.line(fmt::format("{}[{}] = {};", e.tile(out), l, to_storage(out->dtype, value(args))));
  }
}

}  // namespace

void emit_AllocRegister(Emitter& e, const ir::AllocRegisterNode& n) {
  e.header(n, "register tile");
  e.declare_tile(n.out);
  if (is_packed(n.out->dtype)) {
    e.line("#pragma unroll");
    return e.line(fmt::format("for (int l = 0; l < {}; ++l) {}", n.out->layout.local_size(),
                              packed_set(e, n.out, "l", fmt::format("int({})", e.expr(n.init)))));
  }
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n.out->layout.local_size(), e.tile(n.out),
                     to_storage(n.out->dtype, converted(n.init->type.dtype, n.out->dtype, e.expr(n.init)))));
}

namespace {

// The operands of a packed instruction on the f16 or bf16 elements of `out`, two at a time: each
// operand's registers for the output's slots l and l + 1 (a scalar twice), as one 32-bit pair.
class HalfPairs {
 public:
  HalfPairs(Emitter& e, const ir::RegisterTensor& out, std::vector<const ir::Operand*> operands)
      : e_(e), operands_(std::move(operands)) {
    for (const ir::Operand* o : operands_)
      slots_.push_back(o->tensor ? e.broadcast_slots(o->tensor, out->layout) : std::vector<int>{});
  }
  // Whether `out` and every operand are of type t, in whole pairs of registers.
  static bool apply(const ir::RegisterTensor& out, const std::vector<const ir::Operand*>& operands) {
    const DType t = out->dtype;
    return (t == DType::F16 || t == DType::BF16) && out->layout.local_size() % 2 == 0 &&
           std::all_of(operands.begin(), operands.end(), [&](const ir::Operand* o) { return o->dtype() == t; });
  }
  std::string operator()(size_t i, int l) const {
    const ir::Operand& o = *operands_[i];
    if (o.scalar) return fmt::format("tessel_pair2(({0}).bits, ({0}).bits)", e_.expr(o.scalar));
    return fmt::format("tessel_pair2({0}[{1}].bits, {0}[{2}].bits)", e_.tile(o.tensor), slots_[i][size_t(l)],
                       slots_[i][size_t(l) + 1]);
  }

 private:
  Emitter& e_;
  std::vector<const ir::Operand*> operands_;
  std::vector<std::vector<int>> slots_;
};

const char* packed_fma(DType t) { return t == DType::F16 ? "tessel_fma_f16x2" : "tessel_fma_bf16x2"; }

// +, - and * of f16 or bf16 tiles, two elements per instruction: a packed fma (a * 1 + b, b * -1 +
// a, a * b + -0) rounds once, as the f32 arithmetic of the other form rounds to a result that the
// 16-bit rounding does not change (f32 has more than twice the 16-bit types' precision, plus 2).
bool emit_half_pairs(Emitter& e, const ir::ElementwiseBinaryNode& n) {
  using ir::BinaryOp;
  const DType t = n.out->dtype;
  if (!HalfPairs::apply(n.out, {&n.a, &n.b}) ||
      (n.op != BinaryOp::Add && n.op != BinaryOp::Sub && n.op != BinaryOp::Mul))
    return false;
  const char* fma = packed_fma(t);
  const char* one = t == DType::F16 ? "0x3c003c00u" : "0x3f803f80u";
  const char* minus_one = t == DType::F16 ? "0xbc00bc00u" : "0xbf80bf80u";
  const HalfPairs pair(e, n.out, {&n.a, &n.b});
  for (int l = 0; l < n.out->layout.local_size(); l += 2) {
    const std::string a = pair(0, l), b = pair(1, l);
    const std::string value = n.op == BinaryOp::Add   ? fmt::format("{}({}, {}, {})", fma, a, one, b)
                              : n.op == BinaryOp::Sub ? fmt::format("{}({}, {}, {})", fma, b, minus_one, a)
                                                      : fmt::format("{}({}, {}, 0x80008000u)", fma, a, b);
    e.line(fmt::format("tessel_unpair2({}, {}[{}], {}[{}]);", value, e.tile(n.out), l, e.tile(n.out), l + 1));
  }
  return true;
}

// Of `x op v` with x a 32-bit integer tile of the result's layout and v a value: x's operand, else
// null.
const ir::Operand* tile_with_value(const ir::ElementwiseBinaryNode& n) {
  const DType t = n.out->dtype;
  if ((t != DType::U32 && t != DType::I32) || n.a.dtype() != t || n.b.dtype() != t) return nullptr;
  for (const auto& [tile, value] : {std::pair{&n.a, &n.b}, std::pair{&n.b, &n.a}})
    if (tile->tensor && value->scalar && tile->tensor->layout == n.out->layout) return tile;
  return nullptr;
}

// (x & c) | d or (x & c) ^ d, where the and is the code just before: one lop3 from x, c and d. The
// C++ form becomes two LOP3 in SASS when c and d are constants (one instruction holds one
// immediate); the and's own result, if nothing else reads it, is dropped by the compiler.
bool emit_and_then(Emitter& e, const ir::ElementwiseBinaryNode& n) {
  const auto* masked = e.just_after<ir::ElementwiseBinaryNode>(ir::NodeKind::ElementwiseBinary);
  const bool is_or = n.op == ir::BinaryOp::BitOr;
  if ((!is_or && n.op != ir::BinaryOp::BitXor) || !masked || masked->op != ir::BinaryOp::BitAnd ||
      !tile_with_value(*masked))
    return false;
  const ir::Operand* tile = tile_with_value(n);
  if (!tile || tile->tensor != masked->out) return false;
  const ir::Operand* x = tile_with_value(*masked);
  const ir::Operand& c = x == &masked->a ? masked->b : masked->a;
  const ir::Operand& d = tile == &n.a ? n.b : n.a;
  e.header(n, is_or ? "(x & c) | d, one lop3" : "(x & c) ^ d, one lop3");
  e.declare_tile(n.out);
  e.line("#pragma unroll");
  // The truth tables of (a & b) | c and (a & b) ^ c, for a = 0xf0, b = 0xcc and c = 0xaa.
  e.line(
      fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {}(tessel_lop3<{}>(unsigned({}), unsigned({}), unsigned({})));",
                  n.out->layout.local_size(), e.tile(n.out), c_type(n.out->dtype), is_or ? "0xea" : "0x6a",
                  e.operand(*x, "l"), e.operand(c, ""), e.operand(d, "")));
  return true;
}

}  // namespace

void emit_ElementwiseBinary(Emitter& e, const ir::ElementwiseBinaryNode& n) {
  if (emit_and_then(e, n)) return;
  e.header(n, std::string(ir::op_name(n.op)));
  e.declare_tile(n.out);
  if (!emit_half_pairs(e, n)) {
    const DType t = n.a.dtype();
    for_each_slot(e, n.out, {&n.a, &n.b},
                  [&](const std::vector<std::string>& v) { return binary_expr(n.op, t, v[0], v[1]); });
  }
}

void emit_ElementwiseUnary(Emitter& e, const ir::ElementwiseUnaryNode& n) {
  e.header(n, std::string(ir::op_name(n.op)));
  e.declare_tile(n.out);
  const ir::Operand a{n.a, nullptr};
  for_each_slot(e, n.out, {&a},
                [&](const std::vector<std::string>& v) { return unary_expr(n.op, n.a->dtype, v[0], n.precision); });
}

void emit_Where(Emitter& e, const ir::WhereNode& n) {
  e.header(n, "where");
  e.declare_tile(n.out);
  for_each_slot(e, n.out, {&n.cond, &n.a, &n.b},
                [&](const std::vector<std::string>& v) { return fmt::format("({} ? {} : {})", v[0], v[1], v[2]); });
}

namespace {

// An fma of f16 or bf16 tiles, two elements per instruction (fma.rn.f16x2): one rounding, where
// the f32 arithmetic of the other form would round twice.
bool emit_half_pairs(Emitter& e, const ir::FmaNode& n) {
  if (!HalfPairs::apply(n.out, {&n.a, &n.b, &n.c})) return false;
  const HalfPairs pair(e, n.out, {&n.a, &n.b, &n.c});
  for (int l = 0; l < n.out->layout.local_size(); l += 2)
    e.line(fmt::format("tessel_unpair2({}({}, {}, {}), {}[{}], {}[{}]);", packed_fma(n.out->dtype), pair(0, l),
                       pair(1, l), pair(2, l), e.tile(n.out), l, e.tile(n.out), l + 1));
  return true;
}

}  // namespace

void emit_Fma(Emitter& e, const ir::FmaNode& n) {
  e.header(n, "fma");
  e.declare_tile(n.out);
  if (emit_half_pairs(e, n)) return;
  for_each_slot(e, n.out, {&n.a, &n.b, &n.c}, [&](const std::vector<std::string>& v) {
    return is_float(n.out->dtype)
               ? fmt::format("fma{}({}, {}, {})", n.out->dtype == DType::F64 ? "" : "f", v[0], v[1], v[2])
               : fmt::format("({} * {} + {})", v[0], v[1], v[2]);
  });
}

namespace {

// `v` (of type `from`, in its arithmetic type) converted to integer type `to` with saturation
// (ir::convert_saturated): floats through cvt.rni (nearest, ties to even; NaN to 0, and to the
// 32-bit range), then clamped.
std::string saturated(DType from, DType to, const std::string& v) {
  const int bits = dtype_bits(to);
  const int64_t high = is_signed(to) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  const int64_t low = is_signed(to) ? -high - 1 : 0;
  if (is_float(from)) {
    const std::string rounded =
        from == DType::F64 ? fmt::format("{}({})", is_signed(to) ? "__double2int_rn" : "__double2uint_rn", v)
                           : fmt::format("{}(float({}))", is_signed(to) ? "__float2int_rn" : "__float2uint_rn", v);
    if (bits == 32) return rounded;
    return is_signed(to) ? fmt::format("max(min({}, {}), {})", rounded, high, low)
                         : fmt::format("min({}, {}u)", rounded, high);
  }
  if (is_signed(from)) return fmt::format("max(min((long long)({}), {}ll), {}ll)", v, high, low);
  return fmt::format("min((unsigned long long)({}), {}ull)", v, high);
}

}  // namespace

void emit_CastTensor(Emitter& e, const ir::CastTensorNode& n) {
  // Bytes just taken apart from their words convert from the words.
  const auto* bitcast = e.just_after<ir::BitcastTensorNode>(ir::NodeKind::BitcastTensor);
  const DType words = bitcast ? bitcast->a->dtype : DType::F32;
  const bool of_words = bitcast && bitcast->out == n.a && (words == DType::U32 || words == DType::I32);
  e.header(n, fmt::format("cast {} -> {}{}{}", dtype_name(n.a->dtype), dtype_name(n.out->dtype),
                          n.saturate ? ", saturated" : "",
                          !n.rounding                       ? ""
                          : *n.rounding == ir::Rounding::up ? ", rounded up"
                                                            : ", rounded down"));
  e.declare_tile(n.out);
  if (!n.saturate && emit_packed_dequantize(e, n, of_words ? &bitcast->a : nullptr)) return;
  const ir::Operand a{n.a, nullptr};
  // Elements for a packed tile's encoding, which takes a float: an f64 one rounds to odd first.
  const auto to_encode = [&](const std::string& v) {
    if (n.saturate) return saturated(n.a->dtype, n.out->dtype, v);
    return n.a->dtype == DType::F64 && is_float(n.out->dtype) ? fmt::format("tessel_f64_to_f32_odd({})", v) : v;
  };
  if (is_packed(n.out->dtype)) {
    const std::vector<int> slots = e.broadcast_slots(n.a, n.out->layout);
    // f16 elements go to a float's encoding as they are (packed_encode keeps a NaN's sign).
    const bool half_to_float = n.a->dtype == DType::F16 && is_float(n.out->dtype);
    for (int l = 0; l < n.out->layout.local_size(); ++l) {
      const std::string element = half_to_float ? fmt::format("{}[{}]", e.tile(n.a), slots[l])
                                                : to_encode(e.operand(a, std::to_string(slots[l])));
      e.line(packed_set(e, n.out, std::to_string(l),
                        packed_encode(n.out->dtype, element, half_to_float ? DType::F16 : DType::F32)));
    }
    return;
  }
  for_each_slot(e, n.out, {&a}, [&](const std::vector<std::string>& v) {
    if (n.saturate) return fmt::format("({})({})", arith_type(n.out->dtype), saturated(n.a->dtype, n.out->dtype, v[0]));
    if (n.rounding)
      return fmt::format("float(tessel_e8m0({}, {}))", converted(n.a->dtype, n.out->dtype, v[0]),
                         *n.rounding == ir::Rounding::up ? "true" : "false");
    return converted(n.a->dtype, n.out->dtype, v[0]);
  });
}

// Between widths, slot l of the narrower tile is bits [w * (l % r), ...) of slot l / r of the wider
// (r the ratio of the widths, w the narrower width): the order of the bits in memory. A packed tile
// whose words are the slots of a 32-bit tile is a copy of the words.
void emit_BitcastTensor(Emitter& e, const ir::BitcastTensorNode& n) {
  e.header(n, fmt::format("bitcast {} -> {}", dtype_name(n.a->dtype), dtype_name(n.out->dtype)));
  e.declare_tile(n.out);
  const DType from = n.a->dtype, to = n.out->dtype;
  const int wa = dtype_bits(from), wo = dtype_bits(to);
  const auto word_of = [&](DType t, const std::string& v) { return is_packed(t) ? v : bits_expr(t, v); };
  if (is_packed(from) || is_packed(to)) {
    const ir::RegisterTensor& packed = is_packed(from) ? n.a : n.out;
    const ir::RegisterTensor& other = is_packed(from) ? n.out : n.a;
    if (dtype_bits(other->dtype) == 32 || is_packed(other->dtype)) {
      e.line("#pragma unroll");
      e.line(fmt::format("for (int w = 0; w < {}; ++w) {}[w] = {};", packed_words(packed), e.tile(n.out),
                         is_packed(to) ? word_of(from, fmt::format("{}[w]", e.tile(n.a)))
                                       : from_bits_expr(to, fmt::format("{}[w]", e.tile(n.a)))));
      return;
    }
  }
  if (wa != wo) {
    const auto slot_bits = [&](const std::string& k) {
      return is_packed(from) ? fmt::format("uint64_t({})", packed_field(e, n.a, k))
                             : fmt::format("uint64_t({})", bits_expr(from, fmt::format("{}[{}]", e.tile(n.a), k)));
    };
    const auto set = [&](int l, const std::string& bits) {
      e.line(is_packed(to) ? packed_set(e, n.out, std::to_string(l), fmt::format("int({})", bits))
                           : fmt::format("{}[{}] = {};", e.tile(n.out), l, from_bits_expr(to, bits)));
    };
    const int ratio = std::max(wa, wo) / std::min(wa, wo);
    for (int l = 0; l < n.out->layout.local_size(); ++l) {
      if (wa > wo) {
        set(l, fmt::format("({} >> {}) & {}ull", slot_bits(std::to_string(l / ratio)), wo * (l % ratio),
                           (uint64_t(1) << wo) - 1));
        continue;
      }
      std::vector<std::string> parts;
      for (int j = 0; j < ratio; ++j)
        parts.push_back(fmt::format("({} << {})", slot_bits(std::to_string(l * ratio + j)), wa * j));
      set(l, fmt::format("({})", fmt::join(parts, " | ")));
    }
    return;
  }
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n.out->layout.local_size(), e.tile(n.out),
                     from_bits_expr(n.out->dtype, bits_expr(n.a->dtype, fmt::format("{}[l]", e.tile(n.a))))));
}

void emit_Iota(Emitter& e, const ir::IotaNode& n) {
  e.header(n, fmt::format("arange along dimension {}", n.dim));
  e.declare_tile(n.out);
  e.open("");
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n.out->layout.local_size(), e.tile(n.out),
                     n.out->layout.coord_exprs("t", "l")[size_t(n.dim)]));
  e.close();
}

void emit_TileElement(Emitter& e, const ir::TileElementNode& n) {
  e.header(n, "item");
  e.line(fmt::format("{} = {}[0];", e.expr(n.result), e.tile(n.a)));
}

void emit_CopyRegister(Emitter& e, const ir::CopyRegisterNode& n) {
  e.header(n, "copy");
  e.line("#pragma unroll");
  const int slots = is_packed(n.dst->dtype) ? packed_words(n.dst) : n.dst->layout.local_size();
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {}[l];", slots, e.tile(n.dst), e.tile(n.src)));
}

// Each register of the slice is a register of its source: copies the C++ compiler renames away.
void emit_SliceRegister(Emitter& e, const ir::SliceRegisterNode& n) {
  e.header(n, "slice");
  e.declare_tile(n.out);
  const std::vector<int> registers = n.src->layout.slice_registers(n.offsets, n.out->layout);
  for (int l = 0; l < int(registers.size()); ++l)
    e.line(fmt::format("{}[{}] = {}[{}];", e.tile(n.out), l, e.tile(n.src), registers[l]));
}

// Each register of the result is a register of an operand: copies the C++ compiler renames away.
void emit_RegroupRegisters(Emitter& e, const ir::RegroupRegistersNode& n) {
  e.header(n, std::string(ir::regroup_name(n.regroup)));
  e.declare_tile(n.out);
  const auto registers = ir::regroup_registers(n);
  for (int l = 0; l < int(registers.size()); ++l) {
    const auto [which, slot] = registers[size_t(l)];
    e.line(fmt::format("{}[{}] = {}[{}];", e.tile(n.out), l, e.tile(which == 0 ? n.a : n.b), slot));
  }
}

// Layout annotations are consumed by infer_layouts; lowered IR has none.
void emit_AnnotateLayout(Emitter&, const ir::AnnotateLayoutNode& n) {
  TESSEL_CHECK(false, "annotate_layout at {} reached code generation", n.loc.str());
}

namespace {

// The printf conversion of a printed element of type `t`, and the value it takes.
std::string print_spec(DType t) {
  if (t == DType::F64) return "%.17g";
  if (is_float(t)) return "%g";
  if (t == DType::Bool) return "%d";
  return is_signed(t) ? "%lld" : "%llu";
}
std::string print_arg(DType t, const std::string& v) {
  if (t == DType::F64) return fmt::format("(double)({})", v);
  if (is_float(t)) return fmt::format("(double)float({})", v);
  if (t == DType::Bool) return fmt::format("int({})", v);
  return fmt::format("({})({})", is_signed(t) ? "long long" : "unsigned long long", v);
}

// `text` as a printf format in a C string literal, each \x01 in it replaced by the next of `holes`.
std::string c_format(const std::string& text, const std::vector<std::string>& holes = {}) {
  std::string out = "\"";
  size_t hole = 0;
  for (char c : text) {
    if (c == '\x01') {
      out += holes.at(hole++);
      continue;
    }
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    if (c == '%') out += '%';
    out += c;
  }
  return out + "\"";
}

// The condition that the current block is `block`.
std::string in_block(const std::array<int, 3>& block) {
  return fmt::format("blockIdx.x == {} && blockIdx.y == {} && blockIdx.z == {}", block[0], block[1], block[2]);
}

}  // namespace

// The group's threads store their elements (the first replica of each) to the scratch in row-major
// order; after the barrier the group's first thread prints the scratch row by row; a second
// barrier frees it.
// The rows of a printed tile of `shape` by the thread that prints it: each row's coordinates, then
// its elements, `element` being element (c0, c1, ...) of the tile (the last coordinate is the
// column k, the row's index r).
void emit_printed_rows(Emitter& e, const std::vector<int>& shape, DType printed, const std::string& element) {
  const int rank = int(shape.size());
  const int row_length = shape.back();
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= shape[size_t(d)];
  e.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  int64_t stride = 1;
  std::vector<std::string> row_coords;
  for (int d = rank - 2; d >= 0; --d) {
    e.line(fmt::format("const int c{} = r / {} % {};", d, stride, shape[size_t(d)]));
    row_coords.insert(row_coords.begin(), fmt::format("c{}", d));
    stride *= shape[size_t(d)];
  }
  if (row_coords.empty())
    e.line("printf(\" \");");
  else
    e.line(fmt::format("printf(\"  [{}]\", {});", fmt::join(std::vector<std::string>(row_coords.size(), "%d"), ", "),
                       fmt::join(row_coords, ", ")));
  e.open(fmt::format("for (int k = 0; k < {}; ++k)", row_length));
  e.line(fmt::format("const int c{} = k;", rank - 1));
  e.line(fmt::format("printf(\" {}\", {});", print_spec(printed), print_arg(printed, to_arith(printed, element))));
  e.close();
  e.line("printf(\"\\n\");");
  e.close();
}

void emit_PrintTensor(Emitter& e, const ir::PrintTensorNode& n) {
  TESSEL_CHECK(n.scratch && n.barrier != ir::ReduceNode::kUnallocated, "print at {} reached code generation unplanned",
               n.loc.str());
  e.header(n, "print");
  const Layout& lay = n.tensor->layout;
  const DType printed = n.scratch->dtype;
  const std::vector<int>& shape = lay.shape();
  e.open(fmt::format("if ({})", in_block(n.block)));
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  const std::vector<std::string> first_replica = first_replica_conditions(lay, "t");
  e.open(first_replica.empty() ? "" : fmt::format("if ({})", fmt::join(first_replica, " && ")));
  e.line("#pragma unroll");
  e.open(fmt::format("for (int l = 0; l < {}; ++l)", lay.local_size()));
  const ir::Operand element{n.tensor, nullptr};
  e.line(fmt::format("{} = {};", shared_element(e, n.scratch, row_major_position(lay, "t", "l")),
                     to_storage(printed, fmt::format("({})({})", arith_type(printed), e.operand(element, "l")))));
  e.close();
  e.close();
  emit_barrier(e, n.barrier);
  e.open("if (t == 0)");
  const std::string header =
      n.memory == "reg" ? fmt::format("reg<{}>[{}] {}", dtype_name(n.tensor->dtype), fmt::join(shape, ", "), lay.str())
                        : fmt::format("{}<{}>[{}]", n.memory, dtype_name(n.tensor->dtype), fmt::join(shape, ", "));
  e.line(fmt::format("printf({});",
                     c_format(fmt::format("{}: {}, block ({})\n", n.label, header, fmt::join(n.block, ", ")))));
  std::string row_major = "0";
  for (size_t d = 0; d < shape.size(); ++d) row_major = fmt::format("({}) * {} + c{}", row_major, shape[d], d);
  emit_printed_rows(e, shape.empty() ? std::vector<int>{1} : shape, printed,
                    shared_element(e, n.scratch, shape.empty() ? "0" : row_major));
  e.close();
  emit_barrier(e, n.barrier);
  e.close();
}

// One thread reads the tile from shared memory as it stands, without a barrier: what it prints
// must be visible to it already (the simulator reports a read that races a write).
void emit_PrintShared(Emitter& e, const ir::PrintSharedNode& n) {
  e.header(n, "print");
  const ir::SharedTensor& s = n.tensor;
  e.open(fmt::format("if ({} && {} == 0)", in_block(n.block), e.thread_in_group()));
  e.line(fmt::format("printf({});", c_format(fmt::format("{}: {}, block ({})\n", n.label, ir::shared_print_header(*s),
                                                         fmt::join(n.block, ", ")))));
  const std::string element =
      is_packed(s->dtype) ? packed_shared_read(e, s, shared_index(s)) : shared_element(e, s, shared_index(s));
  emit_printed_rows(e, s->shape, ir::printed_type(s->dtype), element);
  e.close();
}

void emit_PrintValues(Emitter& e, const ir::PrintValuesNode& n) {
  e.header(n, "print");
  std::string format;
  std::vector<std::string> specs, args;
  size_t from = 0;
  for (const ir::Expr& v : n.values) {
    const size_t at = n.format.find("{}", from);
    format += n.format.substr(from, at - from) + "\x01";
    from = at + 2;
    const DType t = v->type.dtype;
    specs.push_back(print_spec(t));
    args.push_back(print_arg(t, to_arith(t, e.expr(v))));
  }
  format += n.format.substr(from) + "\n";
  e.open(fmt::format("if ({} && {} == 0)", in_block(n.block), e.thread_in_group()));
  e.line(fmt::format("printf({}{});", c_format(format, specs),
                     args.empty() ? "" : ", " + fmt::format("{}", fmt::join(args, ", "))));
  e.close();
}

}  // namespace tessel::codegen
