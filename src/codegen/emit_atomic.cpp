// Atomics: atom (the old value wanted), red (not wanted), and ld/st with a memory order, on global
// memory (.global), shared memory (.shared::cta), or through a generic address: for the f16 and
// bf16 adds, which PTX has for global and generic addresses only, and for another block's shared
// memory, whose address mapa gives as a generic one.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

// How PTX names the operation on an element type, and the register it travels in.
struct AtomicForm {
  std::string op;        // "add", "add.noftz", "exch", ...
  std::string type;      // "s32", "b64", "f32", ...
  std::string reg;       // "r", "l", "f", "h"
  std::string reg_type;  // the C type of that register
};

AtomicForm form(ir::AtomicOp op, DType t) {
  const bool wide = dtype_bytes(t) == 8;
  const bool half = t == DType::F16 || t == DType::BF16;
  AtomicForm f;
  const bool floating = t == DType::F32 || t == DType::F64;
  f.reg = half ? "h" : t == DType::F32 ? "f" : t == DType::F64 ? "d" : wide ? "l" : "r";
  f.reg_type = half ? "uint16_t" : c_type(t);
  const std::string bits = wide ? "b64" : "b32";
  const std::string integer = t == DType::I32 ? "s32" : t == DType::U32 ? "u32" : t == DType::I64 ? "s64" : "u64";
  switch (op) {
    case ir::AtomicOp::Add:
      f.op = half ? "add.noftz" : "add";
      // Two's complement: an add of i64 is the add of u64.
      f.type = half || floating ? std::string(dtype_name(t)) : t == DType::I64 ? "u64" : integer;
      break;
    case ir::AtomicOp::Min:
    case ir::AtomicOp::Max:
      f.op = std::string(ir::atomic_op_name(op));
      f.type = integer;
      break;
    case ir::AtomicOp::And:
    case ir::AtomicOp::Or:
    case ir::AtomicOp::Xor:
      f.op = std::string(ir::atomic_op_name(op));
      f.type = bits;
      break;
    case ir::AtomicOp::Exchange:
      f.op = "exch";
      f.type = bits;
      break;
    case ir::AtomicOp::CompareExchange: f.type = bits; break;
    case ir::AtomicOp::Load:
    case ir::AtomicOp::Store: f.type = floating ? std::string(dtype_name(t)) : integer; break;
  }
  return f;
}

// The operand of value `v` of type `t` in its register.
std::string in_register(DType t, const std::string& v) {
  return t == DType::F16 || t == DType::BF16 ? bits_expr(t, v) : v;
}

// Emits the atomic on the element at `pointer` (a C++ pointer expression): its old value goes to
// `old` (a declared variable of the form's register type) when `old` is not empty. `hint` is the
// global view's L2 hint (none for shared memory).
void emit_element(Emitter& e, ir::AtomicOp op, ir::MemoryOrder order, ir::MemoryScope scope, DType t, bool shared,
                  bool remote, ir::CacheHint hint, const std::string& pointer, const std::string& value,
                  const std::string& expected, const std::string& old) {
  const AtomicForm f = form(op, t);
  const bool generic = remote || t == DType::F16 || t == DType::BF16;
  const bool shared_window = shared && !generic;
  PtxModifiers m{{"sem", std::string(ir::memory_order_name(order))},
                 {"scope", std::string(ir::memory_scope_name(scope))},
                 {"space", generic  ? ""
                           : shared ? ".shared::cta"
                                    : ".global"},
                 {"type", f.type},
                 {"op", f.op},
                 {"reg", f.reg},
                 {"address_reg", shared_window ? "r" : "l"}};
  const std::string address = shared_window ? fmt::format("uint32_t(__cvta_generic_to_shared({}))", pointer) : pointer;
  const std::string v = value.empty() ? "" : in_register(t, value);
  if (f.op.empty()) m.erase("op");  // ld, st and cas name no operation
  // The operands, and the view's cache hint where the instruction takes one.
  const auto hinted = [&](PtxOperands operands) {
    add_cache_hint(hint, operands, m);
    return operands;
  };
  switch (op) {
    case ir::AtomicOp::Load: e.line(ptx_asm(Ptx::LdOrdered, e.arch, hinted({{old}, {address}}), m)); return;
    case ir::AtomicOp::Store: e.line(ptx_asm(Ptx::StOrdered, e.arch, hinted({{address}, {v}}), m)); return;
    case ir::AtomicOp::CompareExchange:
      e.line(ptx_asm(Ptx::AtomCas, e.arch, {{old}, {address}, {in_register(t, expected)}, {v}}, m));
      return;
    default:
      if (old.empty())
        e.line(ptx_asm(Ptx::RedRmw, e.arch, hinted({{address}, {v}}), m));
      else
        e.line(ptx_asm(Ptx::AtomRmw, e.arch, hinted({{old}, {address}, {v}}), m));
  }
}

// The value of register `old` as an element of type `t`.
std::string from_register(DType t, const std::string& old) {
  return t == DType::F16 || t == DType::BF16 ? from_bits_expr(t, old) : old;
}

}  // namespace

void emit_AtomicScalar(Emitter& e, const ir::AtomicScalarNode& n) {
  const DType t = n.global ? n.global->dtype : n.shared->dtype;
  e.header(n, fmt::format("atomic {}", ir::atomic_op_name(n.op)));
  e.open("");
  const int rank = n.global ? n.global->rank() : n.shared->rank();
  for (int d = 0; d < rank; ++d) e.line(fmt::format("const int c{} = {};", d, e.expr(n.index[size_t(d)])));
  std::string pointer;
  if (n.global) {
    pointer = fmt::format("({} + ({}))", e.expr(n.global->ptr), global_index(e, n.global));
    if (e.debug)
      emit_access_check(e, n, fmt::format("atomic.{}", ir::atomic_op_name(n.op)), n.global, "", pointer,
                        std::to_string(dtype_bytes(t)), coordinates(rank));
  } else {
    const std::string memory = n.rank ? remote_shared_memory(e, n.rank) : "tessel_smem";
    pointer = "&" + shared_element(e, n.shared, shared_index(n.shared), 0, memory);
  }
  const std::string value = n.value ? e.expr(n.value) : "", expected = n.compare ? e.expr(n.compare) : "";
  const std::string old = n.result ? "tessel_old" : "";
  if (n.result) e.line(fmt::format("{} tessel_old;", form(n.op, t).reg_type));
  emit_element(e, n.op, n.order, n.scope, t, bool(n.shared), bool(n.rank),
               n.global ? n.global->cache_hint : ir::CacheHint::Normal, pointer, value, expected, old);
  if (n.result) e.line(fmt::format("{} = {};", e.expr(n.result), from_register(t, "tessel_old")));
  e.close();
}

void emit_AtomicTensor(Emitter& e, const ir::AtomicTensorNode& n) {
  const DType t = n.value->dtype;
  e.header(n, fmt::format("tile atomic {}", ir::atomic_op_name(n.op)));
  if (n.out) e.declare_tile(n.out);
  e.open("");
  const std::string memory = n.rank ? remote_shared_memory(e, n.rank) : "tessel_smem";
  if (n.index) {
    // A scatter: each element's position in the rank-1 target is its element of the index tile.
    e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
    e.line("#pragma unroll");
    e.open(fmt::format("for (int l = 0; l < {}; ++l)", n.value->layout.local_size()));
    e.line(fmt::format("const int64_t c0 = int64_t({}[l]);", e.tile(n.index)));
  } else {
    open_slot_loop(e, n.value, n.offsets);
  }
  // An element held by several threads is combined once, by its first replica.
  std::vector<std::string> conditions = first_replica_conditions(n.value->layout, "t");
  std::string pointer;
  if (n.global) {
    conditions.push_back(in_bounds(e, n.global));
    pointer = fmt::format("({} + ({}))", e.expr(n.global->ptr), global_index(e, n.global));
  } else {
    if (n.index) conditions.push_back(fmt::format("c0 >= 0 && c0 < {}", n.shared->shape[0]));
    pointer = "&" + shared_element(e, n.shared, shared_index(n.shared), 0, memory);
  }
  if (n.out) e.line(fmt::format("{}[l] = {};", e.tile(n.out), to_storage(t, fmt::format("({})0", arith_type(t)))));
  e.open(conditions.empty() ? "" : fmt::format("if ({})", fmt::join(conditions, " && ")));
  if (n.global && e.debug)
    emit_access_check(e, n, fmt::format("atomic.{}", ir::atomic_op_name(n.op)), n.global, "", pointer,
                      std::to_string(dtype_bytes(t)), coordinates(n.global->rank()));
  const std::string value = fmt::format("{}[l]", e.tile(n.value));
  const std::string expected = n.compare ? fmt::format("{}[l]", e.tile(n.compare)) : "";
  if (n.out) e.line(fmt::format("{} tessel_old;", form(n.op, t).reg_type));
  emit_element(e, n.op, n.order, n.scope, t, bool(n.shared), bool(n.rank),
               n.global ? n.global->cache_hint : ir::CacheHint::Normal, pointer, value, expected,
               n.out ? "tessel_old" : "");
  if (n.out) e.line(fmt::format("{}[l] = {};", e.tile(n.out), from_register(t, "tessel_old")));
  e.close();
  e.close();
  e.close();
}

}  // namespace tessel::codegen
