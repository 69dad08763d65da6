#include "tessel/ir/ir.hpp"

#include <fmt/format.h>

namespace tessel::ir {

std::string_view kind_name(NodeKind k) {
  switch (k) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name: return #Name;
#define TESSEL_TENSOR(Name) case NodeKind::Name: return #Name;
#define TESSEL_STMT(Name) case NodeKind::Name: return #Name;
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name: return #Name;
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return "?";
}

std::string_view call_name(NodeKind k) {
  switch (k) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    return kind_name(k);
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name: return call;
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return "?";
}

bool takes_packed_tiles(NodeKind k) {
  switch (k) {
    case NodeKind::AllocShared:
    case NodeKind::AllocRegister:
    case NodeKind::LoadGlobal:
    case NodeKind::StoreGlobal:
    case NodeKind::LoadShared:
    case NodeKind::StoreShared:
    case NodeKind::CastTensor:
    case NodeKind::BitcastTensor:
    case NodeKind::CopyRegister:
    case NodeKind::AnnotateLayout:
    case NodeKind::PrintTensor:
    case NodeKind::PrintShared:
    case NodeKind::TmaLoad:                  // into tiles of 16-element chunks (tensor_map.hpp)
    case NodeKind::Tcgen05Mma: return true;  // kind::mxf4 and mxf4nvf4 read f4e2m1 pairs
    default: return false;
  }
}

bool takes_e8m0_tiles(NodeKind k) {
  switch (k) {
    case NodeKind::TmaStore:
    case NodeKind::TmaBulkLoad:
    case NodeKind::TmaBulkStore:
    case NodeKind::CopyAsync:
    case NodeKind::StoreSharedAsync:
    case NodeKind::Relayout:
    case NodeKind::Shuffle:
    case NodeKind::SliceRegister:
    case NodeKind::RegroupRegisters: return true;
    case NodeKind::Tcgen05Mma: return false;
    default: return takes_packed_tiles(k);
  }
}

// What moves e8m0 elements moves tf32 ones, and every tensor core multiplies them.
bool takes_tf32_tiles(NodeKind k) {
  return k == NodeKind::Dot || k == NodeKind::WgmmaMma || k == NodeKind::Tcgen05Mma || takes_e8m0_tiles(k);
}

bool is_instruction(NodeKind k) {
  switch (k) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      return false;
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    // clang-format on
    return true;
  }
  return false;
}

std::vector<NodeKind> all_kinds() {
  return {
// clang-format off
#define TESSEL_EXPR(Name) NodeKind::Name,
#define TESSEL_TENSOR(Name) NodeKind::Name,
#define TESSEL_STMT(Name) NodeKind::Name,
#define TESSEL_INSTR(Name, family, min_target, executor, call) NodeKind::Name,
#include "tessel/ir/nodes.def"
      // clang-format on
  };
}

const InstructionTraits& instruction_traits(NodeKind instruction) {
  static const InstructionTraits none{};
  switch (instruction) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "{} is not an instruction", kind_name(instruction));
      return none;
#define TESSEL_INSTR(Name, family, min_target, executor, call)                                      \
  case NodeKind::Name: {                                                                      \
    static const InstructionTraits traits{#family, Arch::min_target, Executor::executor};   \
    return traits;                                                                          \
  }
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return none;
}

std::string_view proxy_fence_space_name(ProxyFenceSpace s) {
  switch (s) {
    case ProxyFenceSpace::SharedCta: return "shared::cta";
    case ProxyFenceSpace::SharedCluster: return "shared::cluster";
    case ProxyFenceSpace::Global: return "global";
    case ProxyFenceSpace::All: return "";
  }
  return "?";
}

std::string_view fence_semantics_name(FenceSemantics s) { return s == FenceSemantics::Sc ? "sc" : "acq_rel"; }

std::string_view wait_semantics_name(WaitSemantics s) {
  switch (s) {
    case WaitSemantics::Acquire: return "acquire";
    case WaitSemantics::Relaxed: return "relaxed";
  }
  return "?";
}

std::string_view wait_scope_name(WaitScope s) {
  switch (s) {
    case WaitScope::Cta: return "cta";
    case WaitScope::Cluster: return "cluster";
  }
  return "?";
}

std::string ThreadRange::str() const { return fmt::format("threads {}..{}", begin, end() - 1); }

std::string MatrixAccess::str() const {
  switch (instruction) {
    case MatrixInstruction::None: return "";
    case MatrixInstruction::LdmatrixA: return fmt::format("ldmatrix A over {}x{} warps", warps_m, warps_n);
    case MatrixInstruction::LdmatrixB: return fmt::format("ldmatrix B over {}x{} warps", warps_m, warps_n);
    case MatrixInstruction::Stmatrix: return fmt::format("stmatrix over {}x{} warps", warps_m, warps_n);
  }
  return "";
}

std::string Type::str() const {
  return pointer ? fmt::format("ptr<{}>", dtype_name(dtype)) : std::string(dtype_name(dtype));
}

std::string_view op_name(BinaryOp op) {
  static constexpr std::string_view names[] = {"add",    "sub",   "mul",    "div", "mod", "min", "max",
                                               "bitand", "bitor", "bitxor", "shl", "shr", "eq",  "ne",
                                               "lt",     "le",    "gt",     "ge",  "and", "or"};
  return names[int(op)];
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge;
}

std::string_view op_name(UnaryOp op) {
  static constexpr std::string_view names[] = {"neg", "not",  "bitnot", "exp", "exp2",    "log", "sqrt", "rsqrt",
                                               "abs", "log2", "tanh",   "erf", "sigmoid", "sin", "cos"};
  return names[int(op)];
}

bool is_transcendental(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Not:
    case UnaryOp::BitNot:
    case UnaryOp::Abs: return false;
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Sigmoid:
    case UnaryOp::Sin:
    case UnaryOp::Cos: return true;
  }
  return false;
}

bool has_fast_form(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Sqrt:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Sin:
    case UnaryOp::Cos: return true;
    case UnaryOp::Neg:
    case UnaryOp::Not:
    case UnaryOp::BitNot:
    case UnaryOp::Abs:
    case UnaryOp::Rsqrt:
    case UnaryOp::Erf: return false;
  }
  return false;
}

std::string_view precision_name(MathPrecision p) { return p == MathPrecision::Fast ? "fast" : "exact"; }

bool is_bitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor || op == BinaryOp::Shl ||
         op == BinaryOp::Shr;
}

std::string_view op_name(ReduceOp op) {
  static constexpr std::string_view names[] = {"sum", "max", "min"};
  return names[int(op)];
}

std::string_view atomic_op_name(AtomicOp op) {
  static constexpr std::string_view names[] = {
      "add", "min", "max", "and", "or", "xor", "exchange", "compare_exchange", "load", "store"};
  return names[int(op)];
}

std::string atomic_call_name(AtomicOp op, bool fetch, bool scatter) {
  std::string name(atomic_op_name(op));
  const bool returns_anyway =
      op == AtomicOp::Exchange || op == AtomicOp::CompareExchange || op == AtomicOp::Load || op == AtomicOp::Store;
  if (!returns_anyway && fetch)
    name = "fetch_" + name;
  else if (op == AtomicOp::And || op == AtomicOp::Or || op == AtomicOp::Xor)
    name = "bit_" + name;
  return fmt::format("atomic.{}{}", scatter ? "scatter_" : "", name);
}

bool reads_memory(AtomicOp op) { return op != AtomicOp::Store; }
bool writes_memory(AtomicOp op) { return op != AtomicOp::Load; }

std::string_view memory_order_name(MemoryOrder o) {
  static constexpr std::string_view names[] = {"relaxed", "acquire", "release", "acq_rel"};
  return names[int(o)];
}

std::string_view memory_scope_name(MemoryScope s) {
  static constexpr std::string_view names[] = {"cta", "cluster", "gpu", "sys"};
  return names[int(s)];
}

std::string_view builtin_name(BuiltinKind b) {
  switch (b) {
    case BuiltinKind::BlockIdxX: return "blockIdx.x";
    case BuiltinKind::BlockIdxY: return "blockIdx.y";
    case BuiltinKind::BlockIdxZ: return "blockIdx.z";
    case BuiltinKind::GridDimX: return "gridDim.x";
    case BuiltinKind::GridDimY: return "gridDim.y";
    case BuiltinKind::GridDimZ: return "gridDim.z";
    case BuiltinKind::Multiprocessors: return "multiprocessors";
    case BuiltinKind::ClusterBlockIdxX: return "cluster.blockIdx.x";
    case BuiltinKind::ClusterBlockIdxY: return "cluster.blockIdx.y";
    case BuiltinKind::ClusterBlockIdxZ: return "cluster.blockIdx.z";
    case BuiltinKind::ClusterDimX: return "cluster.clusterDim.x";
    case BuiltinKind::ClusterDimY: return "cluster.clusterDim.y";
    case BuiltinKind::ClusterDimZ: return "cluster.clusterDim.z";
    case BuiltinKind::ClusterIdxX: return "cluster.clusterIdx.x";
    case BuiltinKind::ClusterIdxY: return "cluster.clusterIdx.y";
    case BuiltinKind::ClusterIdxZ: return "cluster.clusterIdx.z";
    case BuiltinKind::ClusterBlockRank: return "cluster.blockRank";
    case BuiltinKind::ThreadIdxX: return "threadIdx.x";
  }
  return "?";
}

// Clusters tile the grid: the cluster of block b along d is b / cluster[d], and the block's
// index in it b % cluster[d] (PTX ISA 10.13-10.16: %cluster_ctaid, %clusterid, %cluster_ctarank).
int64_t cluster_builtin_value(BuiltinKind b, const std::array<int, 3>& block, const std::array<int, 3>& cluster) {
  switch (b) {
    case BuiltinKind::ClusterBlockIdxX: return block[0] % cluster[0];
    case BuiltinKind::ClusterBlockIdxY: return block[1] % cluster[1];
    case BuiltinKind::ClusterBlockIdxZ: return block[2] % cluster[2];
    case BuiltinKind::ClusterDimX: return cluster[0];
    case BuiltinKind::ClusterDimY: return cluster[1];
    case BuiltinKind::ClusterDimZ: return cluster[2];
    case BuiltinKind::ClusterIdxX: return block[0] / cluster[0];
    case BuiltinKind::ClusterIdxY: return block[1] / cluster[1];
    case BuiltinKind::ClusterIdxZ: return block[2] / cluster[2];
    case BuiltinKind::ClusterBlockRank:
      return block[0] % cluster[0] + cluster[0] * (block[1] % cluster[1] + cluster[1] * (block[2] % cluster[2]));
    case BuiltinKind::BlockIdxX:
    case BuiltinKind::BlockIdxY:
    case BuiltinKind::BlockIdxZ:
    case BuiltinKind::GridDimX:
    case BuiltinKind::GridDimY:
    case BuiltinKind::GridDimZ:
    case BuiltinKind::Multiprocessors:
    case BuiltinKind::ThreadIdxX: break;
  }
  TESSEL_CHECK(false, "{} is not a cluster value", builtin_name(b));
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  // Mixed f16/bf16 arithmetic has no exact common type narrower than f32.
  if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
  // Nor has mixed fp8 arithmetic; f16 holds both formats exactly.
  if ((a == DType::F8E4M3 && b == DType::F8E5M2) || (a == DType::F8E5M2 && b == DType::F8E4M3)) return DType::F16;
  return dtype_info(a).promotion_rank > dtype_info(b).promotion_rank ? a : b;
}

Expr const_int(int64_t v, DType t, SourceLoc l) {
  if (is_float(t)) return const_float(double(v), t, std::move(l));
  return make<ConstNode>(std::move(l), Type{t}, v, double(v));
}

Expr const_float(double v, DType t, SourceLoc l) { return make<ConstNode>(std::move(l), Type{t}, int64_t(v), v); }

Expr binary(BinaryOp op, Expr a, Expr b, SourceLoc l) {
  Type t;
  if (is_comparison(op) || op == BinaryOp::And || op == BinaryOp::Or) {
    t = Type{DType::Bool};
  } else if (a->type.pointer) {
    t = a->type;  // pointer arithmetic keeps the pointer type
  } else {
    t = Type{promote(a->type.dtype, b->type.dtype)};
  }
  return make<BinaryNode>(std::move(l), t, op, std::move(a), std::move(b));
}

Expr unary(UnaryOp op, Expr a, SourceLoc l) {
  Type t = op == UnaryOp::Not ? Type{DType::Bool} : a->type;
  return make<UnaryNode>(std::move(l), t, op, std::move(a));
}

Expr select(Expr c, Expr a, Expr b, SourceLoc l) {
  if (a->type != b->type) {
    const DType t = promote(a->type.dtype, b->type.dtype);
    a = cast(t, a, l);
    b = cast(t, b, l);
  }
  return make<SelectNode>(std::move(l), std::move(c), std::move(a), std::move(b));
}

Expr cast(DType t, Expr a, SourceLoc l) {
  if (a->type == Type{t}) return a;
  return make<CastNode>(std::move(l), Type{t}, std::move(a));
}

Expr pointer_at(DType t, Expr address, int alignment, SourceLoc l) {
  return make<CastNode>(std::move(l), Type{t, true}, std::move(address), alignment);
}

Expr address_of(Expr pointer, SourceLoc l) {
  return make<CastNode>(std::move(l), Type{DType::U64}, std::move(pointer));
}

Var make_var(Type t, std::string name, SourceLoc l) { return make<VarNode>(std::move(l), t, std::move(name)); }

bool as_const_int(const Expr& e, int64_t* v) {
  if (e->kind != NodeKind::Const || is_float(e->type.dtype)) return false;
  *v = static_cast<const ConstNode&>(*e).i;
  return true;
}

int64_t SharedTensorNode::element_bit(int64_t index) const {
  const int bits = dtype_bits(dtype);
  return allocation()->chunks16 ? index / 16 * 128 + index % 16 * bits : index * bits;
}

int64_t SharedTensorNode::nbytes() const {
  int64_t bits = slot_bits();
  for (int s : shape) bits *= s;
  return (bits + 7) / 8;
}

int TMemoryTensorNode::allocated_columns() const {
  const int columns = shape[1] * dtype_bytes(dtype) / 4;
  int allocated = 32;
  while (allocated < columns) allocated *= 2;
  return allocated;
}

Stmt seq(std::vector<Stmt> stmts, SourceLoc l) { return make<SeqNode>(std::move(l), std::move(stmts)); }

std::string_view cache_hint_name(CacheHint h) {
  switch (h) {
    case CacheHint::Normal: return "normal";
    case CacheHint::EvictFirst: return "evict_first";
    case CacheHint::EvictLast: return "evict_last";
  }
  return "?";
}

std::string_view l1_hint_name(L1Hint h) {
  switch (h) {
    case L1Hint::Normal: return "normal";
    case L1Hint::NoAllocate: return "no_allocate";
    case L1Hint::EvictFirst: return "evict_first";
    case L1Hint::EvictLast: return "evict_last";
  }
  return "?";
}

std::string_view arch_name(Arch a) {
  switch (a) {
    case Arch::Sm80: return "sm_80";
    case Arch::Sm90a: return "sm_90a";
    case Arch::Sm100a: return "sm_100a";
  }
  return "?";
}

Arch parse_arch(std::string_view s) {
  for (Arch a : {Arch::Sm80, Arch::Sm90a, Arch::Sm100a})
    if (arch_name(a) == s) return a;
  throw Error(fmt::format("unknown target architecture '{}'; tessel targets sm_80, sm_90a and sm_100a", s));
}

Kernel with_body(const Kernel& k, Stmt body) {
  auto out = std::make_shared<KernelNode>(*k);
  out->body = std::move(body);
  return out;
}

}  // namespace tessel::ir
