// Kernel structure, scalar expressions and control flow.
#include <cctype>
#include <cmath>
#include <set>

#include "emitter.hpp"
#include "tessel/ir/mutator.hpp"

namespace tessel::codegen {

std::string c_type(DType t) { return std::string(dtype_info(t).c_type); }

bool stored_as_bits(DType t) { return is_float(t) && t != DType::F32 && t != DType::F64; }

std::string arith_type(DType t) { return stored_as_bits(t) ? "float" : c_type(t); }

std::string to_storage(DType t, const std::string& v) {
  return stored_as_bits(t) ? fmt::format("{}({})", c_type(t), v) : v;
}

std::string to_arith(DType t, const std::string& v) { return stored_as_bits(t) ? fmt::format("float({})", v) : v; }

// An f64 value rounds once to a narrower float: to f32 by rounding to odd, whose last bit keeps
// what was cut off, and from there to nearest (docs/language.md, "f64").
std::string converted(DType from, DType to, const std::string& v) {
  if (from == DType::F64 && stored_as_bits(to)) return fmt::format("tessel_f64_to_f32_odd({})", v);
  return fmt::format("({})({})", arith_type(to), to_arith(from, v));
}

std::string binary_expr(ir::BinaryOp op, DType t, const std::string& a, const std::string& b) {
  using ir::BinaryOp;
  static const std::map<BinaryOp, const char*> infix = {
      {BinaryOp::Add, "+"},  {BinaryOp::Sub, "-"},    {BinaryOp::Mul, "*"},   {BinaryOp::Div, "/"},
      {BinaryOp::Mod, "%"},  {BinaryOp::BitAnd, "&"}, {BinaryOp::BitOr, "|"}, {BinaryOp::BitXor, "^"},
      {BinaryOp::Shl, "<<"}, {BinaryOp::Shr, ">>"},   {BinaryOp::Eq, "=="},   {BinaryOp::Ne, "!="},
      {BinaryOp::Lt, "<"},   {BinaryOp::Le, "<="},    {BinaryOp::Gt, ">"},    {BinaryOp::Ge, ">="},
      {BinaryOp::And, "&&"}, {BinaryOp::Or, "||"}};
  // The f64 forms of the C functions drop the f32 forms' suffix.
  const char* f = t == DType::F64 ? "" : "f";
  if (op == BinaryOp::Min)
    return is_float(t) ? fmt::format("fmin{}({}, {})", f, a, b) : fmt::format("min({}, {})", a, b);
  if (op == BinaryOp::Max)
    return is_float(t) ? fmt::format("fmax{}({}, {})", f, a, b) : fmt::format("max({}, {})", a, b);
  if (op == BinaryOp::Mod && is_float(t)) return fmt::format("fmod{}({}, {})", f, a, b);
  return fmt::format("({} {} {})", a, infix.at(op), b);
}

namespace {

// f64 has the library's forms only (the language refuses Precision::fast for it).
std::string unary_f64_expr(ir::UnaryOp op, const std::string& a) {
  using ir::UnaryOp;
  switch (op) {
    case UnaryOp::Neg: return fmt::format("(-{})", a);
    case UnaryOp::Not: return fmt::format("(!{})", a);
    case UnaryOp::BitNot: break;
    case UnaryOp::Exp: return fmt::format("exp({})", a);
    case UnaryOp::Exp2: return fmt::format("exp2({})", a);
    case UnaryOp::Log: return fmt::format("log({})", a);
    case UnaryOp::Log2: return fmt::format("log2({})", a);
    case UnaryOp::Sqrt: return fmt::format("sqrt({})", a);
    case UnaryOp::Rsqrt: return fmt::format("rsqrt({})", a);
    case UnaryOp::Tanh: return fmt::format("tanh({})", a);
    case UnaryOp::Erf: return fmt::format("erf({})", a);
    case UnaryOp::Sigmoid: return fmt::format("(1.0 / (1.0 + exp(-{})))", a);
    case UnaryOp::Sin: return fmt::format("sin({})", a);
    case UnaryOp::Cos: return fmt::format("cos({})", a);
    case UnaryOp::Abs: return fmt::format("fabs({})", a);
  }
  TESSEL_CHECK(false, "{} of an f64 operand reached code generation", ir::op_name(op));
}

}  // namespace

std::string unary_expr(ir::UnaryOp op, DType t, const std::string& a, ir::MathPrecision precision) {
  using ir::UnaryOp;
  const bool fast = precision == ir::MathPrecision::Fast;
  if (t == DType::F64) return unary_f64_expr(op, a);
  switch (op) {
    case UnaryOp::Neg: return fmt::format("(-{})", a);
    case UnaryOp::Not: return fmt::format("(!{})", a);
    // C promotes narrow integers to int: the result is cut back to the operand's type.
    case UnaryOp::BitNot: return fmt::format("{}(~{})", c_type(t), a);
    case UnaryOp::Exp: return fast ? fmt::format("tessel_ex2_approx({} * 1.44269504f)", a) : fmt::format("expf({})", a);
    case UnaryOp::Exp2: return fast ? fmt::format("tessel_ex2_approx({})", a) : fmt::format("exp2f({})", a);
    case UnaryOp::Log:
      return fast ? fmt::format("(tessel_lg2_approx({}) * 0.693147181f)", a) : fmt::format("logf({})", a);
    case UnaryOp::Log2: return fast ? fmt::format("tessel_lg2_approx({})", a) : fmt::format("log2f({})", a);
    case UnaryOp::Sqrt: return fast ? fmt::format("tessel_sqrt_approx({})", a) : fmt::format("sqrtf({})", a);
    case UnaryOp::Rsqrt: return fmt::format("rsqrtf({})", a);
    case UnaryOp::Tanh: return fast ? fmt::format("tessel_tanh_approx({})", a) : fmt::format("tanhf({})", a);
    case UnaryOp::Erf: return fmt::format("erff({})", a);
    case UnaryOp::Sigmoid:
      return fast ? fmt::format("fmaf(0.5f, tessel_tanh_approx(0.5f * {}), 0.5f)", a)
                  : fmt::format("(1.0f / (1.0f + expf(-{})))", a);
    case UnaryOp::Sin: return fast ? fmt::format("tessel_sin_approx({})", a) : fmt::format("sinf({})", a);
    case UnaryOp::Cos: return fast ? fmt::format("tessel_cos_approx({})", a) : fmt::format("cosf({})", a);
    case UnaryOp::Abs: return is_float(t) ? fmt::format("fabsf({})", a) : fmt::format("abs({})", a);
  }
  return a;
}

std::string bits_expr(DType t, const std::string& v) {
  if (stored_as_bits(t)) return fmt::format("{}.bits", v);
  if (t == DType::F32) return fmt::format("__float_as_uint({})", v);
  if (t == DType::F64) return fmt::format("uint64_t(__double_as_longlong({}))", v);
  return fmt::format("uint{}_t({})", 8 * dtype_bytes(t), v);
}

std::string from_bits_expr(DType t, const std::string& bits) {
  if (stored_as_bits(t)) return fmt::format("tessel_from_bits<{}>({})", c_type(t), bits);
  if (t == DType::F32) return fmt::format("__uint_as_float({})", bits);
  if (t == DType::F64) return fmt::format("__longlong_as_double((long long)({}))", bits);
  return fmt::format("{}({})", c_type(t), bits);
}

std::string float_literal(double v) {
  if (std::isnan(v)) return "__int_as_float(0x7fc00000)";
  if (std::isinf(v)) return v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  std::string s = fmt::format("{:.9g}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string value_literal(DType t, double v) {
  if (t != DType::F64 || !std::isfinite(v)) return float_literal(v);
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

// Names the emitter's own temporaries use (t, l, lv, j, p, c0, c0_base, acc0, tessel_*), and C++
// keywords and types a user's names could otherwise collide with.
bool reserved(const std::string& n) {
  static const std::set<std::string> words = {
      "t", "l", "lv", "j", "p", "int", "float", "double", "bool", "char", "short", "long", "unsigned", "signed", "void",
      "if", "else", "for", "while", "do", "return", "const", "auto", "break", "continue", "switch", "case", "default",
      "new", "delete", "this", "true", "false", "struct", "class", "union", "enum", "static", "extern", "inline",
      "template", "typename", "namespace", "using", "operator", "sizeof", "min", "max", "int32_t", "uint32_t",
      "int64_t", "uint64_t", "threadIdx", "blockIdx", "gridDim", "blockDim", "warpSize",
      // the locals of the data-movement emitters, which a kernel value used beside them must not shadow
      "tile", "thread_g", "thread_p", "inside"};
  if (words.count(n) || n.rfind("tessel_", 0) == 0 || n.rfind("__", 0) == 0) return true;
  for (const char* prefix : {"c", "o", "acc"}) {
    const size_t k = std::string(prefix).size();
    if (n.size() > k && n.rfind(prefix, 0) == 0 && std::isdigit(static_cast<unsigned char>(n[k]))) return true;
  }
  return false;
}

bool has_whole_warp_group(const ir::Stmt& body) {
  bool found = false;
  ir::walk(body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::ThreadGroup) return;
    auto& n = static_cast<const ir::ThreadGroupNode&>(s);
    found = found || ir::ThreadRange{n.begin, n.count}.whole_warps();
  });
  return found;
}

// Whether `body` holds a statement of `kind`.
bool contains(const ir::Stmt& body, ir::NodeKind kind) {
  bool found = false;
  ir::walk(body, [&](const ir::StmtNode& s) { found = found || s.kind == kind; });
  return found;
}

std::string literal(const ir::ConstNode& n) {
  switch (n.type.dtype) {
    case DType::Bool: return n.i ? "true" : "false";
    case DType::I8: return fmt::format("int8_t({})", n.i);
    case DType::U8: return fmt::format("uint8_t({})", n.i);
    case DType::I16: return fmt::format("int16_t({})", n.i);
    case DType::U16: return fmt::format("uint16_t({})", n.i);
    case DType::I32: return n.i == INT32_MIN ? "(-2147483647 - 1)" : fmt::format("{}", n.i);
    case DType::U32: return fmt::format("{}u", n.i);
    case DType::I64: return fmt::format("{}ll", n.i);
    case DType::U64: return fmt::format("{}ull", uint64_t(n.i));
    // A packed float's constant is its bit pattern, what a packed tile's slots hold.
    case TESSEL_PACKED_DTYPES:
      return fmt::format("int({})", is_float(n.type.dtype) ? int64_t(float_to_bits(n.type.dtype, float(n.f))) : n.i);
    case DType::F32: return float_literal(n.f);
    case DType::F64: return value_literal(DType::F64, n.f);
    case DType::F16:
    case DType::BF16:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::E8M0:
    case DType::TF32: return to_storage(n.type.dtype, float_literal(n.f));
  }
  TESSEL_CHECK(false, "constant of unknown dtype {}", int(n.type.dtype));
}

}  // namespace

std::string identifier(const std::string& hint) {
  std::string id;
  for (char c : hint) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "v" + id;
  return id;
}

std::string Emitter::name(const void* object, const std::string& hint) {
  auto it = names_.find(object);
  if (it != names_.end()) return it->second;
  std::string base = identifier(hint);
  if (reserved(base)) base += "_";
  std::string n = base;
  for (int i = 1; used_.count(n); ++i) n = fmt::format("{}_{}", base, i);
  used_.insert(n);
  names_[object] = n;
  return n;
}

std::string Emitter::thread_in_group() const {
  return group().begin == 0 ? "int(threadIdx.x)" : fmt::format("(int(threadIdx.x) - {})", group().begin);
}

std::string Emitter::expr(const ir::Expr& e) {
  switch (e->kind) {
    case ir::NodeKind::Const: return literal(static_cast<const ir::ConstNode&>(*e));
    case ir::NodeKind::Var: {
      auto& n = static_cast<const ir::VarNode&>(*e);
      return name(&n, n.name);
    }
    case ir::NodeKind::Binary: {
      auto& n = static_cast<const ir::BinaryNode&>(*e);
      if (n.a->type.pointer) return binary_expr(n.op, DType::I64, expr(n.a), expr(n.b));
      const DType t = ir::promote(n.a->type.dtype, n.b->type.dtype);
      std::string r = binary_expr(n.op, t, to_arith(n.a->type.dtype, expr(n.a)), to_arith(n.b->type.dtype, expr(n.b)));
      return ir::is_comparison(n.op) ? r : to_storage(n.type.dtype, r);
    }
    case ir::NodeKind::Unary: {
      auto& n = static_cast<const ir::UnaryNode&>(*e);
      return to_storage(n.type.dtype, unary_expr(n.op, n.a->type.dtype, to_arith(n.a->type.dtype, expr(n.a))));
    }
    case ir::NodeKind::Select: {
      auto& n = static_cast<const ir::SelectNode&>(*e);
      return fmt::format("({} ? {} : {})", expr(n.cond), expr(n.a), expr(n.b));
    }
    case ir::NodeKind::Cast: {
      auto& n = static_cast<const ir::CastNode&>(*e);
      if (n.type.pointer) return fmt::format("reinterpret_cast<{}*>({})", c_type(n.type.dtype), expr(n.a));
      if (n.a->type.pointer) return fmt::format("{}(reinterpret_cast<uint64_t>({}))", c_type(n.type.dtype), expr(n.a));
      return to_storage(n.type.dtype, converted(n.a->type.dtype, n.type.dtype, expr(n.a)));
    }
    case ir::NodeKind::Builtin:
      switch (static_cast<const ir::BuiltinNode&>(*e).which) {
        case ir::BuiltinKind::BlockIdxX: return "int(blockIdx.x)";
        case ir::BuiltinKind::BlockIdxY: return "int(blockIdx.y)";
        case ir::BuiltinKind::BlockIdxZ: return "int(blockIdx.z)";
        case ir::BuiltinKind::GridDimX: return "int(gridDim.x)";
        case ir::BuiltinKind::GridDimY: return "int(gridDim.y)";
        case ir::BuiltinKind::GridDimZ: return "int(gridDim.z)";
        case ir::BuiltinKind::ThreadIdxX: return "int(threadIdx.x)";
        case ir::BuiltinKind::Multiprocessors:
          TESSEL_CHECK(false, "multiprocessors reached code generation instead of a parameter (plan_multiprocessors)");
        // Clusters tile the grid (ir::cluster_builtin_value); the shape is the kernel's constant.
        case ir::BuiltinKind::ClusterBlockIdxX: return fmt::format("int(blockIdx.x % {}u)", cluster[0]);
        case ir::BuiltinKind::ClusterBlockIdxY: return fmt::format("int(blockIdx.y % {}u)", cluster[1]);
        case ir::BuiltinKind::ClusterBlockIdxZ: return fmt::format("int(blockIdx.z % {}u)", cluster[2]);
        case ir::BuiltinKind::ClusterDimX: return std::to_string(cluster[0]);
        case ir::BuiltinKind::ClusterDimY: return std::to_string(cluster[1]);
        case ir::BuiltinKind::ClusterDimZ: return std::to_string(cluster[2]);
        case ir::BuiltinKind::ClusterIdxX: return fmt::format("int(blockIdx.x / {}u)", cluster[0]);
        case ir::BuiltinKind::ClusterIdxY: return fmt::format("int(blockIdx.y / {}u)", cluster[1]);
        case ir::BuiltinKind::ClusterIdxZ: return fmt::format("int(blockIdx.z / {}u)", cluster[2]);
        case ir::BuiltinKind::ClusterBlockRank:
          return fmt::format("int(blockIdx.x % {0}u + {0}u * (blockIdx.y % {1}u + {1}u * (blockIdx.z % {2}u)))",
                             cluster[0], cluster[1], cluster[2]);
      }
      break;
// clang-format off
#define TESSEL_TENSOR(Name) case ir::NodeKind::Name:
#define TESSEL_STMT(Name) case ir::NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case ir::NodeKind::Name:
#include "tessel/ir/nodes.def"
      // clang-format on
      break;
  }
  TESSEL_CHECK(false, "not an expression: {}", ir::kind_name(e->kind));
}

void Emitter::header(const ir::StmtNode& s, const std::string& what) {
  const ir::ThreadRange g = group();
  std::string who = g.count == 1      ? fmt::format("thread {}", g.begin)
                    : g.whole_warps() ? fmt::format("warps {}..{}", g.begin / 32, (g.begin + g.count) / 32 - 1)
                                      : fmt::format("threads {}..{}", g.begin, g.begin + g.count - 1);
  line(fmt::format("// {} [{}]{}", what, who, where(s.loc)));
}

void Emitter::visit(const ir::DeclareNode& n) {
  line(fmt::format("{} {} = {};", c_type(n.var->type.dtype), expr(n.var), expr(n.init)));
  Visitor::visit(n);
}

void Emitter::visit(const ir::AssignNode& n) {
  line(fmt::format("{} = {};", expr(n.var),
                   to_storage(n.var->type.dtype, converted(n.value->type.dtype, n.var->type.dtype, expr(n.value)))));
}

void Emitter::visit(const ir::ForNode& n) {
  int64_t step = 0;
  const std::string v = expr(n.var);
  std::string cond;
  if (ir::as_const_int(n.step, &step))
    cond = fmt::format("{} {} {}", v, step > 0 ? "<" : ">", expr(n.stop));
  else
    cond = fmt::format("({0} > 0 ? {1} < {2} : {1} > {2})", expr(n.step), v, expr(n.stop));
  if (n.unroll > 0) line(fmt::format("#pragma unroll {}", n.unroll));
  open(fmt::format("for (int32_t {0} = {1}; {2}; {0} += {3})", v, expr(n.start), cond, expr(n.step)));
  visit_loop_body(n.body, n.var);
  close();
}

void Emitter::visit(const ir::IfNode& n) {
  open(fmt::format("if ({})", expr(n.cond)));
  visit_branch(n.then_case);
  if (n.else_case) {
    close(" else {");
    ++indent;
    visit_branch(n.else_case);
  }
  close();
}

void Emitter::visit(const ir::WhileNode& n) {
  open(fmt::format("while ({})", expr(n.cond)));
  visit_loop_body(n.body);
  close();
}

// A break_(), or the failed test of a while_ whose condition is computed in the loop: the comment
// names the line of either.
void Emitter::visit(const ir::BreakNode& n) { line("break;" + comment(n.loc)); }
void Emitter::visit(const ir::ContinueNode& n) { line("continue;" + comment(n.loc)); }
void Emitter::visit(const ir::ReturnNode& n) { line("return;" + comment(n.loc)); }

void Emitter::visit(const ir::ThreadGroupNode& n) {
  const ir::ThreadRange g{n.begin, n.count};
  if (g.whole_warps()) {
    const int first = g.begin / 32, end = (g.begin + g.count) / 32;
    line(fmt::format("// thread group: warps {}..{}{}", first, end - 1, where(n.loc)));
    open(end == first + 1 ? fmt::format("if ({} == {})", kWarpIndex, first)
                          : fmt::format("if ({0} >= {1} && {0} < {2})", kWarpIndex, first, end));
    visit_group(n);
    close();
    return;
  }
  // Part of a warp: its lanes meet the others on the way in and out, so that the warp's accesses
  // stay ordered around the group's as the simulator orders them (a release by one lane carries
  // the others' writes).
  line(fmt::format("// thread group: threads {}..{}{}", n.begin, n.begin + n.count - 1, where(n.loc)));
  const std::string meet = sync_lanes();
  line(meet);
  // threadIdx.x is unsigned: a group from thread 0 tests only its end (nvcc warns otherwise).
  open(n.begin == 0 ? fmt::format("if (threadIdx.x < {})", n.count)
                    : fmt::format("if (threadIdx.x >= {} && threadIdx.x < {})", n.begin, n.begin + n.count));
  visit_group(n);
  close();
  line(meet);
}

std::string Emitter::sync_lanes() const {
  const bool every_lane = group().whole_warps() && !position().nested() && !lanes_may_return;
  return fmt::format("tessel_sync_lanes({});", every_lane ? "0xffffffffu" : "__activemask()");
}

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  void Emitter::visit(const ir::Name##Node& n) {             \
    emit_##Name(*this, n);                                   \
    last_instruction = &n;                                   \
    last_instruction_end = out.size();                       \
  }
#include "tessel/ir/nodes.def"
// clang-format on

CudaModule emit_cuda(const ir::KernelNode& k, ir::Arch arch, const EmitOptions& options) {
  TESSEL_CHECK(k.shared_bytes >= 0, "kernel {} reached code generation without a shared-memory plan", k.name);
  Emitter e(k, arch, options);
  e.lanes_may_return = contains(k.body, ir::NodeKind::Return);
  e.cluster = k.cluster;
  e.tcgen05_cta_group = k.tcgen05_cta_group;
  CudaModule m;
  m.kernel_name = "tessel_" + identifier(k.name);
  std::vector<std::string> params;
  for (const ir::Var& p : k.params)
    params.push_back(
        fmt::format("{}{} {}", c_type(p->type.dtype), p->type.pointer ? "*" : "", e.name(p.get(), p->name)));
  // Tensor maps follow the parameters, in table order, as runtime::ParamLayout places them.
  for (const ir::TensorMap& map : k.tensor_maps) {
    e.tensor_maps.push_back(e.name(&map, "tensor_map"));
    params.push_back("const __grid_constant__ tessel_tensor_map " + e.tensor_maps.back());
  }
  // Debug mode: the allocation of each pointer parameter follows, in order.
  if (e.debug)
    for (const ir::Var& p : k.params)
      if (p->type.pointer) {
        e.allocations[p.get()] = "tessel_allocation_" + e.name(p.get(), p->name);
        params.push_back("const tessel_allocation " + e.allocations[p.get()]);
      }
  e.line(fmt::format("// Generated by tessel {} for {} from kernel {}{}{}.", TESSEL_VERSION, ir::arch_name(arch),
                     k.name, e.where(k.loc), e.debug ? " in debug mode" : ""));
  e.line(fmt::format("#include \"{}\"", kDeviceHeaderName));
  if (e.debug) e.line(fmt::format("#include \"{}\"", kDebugHeaderName));
  e.line("");
  const size_t functions_at = e.out.size();
  // setmaxnreg moves registers between warpgroups within the block's allocation, so ptxas must fix
  // the registers per thread at kernel entry: with a minimum of one block per multiprocessor in
  // __launch_bounds__ it gives every thread its share of the register file (168 for 384 threads,
  // PTX ISA 9.7.19.5) and honours setmaxnreg; with the thread count alone it picks a count of its
  // own and ignores setmaxnreg (ptxas C7508, "unable to determine register count at entry").
  // attrs.resident_blocks is that minimum (the trace refuses it beside setmaxnreg).
  const int resident_blocks = contains(k.body, ir::NodeKind::SetMaxNReg) ? 1 : k.resident_blocks;
  const std::string bounds =
      resident_blocks ? fmt::format("{}, {}", k.threads(), resident_blocks) : std::to_string(k.threads());
  e.open(fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}({})", bounds, m.kernel_name,
                     fmt::join(params, ", ")));
  if (k.shared_bytes > 0) e.line("extern __shared__ __align__(1024) unsigned char tessel_smem[];");
  if (has_whole_warp_group(k.body) || contains(k.body, ir::NodeKind::WgmmaMma))
    e.line(
        fmt::format("const int {} = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);  // warp-uniform", kWarpIndex));
  if (e.debug) emit_debug_entry(e, k);
  e.body(k);
  e.close();
  std::string functions;
  for (const auto& [name, definition] : e.functions) functions += definition;
  e.out.insert(functions_at, functions);
  m.source = std::move(e.out);
  m.headers = {{kDeviceHeaderName, device_header()}};
  if (e.debug) m.headers.emplace_back(kDebugHeaderName, debug_header());
  return m;
}

}  // namespace tessel::codegen
