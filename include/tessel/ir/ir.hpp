// The IR: immutable, reference-counted nodes. Scalar expressions and statements form trees;
// variables and tensors are objects whose identity is their address (never a name). Tensor
// nodes are built as values and never change once shared.
// The closed list of node kinds is ir/nodes.def.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tessel/dtype.hpp"
#include "tessel/error.hpp"
#include "tessel/layout/layout.hpp"

namespace tessel::ir {

// Compilation targets, oldest first.
enum class Arch : uint8_t { Sm80, Sm90a, Sm100a };
std::string_view arch_name(Arch a);   // "sm_80", ...
Arch parse_arch(std::string_view s);  // throws tessel::Error for unknown names

// Who must execute an instruction together (nodes.def): any single thread, whole warps, whole
// warpgroups (4 aligned warps), or every thread of the block.
enum class Executor : uint8_t { Thread, Warp, Warpgroup, Block };

enum class NodeKind : uint8_t {
// clang-format off
#define TESSEL_EXPR(Name) Name,
#define TESSEL_TENSOR(Name) Name,
#define TESSEL_STMT(Name) Name,
#define TESSEL_INSTR(Name, family, min_target, executor, call) Name,
#include "tessel/ir/nodes.def"
  // clang-format on
};
std::string_view kind_name(NodeKind k);
// How the user writes an instruction ("mbarrier.expect_tx", "tma.global_to_shared"), for messages;
// the kind's name for other nodes.
std::string_view call_name(NodeKind k);
bool is_instruction(NodeKind k);
// Whether instructions of kind `k` take tiles of packed types (i4, u4): those that move them
// (loads, stores, copies, bitcasts) and convert them. Every other use converts them first.
bool takes_packed_tiles(NodeKind k);
std::vector<NodeKind> all_kinds();
// The data nodes.def gives every instruction.
struct InstructionTraits {
  std::string_view family;
  Arch min_target;
  Executor executor;
};
const InstructionTraits& instruction_traits(NodeKind instruction);

template <class T> using Ref = std::shared_ptr<const T>;

// A contiguous range of a block's threads: the block itself, or a thread group in it.
struct ThreadRange {
  int begin = 0, count = 0;
  int end() const { return begin + count; }
  bool contains(int thread) const { return thread >= begin && thread < end(); }
  // Whether the range is made of whole warps (of whole warpgroups: 4 warps starting at a
  // multiple of 4), so that warp-collective instructions can run in it.
  bool whole_warps() const { return begin % 32 == 0 && count % 32 == 0; }
  bool whole_warpgroups() const { return begin % 128 == 0 && count % 128 == 0; }
  std::string str() const;  // "threads 32..63"
  bool operator==(const ThreadRange&) const = default;
};

// Every node kind declares its fields once, as members. `static constexpr auto operands()` lists, as
// member pointers in order, every expression, tensor and statement it holds: the mutator rewrites a
// node by copying it and replacing the operands that changed, so its other fields (the decisions
// of passes, such as a copy's vector width) carry over without being named, and the walks and
// operand queries are derived from the same list. Instructions that write variables (try_wait's
// flag) list them in `results()`. Nodes are shared as Ref<const T>: a field is only ever set on a
// copy that no one else holds yet.
// An operand that a node may leave null (an if_ without else, a TMA load that does not
// multicast): listed in operands() as optional(&Node::field). Every other operand is present in
// every node, which ir::make checks.
template <class M> struct OptionalOperand { M member; };
template <class M> constexpr OptionalOperand<M> optional(M member) { return {member}; }
template <class M> constexpr M member_of(M member) { return member; }
template <class M> constexpr M member_of(OptionalOperand<M> o) { return o.member; }

struct Node {
  Node(NodeKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
  virtual ~Node() = default;
  const NodeKind kind;
  const SourceLoc loc;
};

// A copy of `n` to set fields on before anyone else holds it: `auto c = copy_of(n); c->vector = 8;`.
// What the copy does not set carries over, so a pass sets its own decision and no other.
template <class N> std::shared_ptr<N> copy_of(const N& n) { return std::make_shared<N>(n); }

// ---- scalar types and expressions -------------------------------------------------------

struct Type {
  DType dtype = DType::I32;
  bool pointer = false;  // pointer to global memory holding `dtype` elements
  std::string str() const;
  bool operator==(const Type&) const = default;
};

struct ExprNode : Node {
  ExprNode(NodeKind k, SourceLoc l, Type t) : Node(k, std::move(l)), type(t) {}
  const Type type;
};
using Expr = Ref<ExprNode>;

struct ConstNode : ExprNode {
  ConstNode(SourceLoc l, Type t, int64_t i, double f) : ExprNode(NodeKind::Const, std::move(l), t), i(i), f(f) {}
  int64_t i;  // the value for integer and bool types
  double f;   // the value for float types
  static constexpr auto operands() { return std::tuple<>{}; }
};

// A kernel variable: a run-time parameter, a loop variable, or a declared variable.
struct VarNode : ExprNode {
  VarNode(SourceLoc l, Type t, std::string name) : ExprNode(NodeKind::Var, std::move(l), t), name(std::move(name)) {}
  std::string name;  // a display hint; the printer makes names unique
  static constexpr auto operands() { return std::tuple<>{}; }
};
using Var = Ref<VarNode>;

enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Min,
  Max,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or
};
std::string_view op_name(BinaryOp op);
bool is_comparison(BinaryOp op);
// &, |, ^, << and >>: integer operands only.
bool is_bitwise(BinaryOp op);

struct BinaryNode : ExprNode {
  BinaryNode(SourceLoc l, Type t, BinaryOp op, Expr a, Expr b)
      : ExprNode(NodeKind::Binary, std::move(l), t), op(op), a(std::move(a)), b(std::move(b)) {}
  BinaryOp op;
  Expr a, b;
  static constexpr auto operands() { return std::tuple{&BinaryNode::a, &BinaryNode::b}; }
};

enum class UnaryOp : uint8_t { Neg, Not, BitNot, Exp, Exp2, Log, Sqrt, Rsqrt, Abs, Log2, Tanh, Erf, Sigmoid };
std::string_view op_name(UnaryOp op);
// A math function of floating-point values (exp, tanh, ...).
bool is_transcendental(UnaryOp op);
// Whether the function has an approximate hardware form (ex2.approx, tanh.approx, ...) beside the
// exact one (docs/language.md, "Math functions").
bool has_fast_form(UnaryOp op);
enum class MathPrecision : uint8_t { Exact, Fast };
std::string_view precision_name(MathPrecision p);

struct UnaryNode : ExprNode {
  UnaryNode(SourceLoc l, Type t, UnaryOp op, Expr a)
      : ExprNode(NodeKind::Unary, std::move(l), t), op(op), a(std::move(a)) {}
  UnaryOp op;
  Expr a;
  static constexpr auto operands() { return std::tuple{&UnaryNode::a}; }
};

struct SelectNode : ExprNode {
  SelectNode(SourceLoc l, Expr c, Expr a, Expr b)
      : ExprNode(NodeKind::Select, std::move(l), a->type), cond(std::move(c)), a(std::move(a)), b(std::move(b)) {}
  Expr cond, a, b;
  static constexpr auto operands() { return std::tuple{&SelectNode::cond, &SelectNode::a, &SelectNode::b}; }
};

struct CastNode : ExprNode {
  CastNode(SourceLoc l, Type t, Expr a) : ExprNode(NodeKind::Cast, std::move(l), t), a(std::move(a)) {}
  Expr a;
  static constexpr auto operands() { return std::tuple{&CastNode::a}; }
};

// Multiprocessors: the number of SMs of the device the kernel runs on (the simulator's
// Options::multiprocessors), known on the host at launch; lowering makes it a derived parameter.
// The cluster values: the block's index in its cluster (%cluster_ctaid), the cluster's shape
// (%cluster_nctaid, KernelNode::cluster), the cluster's index in the grid (%clusterid) and the
// block's rank in its cluster (%cluster_ctarank: x fastest).
enum class BuiltinKind : uint8_t {
  BlockIdxX,
  BlockIdxY,
  BlockIdxZ,
  GridDimX,
  GridDimY,
  GridDimZ,
  Multiprocessors,
  ClusterBlockIdxX,
  ClusterBlockIdxY,
  ClusterBlockIdxZ,
  ClusterDimX,
  ClusterDimY,
  ClusterDimZ,
  ClusterIdxX,
  ClusterIdxY,
  ClusterIdxZ,
  ClusterBlockRank,
};
std::string_view builtin_name(BuiltinKind b);

// The value of a cluster builtin for the block at `block` of a kernel with clusters of `cluster`
// blocks; TESSEL_CHECK for the others.
int64_t cluster_builtin_value(BuiltinKind b, const std::array<int, 3>& block, const std::array<int, 3>& cluster);

struct BuiltinNode : ExprNode {
  BuiltinNode(SourceLoc l, BuiltinKind w) : ExprNode(NodeKind::Builtin, std::move(l), Type{DType::I32}), which(w) {}
  BuiltinKind which;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// Constructors that compute result types (usual arithmetic conversions, comparisons give bool).
Expr const_int(int64_t v, DType t = DType::I32, SourceLoc l = {});
Expr const_float(double v, DType t = DType::F32, SourceLoc l = {});
Expr binary(BinaryOp op, Expr a, Expr b, SourceLoc l = {});
Expr unary(UnaryOp op, Expr a, SourceLoc l = {});
Expr select(Expr c, Expr a, Expr b, SourceLoc l = {});
Expr cast(DType t, Expr a, SourceLoc l = {});
Var make_var(Type t, std::string name, SourceLoc l = {});
DType promote(DType a, DType b);
// The integer value of `e` if it is a constant.
bool as_const_int(const Expr& e, int64_t* v);

// ---- tensors -------------------------------------------------------------------------------

// A view of global memory: a pointer with run-time shape and strides (in elements).
struct GlobalTensorNode : Node {
  GlobalTensorNode(DType dtype, Expr ptr, std::vector<Expr> shape, std::vector<Expr> strides, std::string name,
                   SourceLoc loc)
      : Node(NodeKind::GlobalTensor, std::move(loc)),
        dtype(dtype),
        ptr(std::move(ptr)),
        shape(std::move(shape)),
        strides(std::move(strides)),
        name(std::move(name)) {}
  DType dtype;
  Expr ptr;
  std::vector<Expr> shape, strides;
  std::string name;
  int rank() const { return int(shape.size()); }
  static constexpr auto operands() {
    return std::tuple{&GlobalTensorNode::ptr, &GlobalTensorNode::shape, &GlobalTensorNode::strides};
  }
};
using GlobalTensor = Ref<GlobalTensorNode>;

inline constexpr int kSwizzleUndecided = -1;

// A tile of shared memory: either an allocation (root == nullptr) or a view into one,
// `offset` elements from the allocation's start.
struct SharedTensorNode : Node {
  SharedTensorNode(DType dtype, std::vector<int> shape, std::vector<int> strides, Ref<SharedTensorNode> root,
                   Expr offset, std::string name, SourceLoc loc, int swizzle_bits)
      : Node(NodeKind::SharedTensor, std::move(loc)),
        dtype(dtype),
        shape(std::move(shape)),
        strides(std::move(strides)),
        root(std::move(root)),
        offset(std::move(offset)),
        name(std::move(name)),
        swizzle_bits(swizzle_bits) {}
  DType dtype;
  std::vector<int> shape, strides;
  Ref<SharedTensorNode> root;
  Expr offset;
  std::string name;
  // The allocation's XOR swizzle (layout/shared_swizzle.hpp); 0: none; kSwizzleUndecided until
  // choose_swizzles decides it for a tile created without a Swizzle argument.
  int swizzle_bits = 0;
  // Which member of which helper-class instance the allocation is, for messages ("empty_barriers
  // of the Pipeline constructed at k.cpp:56"); empty when no instance owns it.
  std::string owner;
  int rank() const { return int(shape.size()); }
  int64_t nbytes() const;
  const SharedTensorNode* allocation() const { return root ? root.get() : this; }
  static constexpr auto operands() {
    return std::tuple{optional(&SharedTensorNode::root), optional(&SharedTensorNode::offset)};
  }
};
using SharedTensor = Ref<SharedTensorNode>;

// A tile held in registers, distributed over the `threads` threads of the thread group that
// created it by `layout`. The layout is empty (unresolved) from tracing until infer_layouts
// decides it, unless the user pinned it when creating the tile.
struct RegisterTensorNode : Node {
  RegisterTensorNode(DType dtype, std::vector<int> shape, int threads, Layout layout, std::string name, SourceLoc loc)
      : Node(NodeKind::RegisterTensor, std::move(loc)),
        dtype(dtype),
        tile_shape(std::move(shape)),
        threads(threads),
        layout(std::move(layout)),
        name(std::move(name)) {}
  DType dtype;
  std::vector<int> tile_shape;
  int threads;
  Layout layout;
  std::string name;
  const std::vector<int>& shape() const { return tile_shape; }
  int rank() const { return int(tile_shape.size()); }
  bool has_layout() const { return layout.rank() != 0; }
  static constexpr auto operands() { return std::tuple<>{}; }
};
using RegisterTensor = Ref<RegisterTensorNode>;

// A tile of the block's tensor memory (Blackwell): rows are TMEM lanes, and each element one 32-bit
// column. Either an allocation (root == nullptr), whose TMEM address tcgen05.alloc writes to the
// shared word `address`, or a view of one (tcgen05.slice) `lane_offset` lanes and
// `column_offset` columns into it.
struct TMemoryTensorNode : Node {
  TMemoryTensorNode(DType dtype, std::vector<int> shape, Ref<TMemoryTensorNode> root, int lane_offset,
                    Expr column_offset, Ref<SharedTensorNode> address, std::string name, SourceLoc loc,
                    int cta_group = 1)
      : Node(NodeKind::TMemoryTensor, std::move(loc)),
        dtype(dtype),
        shape(std::move(shape)),
        root(std::move(root)),
        lane_offset(lane_offset),
        column_offset(std::move(column_offset)),
        address(std::move(address)),
        name(std::move(name)),
        cta_group(cta_group) {}
  DType dtype;
  std::vector<int> shape;  // [lanes, columns]
  Ref<TMemoryTensorNode> root;
  int lane_offset = 0;
  Expr column_offset;             // null for an allocation
  Ref<SharedTensorNode> address;  // the allocation's u32 address word; null for a view
  std::string name;
  // 2 when the block and its pair peer (the block whose cluster rank differs in bit 0) allocate it
  // together, and a cta_group::2 mma writes both blocks' columns; a view's is its allocation's.
  int cta_group = 1;
  int rank() const { return int(shape.size()); }
  const TMemoryTensorNode* allocation() const { return root ? root.get() : this; }
  // The columns tcgen05.alloc reserves for an allocation: its columns rounded up to a power of
  // two, at least 32.
  int allocated_columns() const;
  static constexpr auto operands() {
    return std::tuple{optional(&TMemoryTensorNode::root), optional(&TMemoryTensorNode::column_offset),
                      optional(&TMemoryTensorNode::address)};
  }
};
using TMemoryTensor = Ref<TMemoryTensorNode>;

// ---- lowering decisions ---------------------------------------------------------------------

// How a warp moves tensor-core fragments between shared memory and registers, decided once by
// select_instructions and read by the code generator: ldmatrix into the A or B fragment layout
// of mma_layouts(), stmatrix from its C layout, or element by element (None).
enum class MatrixInstruction : uint8_t { None, LdmatrixA, LdmatrixB, Stmatrix };
struct MatrixAccess {
  MatrixInstruction instruction = MatrixInstruction::None;
  int warps_m = 0, warps_n = 0;  // the warp split of the fragment layout
  std::string str() const;       // "ldmatrix A over 2x2 warps"; empty for None
  bool operator==(const MatrixAccess&) const = default;
};

// ---- statements and instructions --------------------------------------------------------------

struct StmtNode : Node {
  using Node::Node;
  static constexpr auto results() { return std::tuple<>{}; }
};
using Stmt = Ref<StmtNode>;

struct SeqNode : StmtNode {
  SeqNode(SourceLoc l, std::vector<Stmt> s) : StmtNode(NodeKind::Seq, std::move(l)), stmts(std::move(s)) {}
  std::vector<Stmt> stmts;
  static constexpr auto operands() { return std::tuple{&SeqNode::stmts}; }
};
struct DeclareNode : StmtNode {
  DeclareNode(SourceLoc l, Var v, Expr init)
      : StmtNode(NodeKind::Declare, std::move(l)), var(std::move(v)), init(std::move(init)) {}
  Var var;
  Expr init;
  static constexpr auto operands() { return std::tuple{&DeclareNode::init}; }
};
struct AssignNode : StmtNode {
  AssignNode(SourceLoc l, Var v, Expr value)
      : StmtNode(NodeKind::Assign, std::move(l)), var(std::move(v)), value(std::move(value)) {}
  Var var;
  Expr value;
  static constexpr auto operands() { return std::tuple{&AssignNode::value}; }
};
struct ForNode : StmtNode {
  ForNode(SourceLoc l, Var v, Expr start, Expr stop, Expr step, int unroll, Stmt body)
      : StmtNode(NodeKind::For, std::move(l)),
        var(std::move(v)),
        start(std::move(start)),
        stop(std::move(stop)),
        step(std::move(step)),
        unroll(unroll),
        body(std::move(body)) {}
  Var var;
  Expr start, stop, step;
  int unroll;  // 0: no hint
  Stmt body;
  static constexpr auto operands() {
    return std::tuple{&ForNode::start, &ForNode::stop, &ForNode::step, &ForNode::body};
  }
};
struct IfNode : StmtNode {
  IfNode(SourceLoc l, Expr c, Stmt t, Stmt e)
      : StmtNode(NodeKind::If, std::move(l)), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  Expr cond;
  Stmt then_case, else_case;  // else_case may be null
  static constexpr auto operands() {
    return std::tuple{&IfNode::cond, &IfNode::then_case, optional(&IfNode::else_case)};
  }
};
struct WhileNode : StmtNode {
  WhileNode(SourceLoc l, Expr c, Stmt b)
      : StmtNode(NodeKind::While, std::move(l)), cond(std::move(c)), body(std::move(b)) {}
  Expr cond;
  Stmt body;
  static constexpr auto operands() { return std::tuple{&WhileNode::cond, &WhileNode::body}; }
};
// Threads [begin, begin + count) of the block run `body`; the others skip it.
struct ThreadGroupNode : StmtNode {
  ThreadGroupNode(SourceLoc l, int begin, int count, Stmt b)
      : StmtNode(NodeKind::ThreadGroup, std::move(l)), begin(begin), count(count), body(std::move(b)) {}
  int begin, count;
  Stmt body;
  static constexpr auto operands() { return std::tuple{&ThreadGroupNode::body}; }
};

// A barrier over the threads of the group it runs in (bar.sync): barrier 0 (__syncthreads) for
// the whole block; a named barrier for a thread group of whole warps, numbered per group by
// allocate_barriers (kUnallocated from tracing until then).
struct SyncNode : StmtNode {
  static constexpr int kUnallocated = -1;
  static constexpr int kBlockBarrier = 0;
  static constexpr int kBarriers = 16;  // per block (PTX ISA 9.7.13.1)
  explicit SyncNode(SourceLoc l, int barrier = kBlockBarrier)
      : StmtNode(NodeKind::Sync, std::move(l)), barrier(barrier) {}
  int barrier;
  static constexpr auto operands() { return std::tuple<>{}; }
};
struct AllocSharedNode : StmtNode {
  AllocSharedNode(SourceLoc l, SharedTensor t, int64_t offset = -1, int alignment = 0)
      : StmtNode(NodeKind::AllocShared, std::move(l)), tensor(std::move(t)), offset(offset), alignment(alignment) {}
  SharedTensor tensor;
  int64_t offset;  // bytes into the block's shared memory; -1 until planned
  int alignment;   // the planner's alignment of `offset`, in bytes; 0 until planned
  static constexpr auto operands() { return std::tuple{&AllocSharedNode::tensor}; }
};
struct AllocRegisterNode : StmtNode {
  AllocRegisterNode(SourceLoc l, RegisterTensor out, Expr init)
      : StmtNode(NodeKind::AllocRegister, std::move(l)), out(std::move(out)), init(std::move(init)) {}
  RegisterTensor out;
  Expr init;
  static constexpr auto operands() { return std::tuple{&AllocRegisterNode::out, &AllocRegisterNode::init}; }
};
// Elements outside the view's shape read as `fill`.
struct LoadGlobalNode : StmtNode {
  LoadGlobalNode(SourceLoc l, RegisterTensor out, GlobalTensor src, std::vector<Expr> offsets, double fill,
                 int vector = 0)
      : StmtNode(NodeKind::LoadGlobal, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        fill(fill),
        vector(vector) {}
  RegisterTensor out;
  GlobalTensor src;
  std::vector<Expr> offsets;
  double fill;
  int vector;  // elements per access (select_instructions); 0 until selected
  static constexpr auto operands() {
    return std::tuple{&LoadGlobalNode::out, &LoadGlobalNode::src, &LoadGlobalNode::offsets};
  }
};
// Elements outside the view's shape are not written.
struct StoreGlobalNode : StmtNode {
  StoreGlobalNode(SourceLoc l, GlobalTensor dst, RegisterTensor src, std::vector<Expr> offsets, int vector = 0)
      : StmtNode(NodeKind::StoreGlobal, std::move(l)),
        dst(std::move(dst)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        vector(vector) {}
  GlobalTensor dst;
  RegisterTensor src;
  std::vector<Expr> offsets;
  int vector;  // elements per access (select_instructions); 0 until selected
  static constexpr auto operands() {
    return std::tuple{&StoreGlobalNode::dst, &StoreGlobalNode::src, &StoreGlobalNode::offsets};
  }
};
struct LoadSharedNode : StmtNode {
  LoadSharedNode(SourceLoc l, RegisterTensor out, SharedTensor src, std::vector<Expr> offsets, MatrixAccess matrix = {})
      : StmtNode(NodeKind::LoadShared, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        matrix(matrix) {}
  RegisterTensor out;
  SharedTensor src;
  std::vector<Expr> offsets;
  MatrixAccess matrix;  // ldmatrix, when select_instructions chose it
  static constexpr auto operands() {
    return std::tuple{&LoadSharedNode::out, &LoadSharedNode::src, &LoadSharedNode::offsets};
  }
};
struct StoreSharedNode : StmtNode {
  StoreSharedNode(SourceLoc l, SharedTensor dst, RegisterTensor src, std::vector<Expr> offsets,
                  MatrixAccess matrix = {}, int vector = 0)
      : StmtNode(NodeKind::StoreShared, std::move(l)),
        dst(std::move(dst)),
        src(std::move(src)),
        offsets(std::move(offsets)),
        matrix(matrix),
        vector(vector) {}
  SharedTensor dst;
  RegisterTensor src;
  std::vector<Expr> offsets;
  MatrixAccess matrix;  // stmatrix, when select_instructions chose it
  int vector;           // elements per access otherwise; 0 until selected
  static constexpr auto operands() {
    return std::tuple{&StoreSharedNode::dst, &StoreSharedNode::src, &StoreSharedNode::offsets};
  }
};
// An elementwise operand: a register tile (broadcast along its extent-1 dimensions) or a scalar.
struct Operand {
  RegisterTensor tensor;
  Expr scalar;
  bool operator==(const Operand&) const = default;
  DType dtype() const { return tensor ? tensor->dtype : scalar->type.dtype; }
};
struct ElementwiseBinaryNode : StmtNode {
  ElementwiseBinaryNode(SourceLoc l, RegisterTensor out, BinaryOp op, Operand a, Operand b)
      : StmtNode(NodeKind::ElementwiseBinary, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        b(std::move(b)) {}
  RegisterTensor out;
  BinaryOp op;
  Operand a, b;
  static constexpr auto operands() {
    return std::tuple{&ElementwiseBinaryNode::out, &ElementwiseBinaryNode::a, &ElementwiseBinaryNode::b};
  }
};
struct ElementwiseUnaryNode : StmtNode {
  ElementwiseUnaryNode(SourceLoc l, RegisterTensor out, UnaryOp op, RegisterTensor a,
                       MathPrecision precision = MathPrecision::Exact)
      : StmtNode(NodeKind::ElementwiseUnary, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        precision(precision) {}
  RegisterTensor out;
  UnaryOp op;
  RegisterTensor a;
  MathPrecision precision;  // Fast only for functions that have_fast_form
  static constexpr auto operands() { return std::tuple{&ElementwiseUnaryNode::out, &ElementwiseUnaryNode::a}; }
};
struct WhereNode : StmtNode {
  WhereNode(SourceLoc l, RegisterTensor out, Operand c, Operand a, Operand b)
      : StmtNode(NodeKind::Where, std::move(l)),
        out(std::move(out)),
        cond(std::move(c)),
        a(std::move(a)),
        b(std::move(b)) {}
  RegisterTensor out;
  Operand cond, a, b;
  static constexpr auto operands() {
    return std::tuple{&WhereNode::out, &WhereNode::cond, &WhereNode::a, &WhereNode::b};
  }
};
// out = a * b + c, with a and b broadcast to the shape of c.
struct FmaNode : StmtNode {
  FmaNode(SourceLoc l, RegisterTensor out, Operand a, Operand b, RegisterTensor c)
      : StmtNode(NodeKind::Fma, std::move(l)), out(std::move(out)), a(std::move(a)), b(std::move(b)), c(std::move(c)) {}
  RegisterTensor out;
  Operand a, b;
  RegisterTensor c;
  static constexpr auto operands() { return std::tuple{&FmaNode::out, &FmaNode::a, &FmaNode::b, &FmaNode::c}; }
};
// out = a @ b + c on tensor cores (mma.sync): a [m, k] and b [k, n] in f16 or bf16 with c and out
// [m, n] in f32 (m16n8k16), or in i8 with c and out in i32 (m16n8k32); all in the layouts of
// mma_layouts(m, n, k, warps_m, warps_n, a's type). The warp split is 0x0 from tracing until
// infer_layouts chooses it.
struct DotNode : StmtNode {
  DotNode(SourceLoc l, RegisterTensor out, RegisterTensor a, RegisterTensor b, RegisterTensor c, int warps_m,
          int warps_n)
      : StmtNode(NodeKind::Dot, std::move(l)),
        out(std::move(out)),
        a(std::move(a)),
        b(std::move(b)),
        c(std::move(c)),
        warps_m(warps_m),
        warps_n(warps_n) {}
  RegisterTensor out, a, b, c;
  int warps_m, warps_n;
  static constexpr auto operands() { return std::tuple{&DotNode::out, &DotNode::a, &DotNode::b, &DotNode::c}; }
};
struct CastTensorNode : StmtNode {
  CastTensorNode(SourceLoc l, RegisterTensor out, RegisterTensor a)
      : StmtNode(NodeKind::CastTensor, std::move(l)), out(std::move(out)), a(std::move(a)) {}
  RegisterTensor out;
  RegisterTensor a;
  static constexpr auto operands() { return std::tuple{&CastTensorNode::out, &CastTensorNode::a}; }
};
enum class ReduceOp : uint8_t { Sum, Max, Min };
std::string_view op_name(ReduceOp op);
// A reduction whose dimension spans warps combines each warp's partial result through `scratch`, a
// shared allocation of [warps along dim, out's elements] that plan_reductions gives it, between
// two barriers of the thread group (`barrier`, numbered by allocate_barriers). Within a warp,
// `scratch` is null and the lanes combine with shuffles.
struct ReduceNode : StmtNode {
  static constexpr int kUnallocated = -1;
  ReduceNode(SourceLoc l, RegisterTensor out, ReduceOp op, RegisterTensor a, int dim)
      : StmtNode(NodeKind::Reduce, std::move(l)), out(std::move(out)), op(op), a(std::move(a)), dim(dim) {}
  RegisterTensor out;  // extent 1 along `dim`
  ReduceOp op;
  RegisterTensor a;
  int dim;
  SharedTensor scratch;
  int barrier = kUnallocated;
  static constexpr auto operands() {
    return std::tuple{&ReduceNode::out, &ReduceNode::a, optional(&ReduceNode::scratch)};
  }
};
// A prefix combination along `dim` (cumsum, cummax, cummin): out's element at position k combines
// a's elements at positions 0..k, or 0..k-1 when `exclusive` (the first being the operation's
// identity). a's layout must walk the dimension in scan order (Layout::scan_order); across warps
// the warps' totals go through `scratch` between two barriers, as a reduction's partials do.
struct ScanNode : StmtNode {
  ScanNode(SourceLoc l, RegisterTensor out, ReduceOp op, RegisterTensor a, int dim, bool exclusive)
      : StmtNode(NodeKind::Scan, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        dim(dim),
        exclusive(exclusive) {}
  RegisterTensor out;  // a's shape and layout
  ReduceOp op;
  RegisterTensor a;
  int dim;
  bool exclusive;
  SharedTensor scratch;
  int barrier = ReduceNode::kUnallocated;
  static constexpr auto operands() { return std::tuple{&ScanNode::out, &ScanNode::a, optional(&ScanNode::scratch)}; }
};
// out holds the bits of `a`, element by element, read as out's type of the same width.
struct BitcastTensorNode : StmtNode {
  BitcastTensorNode(SourceLoc l, RegisterTensor out, RegisterTensor a)
      : StmtNode(NodeKind::BitcastTensor, std::move(l)), out(std::move(out)), a(std::move(a)) {}
  RegisterTensor out;
  RegisterTensor a;
  static constexpr auto operands() { return std::tuple{&BitcastTensorNode::out, &BitcastTensorNode::a}; }
};
// arange: each element of `out` (i32) is its own coordinate along `dim`.
struct IotaNode : StmtNode {
  IotaNode(SourceLoc l, RegisterTensor out, int dim)
      : StmtNode(NodeKind::Iota, std::move(l)), out(std::move(out)), dim(dim) {}
  RegisterTensor out;
  int dim;
  static constexpr auto operands() { return std::tuple{&IotaNode::out}; }
};
// dst <- src: the assignment of a register tile to a mutable tile variable.
struct CopyRegisterNode : StmtNode {
  CopyRegisterNode(SourceLoc l, RegisterTensor dst, RegisterTensor src)
      : StmtNode(NodeKind::CopyRegister, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  RegisterTensor dst, src;
  static constexpr auto operands() { return std::tuple{&CopyRegisterNode::dst, &CopyRegisterNode::src}; }
};
// `out` holds the sub-tile of `src` at the constant `offsets`, of out's shape.
struct SliceRegisterNode : StmtNode {
  SliceRegisterNode(SourceLoc l, RegisterTensor out, RegisterTensor src, std::vector<int> offsets)
      : StmtNode(NodeKind::SliceRegister, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)) {}
  RegisterTensor out, src;
  std::vector<int> offsets;
  static constexpr auto operands() { return std::tuple{&SliceRegisterNode::out, &SliceRegisterNode::src}; }
};
// Tiles rearranged without moving data: every register of `out` is a register of `a` or `b` in the
// same thread, so the instruction is a renaming of registers (Layout::reshape, permute, and the
// compositions that concatenate and interleave).
enum class Regroup : uint8_t {
  Reshape,     // `a` with out's shape, elements in row-major order
  Permute,     // out dimension i is dimension dims[i] of `a`
  Concat,      // `a` then `b` along dimension dims[0]
  Interleave,  // `a` and `b` alternating along dimension dims[0]
};
std::string_view regroup_name(Regroup r);
struct RegroupRegistersNode : StmtNode {
  RegroupRegistersNode(SourceLoc l, RegisterTensor out, Regroup regroup, RegisterTensor a, RegisterTensor b,
                       std::vector<int> dims)
      : StmtNode(NodeKind::RegroupRegisters, std::move(l)),
        out(std::move(out)),
        regroup(regroup),
        a(std::move(a)),
        b(std::move(b)),
        dims(std::move(dims)) {}
  RegisterTensor out;
  Regroup regroup;
  RegisterTensor a, b;  // b: concat and interleave only
  std::vector<int> dims;
  // The operand (0 for a, 1 for b) and coordinates of the element at `out_coords`.
  std::pair<int, std::vector<int>> source(const std::vector<int>& out_coords) const;
  static constexpr auto operands() {
    return std::tuple{&RegroupRegistersNode::out, &RegroupRegistersNode::a, optional(&RegroupRegistersNode::b)};
  }
};
// For each register of n.out, the operand and register that hold its element (the same in every
// thread); throws tessel::Error at n's line when the layouts do not allow it.
std::vector<std::pair<int, int>> regroup_registers(const RegroupRegistersNode& n);

// Pins the layout of `tile` (annotate_layout); infer_layouts consumes it.
struct AnnotateLayoutNode : StmtNode {
  AnnotateLayoutNode(SourceLoc l, RegisterTensor t, Layout layout)
      : StmtNode(NodeKind::AnnotateLayout, std::move(l)), tile(std::move(t)), layout(std::move(layout)) {}
  RegisterTensor tile;
  Layout layout;
  static constexpr auto operands() { return std::tuple{&AnnotateLayoutNode::tile}; }
};
// Prints a register tile from one thread, in block `block` (docs/language.md, "Printing"): the
// threads of the group gather the tile in `scratch` (planned by plan_reductions, at the group's
// barrier), and the group's first thread prints it, row by row, the same text on the GPU and on
// the simulator.
struct PrintTensorNode : StmtNode {
  PrintTensorNode(SourceLoc l, std::string label, RegisterTensor t, std::array<int, 3> block)
      : StmtNode(NodeKind::PrintTensor, std::move(l)), label(std::move(label)), tensor(std::move(t)), block(block) {}
  std::string label;
  RegisterTensor tensor;
  std::array<int, 3> block;
  SharedTensor scratch;
  int barrier = ReduceNode::kUnallocated;
  static constexpr auto operands() { return std::tuple{&PrintTensorNode::tensor, optional(&PrintTensorNode::scratch)}; }
};
// The type a printed tile's elements are gathered in: their own, but i32 for the packed types.
DType printed_type(DType t);
// Prints kernel values from the first thread of the group, in block `block`: `format` with `{}`
// for each of `values`, in order, and a newline.
struct PrintValuesNode : StmtNode {
  PrintValuesNode(SourceLoc l, std::string format, std::vector<Expr> values, std::array<int, 3> block)
      : StmtNode(NodeKind::PrintValues, std::move(l)),
        format(std::move(format)),
        values(std::move(values)),
        block(block) {}
  std::string format;
  std::vector<Expr> values;
  std::array<int, 3> block;
  static constexpr auto operands() { return std::tuple{&PrintValuesNode::values}; }
};

// ---- atomics ----

// What an atomic does to the element it addresses: a read-modify-write (atom, or red when the old
// value is unused), or a load or store with a memory order (ld/st.relaxed, .acquire, .release).
enum class AtomicOp : uint8_t { Add, Min, Max, And, Or, Xor, Exchange, CompareExchange, Load, Store };
std::string_view atomic_op_name(AtomicOp op);  // "add", ..., "compare_exchange", "load", "store"
bool reads_memory(AtomicOp op);                // all but Store
bool writes_memory(AtomicOp op);               // all but Load
// The orders and scopes of the PTX memory model (PTX ISA, "Memory Consistency Model"): an acquire
// that reads what a release wrote (or a read-modify-write after it) orders the releasing thread's
// earlier accesses before the acquiring thread's later ones, when each operation's scope includes
// the other's thread.
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel };
enum class MemoryScope : uint8_t { Cta, Cluster, Gpu, Sys };
std::string_view memory_order_name(MemoryOrder o);  // "relaxed", "acquire", "release", "acq_rel"
std::string_view memory_scope_name(MemoryScope s);  // "cta", "cluster", "gpu", "sys"

// One thread's atomic on the element at `index` of `global` or of `shared` (one of them is null):
// `result` receives the old value (the value read, for Load); it is null for Store and for a
// read-modify-write whose old value is unused (red).
// Every lane of the warp reads `value` of another lane (PTX shfl.sync): of lane `lane` (Index,
// modulo 32), of its own index xor `lane` (Xor), of the lane `lane` below (Up) or above (Down). A
// lane whose source lies outside the warp keeps its own value. The value is a kernel scalar, whose
// lanes' values land in `result`, or a tile, each register of which moves so into `out`.
enum class ShuffleMode : uint8_t { Index, Xor, Up, Down };
std::string_view shuffle_name(ShuffleMode m);  // "shuffle", "shuffle_xor", ...
// The lane whose value lane `lane` of the warp receives, for the argument `arg`.
int shuffle_source(ShuffleMode m, int lane, int64_t arg);
struct ShuffleNode : StmtNode {
  ShuffleNode(SourceLoc l, Var result, RegisterTensor out, ShuffleMode mode, Operand value, Expr lane)
      : StmtNode(NodeKind::Shuffle, std::move(l)),
        result(std::move(result)),
        out(std::move(out)),
        mode(mode),
        value(std::move(value)),
        lane(std::move(lane)) {}
  Var result;          // a scalar's shuffle (else null)
  RegisterTensor out;  // a tile's shuffle (else null)
  ShuffleMode mode;
  Operand value;
  Expr lane;
  static constexpr auto operands() {
    return std::tuple{optional(&ShuffleNode::out), &ShuffleNode::value, &ShuffleNode::lane};
  }
  static constexpr auto results() { return std::tuple{&ShuffleNode::result}; }
};

// What the lanes of the warp say of `predicate` (PTX vote.sync): the u32 with bit i set where lane
// i's holds (Ballot), whether any lane's holds (Any), whether every lane's does (All).
enum class VoteMode : uint8_t { Ballot, Any, All };
std::string_view vote_name(VoteMode m);  // "ballot", "any", "all"
struct VoteNode : StmtNode {
  VoteNode(SourceLoc l, Var result, VoteMode mode, Expr predicate)
      : StmtNode(NodeKind::Vote, std::move(l)),
        result(std::move(result)),
        mode(mode),
        predicate(std::move(predicate)) {}
  Var result;
  VoteMode mode;
  Expr predicate;
  static constexpr auto operands() { return std::tuple{&VoteNode::predicate}; }
  static constexpr auto results() { return std::tuple{&VoteNode::result}; }
};

struct AtomicScalarNode : StmtNode {
  AtomicScalarNode(SourceLoc l, Var result, AtomicOp op, GlobalTensor global, SharedTensor shared,
                   std::vector<Expr> index, Expr value, Expr compare, MemoryOrder order, MemoryScope scope)
      : StmtNode(NodeKind::AtomicScalar, std::move(l)),
        result(std::move(result)),
        op(op),
        global(std::move(global)),
        shared(std::move(shared)),
        index(std::move(index)),
        value(std::move(value)),
        compare(std::move(compare)),
        order(order),
        scope(scope) {}
  Var result;
  AtomicOp op;
  GlobalTensor global;
  SharedTensor shared;
  std::vector<Expr> index;
  Expr value;    // null for Load
  Expr compare;  // CompareExchange: the value expected; `value` is stored when it is found
  MemoryOrder order;
  MemoryScope scope;
  static constexpr auto operands() {
    return std::tuple{optional(&AtomicScalarNode::global), optional(&AtomicScalarNode::shared),
                      &AtomicScalarNode::index, optional(&AtomicScalarNode::value),
                      optional(&AtomicScalarNode::compare)};
  }
  static constexpr auto results() { return std::tuple{&AtomicScalarNode::result}; }
};

// Every element of `value` combined into the element at its coordinates plus `offsets` of `global`
// or `shared` (one of them is null), each by one atomic; elements outside the view are skipped, and
// an element that several threads hold is combined once. `out` receives the old values (null: red).
struct AtomicTensorNode : StmtNode {
  AtomicTensorNode(SourceLoc l, RegisterTensor out, AtomicOp op, GlobalTensor global, SharedTensor shared,
                   std::vector<Expr> offsets, RegisterTensor value, RegisterTensor compare, MemoryOrder order,
                   MemoryScope scope)
      : StmtNode(NodeKind::AtomicTensor, std::move(l)),
        out(std::move(out)),
        op(op),
        global(std::move(global)),
        shared(std::move(shared)),
        offsets(std::move(offsets)),
        value(std::move(value)),
        compare(std::move(compare)),
        order(order),
        scope(scope) {}
  RegisterTensor out;
  AtomicOp op;
  GlobalTensor global;
  SharedTensor shared;
  std::vector<Expr> offsets;
  RegisterTensor value;
  RegisterTensor compare;  // CompareExchange only
  MemoryOrder order;
  MemoryScope scope;
  static constexpr auto operands() {
    return std::tuple{optional(&AtomicTensorNode::out),
                      optional(&AtomicTensorNode::global),
                      optional(&AtomicTensorNode::shared),
                      &AtomicTensorNode::offsets,
                      &AtomicTensorNode::value,
                      optional(&AtomicTensorNode::compare)};
  }
};

// cp.async: global -> shared without passing through registers, completing asynchronously.
// Each thread of the group copies the runs of `layout` it owns (chosen by select_instructions;
// empty until then); elements outside the view are zero-filled.
struct CopyAsyncNode : StmtNode {
  CopyAsyncNode(SourceLoc l, GlobalTensor src, SharedTensor dst, std::vector<Expr> offsets, Layout layout,
                int vector = 0)
      : StmtNode(NodeKind::CopyAsync, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        layout(std::move(layout)),
        vector(vector) {}
  GlobalTensor src;
  SharedTensor dst;
  std::vector<Expr> offsets;
  Layout layout;  // how the copy is split over the group's first layout.num_threads() threads
  // Elements per cp.async (4, 8 or 16 bytes), or 1 where runs are too short and the copy is
  // synchronous; 0 until selected.
  int vector;
  static constexpr auto operands() {
    return std::tuple{&CopyAsyncNode::src, &CopyAsyncNode::dst, &CopyAsyncNode::offsets};
  }
};
// Closes the thread's current group of cp.async operations.
struct CopyAsyncCommitNode : StmtNode {
  explicit CopyAsyncCommitNode(SourceLoc l) : StmtNode(NodeKind::CopyAsyncCommit, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the thread's committed groups are incomplete; `all` also
// commits and waits for everything (cp.async.wait_all).
struct CopyAsyncWaitNode : StmtNode {
  CopyAsyncWaitNode(SourceLoc l, int pending, bool all)
      : StmtNode(NodeKind::CopyAsyncWait, std::move(l)), pending(pending), all(all) {}
  int pending;
  bool all;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// wgmma (sm_90a only): warpgroup tensor-core instructions, run by whole warpgroups. A wgmma.mma
// is asynchronous: it reads its shared operands and its register operands at a time of the
// tensor core's choosing before the wait_group that retires its group.
//
// Orders the warpgroup's register accesses before the wgmma.mma that follow (wgmma.fence).
struct WgmmaFenceNode : StmtNode {
  explicit WgmmaFenceNode(SourceLoc l) : StmtNode(NodeKind::WgmmaFence, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// acc += a @ b with wgmma.mma_async m64nNk16 (f16/bf16 operands, f32 accumulator), N = acc's
// columns. `a` [m, k] is a shared tile with K-major rows (SS) or a register tile in the wgmma A
// fragment layout (RS); `b` [k, n] is the transposed view of a K-major [n, k] shared tile; `acc`
// [m, n] is in the wgmma accumulator layout over the group's warpgroups (wgmma_layouts()).
struct WgmmaMmaNode : StmtNode {
  WgmmaMmaNode(SourceLoc l, RegisterTensor acc, SharedTensor a_shared, RegisterTensor a_registers, SharedTensor b)
      : StmtNode(NodeKind::WgmmaMma, std::move(l)),
        acc(std::move(acc)),
        a_shared(std::move(a_shared)),
        a_registers(std::move(a_registers)),
        b(std::move(b)) {}
  RegisterTensor acc;
  SharedTensor a_shared;       // null in the RS form
  RegisterTensor a_registers;  // null in the SS form
  SharedTensor b;
  int m() const { return acc->shape()[0]; }
  int n() const { return acc->shape()[1]; }
  int k() const { return b->shape[0]; }
  DType operand_type() const { return b->dtype; }
  static constexpr auto operands() {
    return std::tuple{&WgmmaMmaNode::acc, optional(&WgmmaMmaNode::a_registers), optional(&WgmmaMmaNode::a_shared),
                      &WgmmaMmaNode::b};
  }
};
// Closes the warpgroup's group of wgmma.mma issued since the last commit.
struct WgmmaCommitGroupNode : StmtNode {
  explicit WgmmaCommitGroupNode(SourceLoc l) : StmtNode(NodeKind::WgmmaCommitGroup, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the warpgroup's committed wgmma groups are incomplete.
struct WgmmaWaitGroupNode : StmtNode {
  WgmmaWaitGroupNode(SourceLoc l, int pending) : StmtNode(NodeKind::WgmmaWaitGroup, std::move(l)), pending(pending) {}
  int pending;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// ---- mbarriers (PTX ISA 9.7.13.15) ----------------------------------------------------------
// An array of mbarriers is a shared allocation of u64 words, one per barrier. Every executing
// thread performs its own operation: 32 lanes arriving are 32 arrivals.

// One barrier of an array: `index` is a trace-time constant or a kernel value.
struct MbarrierRef {
  SharedTensor array;
  Expr index;
  bool operator==(const MbarrierRef&) const = default;
};
// Barrier i of `array` expects counts[i] arrivals per phase. On sm_90+ the inits are then made
// visible to the async proxy and the cluster (fence.mbarrier_init); a sync() must follow.
struct MbarrierInitNode : StmtNode {
  MbarrierInitNode(SourceLoc l, SharedTensor array, std::vector<int> counts)
      : StmtNode(NodeKind::MbarrierInit, std::move(l)), array(std::move(array)), counts(std::move(counts)) {}
  SharedTensor array;
  std::vector<int> counts;
  static constexpr auto operands() { return std::tuple{&MbarrierInitNode::array}; }
};
// `count` arrivals on the barrier's current phase (counts other than 1 need sm_90).
struct MbarrierArriveNode : StmtNode {
  MbarrierArriveNode(SourceLoc l, MbarrierRef b, Expr count)
      : StmtNode(NodeKind::MbarrierArrive, std::move(l)), barrier(std::move(b)), count(std::move(count)) {}
  MbarrierRef barrier;
  Expr count;
  static constexpr auto operands() { return std::tuple{&MbarrierArriveNode::barrier, &MbarrierArriveNode::count}; }
};
// Raises the phase's expected transaction bytes by `bytes`, then arrives once.
struct MbarrierArriveExpectTxNode : StmtNode {
  MbarrierArriveExpectTxNode(SourceLoc l, MbarrierRef b, Expr bytes)
      : StmtNode(NodeKind::MbarrierArriveExpectTx, std::move(l)), barrier(std::move(b)), bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr bytes;
  static constexpr auto operands() {
    return std::tuple{&MbarrierArriveExpectTxNode::barrier, &MbarrierArriveExpectTxNode::bytes};
  }
};
// Raises the phase's expected transaction bytes by `bytes`, without arriving.
struct MbarrierExpectTxNode : StmtNode {
  MbarrierExpectTxNode(SourceLoc l, MbarrierRef b, Expr bytes)
      : StmtNode(NodeKind::MbarrierExpectTx, std::move(l)), barrier(std::move(b)), bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr bytes;
  static constexpr auto operands() { return std::tuple{&MbarrierExpectTxNode::barrier, &MbarrierExpectTxNode::bytes}; }
};
// What a successful wait orders (acquire: the accesses that preceded the phase's arrivals and
// transactions are visible after it; relaxed: nothing), and among which threads (the block's or
// the cluster's). Anything but acquire at CTA scope needs sm_90.
enum class WaitSemantics : uint8_t { Acquire, Relaxed };
enum class WaitScope : uint8_t { Cta, Cluster };
std::string_view wait_semantics_name(WaitSemantics s);  // "acquire", "relaxed"
std::string_view wait_scope_name(WaitScope s);          // "cta", "cluster"
// Blocks until the phase of parity `parity` completed: (completed phases & 1) != parity.
struct MbarrierWaitNode : StmtNode {
  MbarrierWaitNode(SourceLoc l, MbarrierRef b, Expr parity, WaitSemantics sem = WaitSemantics::Acquire,
                   WaitScope scope = WaitScope::Cta)
      : StmtNode(NodeKind::MbarrierWait, std::move(l)),
        barrier(std::move(b)),
        parity(std::move(parity)),
        sem(sem),
        scope(scope) {}
  MbarrierRef barrier;
  Expr parity;
  WaitSemantics sem;
  WaitScope scope;
  static constexpr auto operands() { return std::tuple{&MbarrierWaitNode::barrier, &MbarrierWaitNode::parity}; }
};
// ready = whether the phase of parity `parity` completed, after waiting a bounded time at most
// (it may read false before the phase completes, so callers loop).
struct MbarrierTryWaitNode : StmtNode {
  MbarrierTryWaitNode(SourceLoc l, Var ready, MbarrierRef b, Expr parity, WaitSemantics sem = WaitSemantics::Acquire,
                      WaitScope scope = WaitScope::Cta)
      : StmtNode(NodeKind::MbarrierTryWait, std::move(l)),
        ready(std::move(ready)),
        barrier(std::move(b)),
        parity(std::move(parity)),
        sem(sem),
        scope(scope) {}
  Var ready;  // a declared bool variable
  MbarrierRef barrier;
  Expr parity;
  WaitSemantics sem;
  WaitScope scope;
  static constexpr auto operands() { return std::tuple{&MbarrierTryWaitNode::barrier, &MbarrierTryWaitNode::parity}; }
  static constexpr auto results() { return std::tuple{&MbarrierTryWaitNode::ready}; }
};

// An arrival on the barrier at the same shared offset as `barrier` in the block of rank `rank` of
// the cluster (mapa, then mbarrier.arrive.release.cluster.shared::cluster): `count` arrivals, or,
// with `bytes`, a raise of the phase's expected transaction bytes then one arrival.
struct MbarrierRemoteArriveNode : StmtNode {
  MbarrierRemoteArriveNode(SourceLoc l, MbarrierRef b, Expr rank, Expr count, Expr bytes)
      : StmtNode(NodeKind::MbarrierRemoteArrive, std::move(l)),
        barrier(std::move(b)),
        rank(std::move(rank)),
        count(std::move(count)),
        bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr rank;
  Expr count;  // null with bytes
  Expr bytes;  // null for plain arrivals
  static constexpr auto operands() {
    return std::tuple{&MbarrierRemoteArriveNode::barrier, &MbarrierRemoteArriveNode::rank,
                      optional(&MbarrierRemoteArriveNode::count), optional(&MbarrierRemoteArriveNode::bytes)};
  }
};

// fence.proxy.async: orders this thread's generic-proxy accesses before its later async-proxy
// accesses (TMA, wgmma operands) of the state space, or of every space.
enum class ProxyFenceSpace : uint8_t { SharedCta, SharedCluster, Global, All };
std::string_view proxy_fence_space_name(ProxyFenceSpace s);  // "shared::cta", ...; "" for All
struct FenceProxyAsyncNode : StmtNode {
  FenceProxyAsyncNode(SourceLoc l, ProxyFenceSpace space)
      : StmtNode(NodeKind::FenceProxyAsync, std::move(l)), space(space) {}
  ProxyFenceSpace space;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// TMA (cp.async.bulk.tensor) instructions are issued by the first thread of the thread group that
// runs them; the others skip them. Their bulk groups are that thread's.

// global <- shared through a tensor map: writes the tile `src` as the box at `offsets` of `dst`.
// The tile's dimensions are `dims` of the view (increasing); the box has extent 1 in the others.
// Elements outside the view are not written. The TMA engine reads `src` at any time until a
// wait_group(read) retires the store's bulk group.
struct TmaStoreNode : StmtNode {
  TmaStoreNode(SourceLoc l, SharedTensor src, GlobalTensor dst, std::vector<Expr> offsets, std::vector<int> dims,
               int tensor_map = -1)
      : StmtNode(NodeKind::TmaStore, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        dims(std::move(dims)),
        tensor_map(tensor_map) {}
  SharedTensor src;
  GlobalTensor dst;
  std::vector<Expr> offsets;  // one per dimension of dst
  std::vector<int> dims;      // one per dimension of src
  int tensor_map;             // index into KernelNode::tensor_maps; -1 until plan_tensor_maps
  static constexpr auto operands() {
    return std::tuple{&TmaStoreNode::src, &TmaStoreNode::dst, &TmaStoreNode::offsets};
  }
};
// shared <- global through a tensor map: the box at `offsets` of `src` lands in the tile `dst` as
// its image (elements outside the view read as zero) and completes its bytes on `barrier`
// (complete-tx). The tile's dimensions are `dims` of the view, as for stores. Until the barrier's
// phase completes, the tile's bytes belong to the TMA engine. With a `cta_mask` (multicast,
// .multicast::cluster), the box lands at the tile's offset in every block of the cluster whose rank
// bit is set, and completes its bytes on each one's barrier at `barrier`'s offset.
struct TmaLoadNode : StmtNode {
  TmaLoadNode(SourceLoc l, GlobalTensor src, SharedTensor dst, std::vector<Expr> offsets, std::vector<int> dims,
              MbarrierRef barrier, int tensor_map = -1, Expr cta_mask = nullptr, Expr barrier_rank = nullptr)
      : StmtNode(NodeKind::TmaLoad, std::move(l)),
        src(std::move(src)),
        dst(std::move(dst)),
        offsets(std::move(offsets)),
        dims(std::move(dims)),
        barrier(std::move(barrier)),
        tensor_map(tensor_map),
        cta_mask(std::move(cta_mask)),
        barrier_rank(std::move(barrier_rank)) {}
  GlobalTensor src;
  SharedTensor dst;
  std::vector<Expr> offsets;  // one per dimension of src
  std::vector<int> dims;      // one per dimension of dst
  MbarrierRef barrier;
  int tensor_map;  // index into KernelNode::tensor_maps; -1 until plan_tensor_maps
  Expr cta_mask;   // bit r: cluster rank r receives the box; null: this block only
  // The cluster rank of the block of this block's pair whose barrier the bytes complete on
  // (cta_group::2, sm_100a); null: the receiving block's own.
  Expr barrier_rank;
  static constexpr auto operands() {
    return std::tuple{&TmaLoadNode::src,
                      &TmaLoadNode::dst,
                      &TmaLoadNode::offsets,
                      &TmaLoadNode::barrier,
                      optional(&TmaLoadNode::cta_mask),
                      optional(&TmaLoadNode::barrier_rank)};
  }
};
// Closes the issuing thread's current bulk group of TMA stores (cp.async.bulk.commit_group).
struct TmaCommitNode : StmtNode {
  explicit TmaCommitNode(SourceLoc l) : StmtNode(NodeKind::TmaCommit, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};
// Waits until at most `pending` of the issuing thread's bulk groups are incomplete: with `read`,
// until their reads of shared memory are done (the source may be overwritten); without, until
// their writes to global memory are done too.
struct TmaWaitNode : StmtNode {
  TmaWaitNode(SourceLoc l, int pending, bool read)
      : StmtNode(NodeKind::TmaWait, std::move(l)), pending(pending), read(read) {}
  int pending;
  bool read;
  static constexpr auto operands() { return std::tuple<>{}; }
};

// ---- clusters --------------------------------------------------------------------------------

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of the cluster that has
// not exited arrives, then waits for the others; the accesses before it are visible to all after.
struct ClusterSyncNode : StmtNode {
  explicit ClusterSyncNode(SourceLoc l) : StmtNode(NodeKind::ClusterSync, std::move(l)) {}
  static constexpr auto operands() { return std::tuple<>{}; }
};

// ---- cluster launch control (PTX ISA 9.7.13.17-18, sm_100a) ----------------------------------

// The bytes of a try_cancel response in shared memory (16, naturally aligned).
inline constexpr int kClcResponseBytes = 16;

// clusterlaunchcontrol.try_cancel, issued by the first thread of the group that runs it: asks to
// cancel the launch of one cluster of the grid that has not started. The answer lands in
// `response` (a 16-byte shared tile) at a time of the hardware's choosing and completes its 16
// bytes on `barrier` (complete-tx).
struct ClcTryCancelNode : StmtNode {
  ClcTryCancelNode(SourceLoc l, SharedTensor response, MbarrierRef barrier, bool multicast = false)
      : StmtNode(NodeKind::ClcTryCancel, std::move(l)),
        response(std::move(response)),
        barrier(std::move(barrier)),
        multicast(multicast) {}
  SharedTensor response;
  MbarrierRef barrier;
  // The response lands at the same offset in every block of the cluster, each completing the bytes
  // on its barrier at `barrier`'s offset.
  bool multicast;
  static constexpr auto operands() { return std::tuple{&ClcTryCancelNode::response, &ClcTryCancelNode::barrier}; }
};
// Reads the response in `response`: whether a cluster was cancelled, and the index of its first
// block (undefined when none was), into the declared variables (bool, then i32 x, y, z).
struct ClcQueryNode : StmtNode {
  ClcQueryNode(SourceLoc l, Var canceled, Var x, Var y, Var z, SharedTensor response)
      : StmtNode(NodeKind::ClcQuery, std::move(l)),
        canceled(std::move(canceled)),
        x(std::move(x)),
        y(std::move(y)),
        z(std::move(z)),
        response(std::move(response)) {}
  Var canceled, x, y, z;
  SharedTensor response;
  static constexpr auto operands() { return std::tuple{&ClcQueryNode::response}; }
  static constexpr auto results() {
    return std::tuple{&ClcQueryNode::canceled, &ClcQueryNode::x, &ClcQueryNode::y, &ClcQueryNode::z};
  }
};

// setmaxnreg.inc / .dec (sm_90a): each warpgroup running it changes its warps' register count to
// `registers` per thread (a multiple of 8 in 24..256).
struct SetMaxNRegNode : StmtNode {
  SetMaxNRegNode(SourceLoc l, bool increase, int registers)
      : StmtNode(NodeKind::SetMaxNReg, std::move(l)), increase(increase), registers(registers) {}
  bool increase;
  int registers;
  static constexpr auto operands() { return std::tuple<>{}; }
};
// quotient, remainder = x / divisor, x % divisor (both variables declared before, of x's type, i32
// or u32) for a divisor that is the same for the whole grid. Traced with the divisor as an
// expression of the kernel's parameters; plan_fast_divmods makes it a parameter the launch
// computes, with its magic numbers (ir/fast_divmod.hpp) in `multiplier` and `log2`.
struct FastDivmodNode : StmtNode {
  FastDivmodNode(SourceLoc l, Var quotient, Var remainder, Expr x, Expr divisor, Expr multiplier = nullptr,
                 Expr log2 = nullptr)
      : StmtNode(NodeKind::FastDivmod, std::move(l)),
        quotient(std::move(quotient)),
        remainder(std::move(remainder)),
        x(std::move(x)),
        divisor(std::move(divisor)),
        multiplier(std::move(multiplier)),
        log2(std::move(log2)) {}
  Var quotient, remainder;
  Expr x, divisor;
  Expr multiplier, log2;  // null until planned
  bool planned() const { return multiplier != nullptr; }
  static constexpr auto operands() {
    return std::tuple{&FastDivmodNode::x, &FastDivmodNode::divisor, optional(&FastDivmodNode::multiplier),
                      optional(&FastDivmodNode::log2)};
  }
  static constexpr auto results() { return std::tuple{&FastDivmodNode::quotient, &FastDivmodNode::remainder}; }
};

// ---- tcgen05 (sm_100a): tensor memory and the fifth-generation tensor core -------------------
// All of a kernel's use one CTA group (KernelNode::tcgen05_cta_group): 1, the block's own tensor
// memory and tensor core, or 2, the block pairs of a cluster (PTX ISA 9.7.16.7.1).

// tcgen05.alloc by one warp: reserves the allocation's columns (blocking until they are free),
// writes their TMEM address to the allocation's shared word, and, when `relinquish` (the
// kernel's last allocation), gives up the block's permit to allocate again. The
// fence::before_thread_sync that publishes the address follows; the block's sync() comes next.
struct Tcgen05AllocNode : StmtNode {
  Tcgen05AllocNode(SourceLoc l, TMemoryTensor t, bool relinquish = false)
      : StmtNode(NodeKind::Tcgen05Alloc, std::move(l)), tensor(std::move(t)), relinquish(relinquish) {}
  TMemoryTensor tensor;  // an allocation
  bool relinquish;       // set by plan_tensor_memory
  static constexpr auto operands() { return std::tuple{&Tcgen05AllocNode::tensor}; }
};
// tcgen05.dealloc by one warp: frees the allocation's columns.
struct Tcgen05DeallocNode : StmtNode {
  Tcgen05DeallocNode(SourceLoc l, TMemoryTensor t)
      : StmtNode(NodeKind::Tcgen05Dealloc, std::move(l)), tensor(std::move(t)) {}
  TMemoryTensor tensor;  // an allocation
  static constexpr auto operands() { return std::tuple{&Tcgen05DeallocNode::tensor}; }
};
// acc = a @ b (+ acc when enable_input_d) by one thread of the warp, asynchronously: a [m, k]
// and b [k, n] are K-major shared tiles (b the transpose of an [n, k] tile) read through matrix
// descriptors, acc [m, n] is in tensor memory. One instruction per 32 bytes of k.
// With a pair accumulator (cta_group 2), issued by the pair's even block: the mma is [2 m, k] @
// [k, n]; block v of the pair holds rows v m ... of a and columns v n / 2 ... of b at the same
// shared offsets (b is [k, n / 2] in each), and receives rows v m ... of the result in its own
// tensor memory at acc's columns.
struct Tcgen05MmaNode : StmtNode {
  Tcgen05MmaNode(SourceLoc l, TMemoryTensor acc, SharedTensor a, SharedTensor b, Expr enable_input_d)
      : StmtNode(NodeKind::Tcgen05Mma, std::move(l)),
        acc(std::move(acc)),
        a(std::move(a)),
        b(std::move(b)),
        enable_input_d(std::move(enable_input_d)) {}
  TMemoryTensor acc;
  SharedTensor a, b;
  Expr enable_input_d;  // bool
  int cta_group() const { return acc->allocation()->cta_group; }
  int m() const { return acc->shape[0] * cta_group(); }  // the instruction's M
  int n() const { return acc->shape[1]; }
  int k() const { return a->shape[1]; }
  DType operand_type() const { return a->dtype; }
  static constexpr auto operands() {
    return std::tuple{&Tcgen05MmaNode::acc, &Tcgen05MmaNode::a, &Tcgen05MmaNode::b, &Tcgen05MmaNode::enable_input_d};
  }
};
// tcgen05.commit by the thread that issued the mma (or copy): one arrival on `barrier` once every
// tcgen05 operation that thread issued before has completed; with a `cta_mask` (multicast), on the
// barrier at the same offset in every block of the cluster whose rank bit is set.
struct Tcgen05CommitNode : StmtNode {
  Tcgen05CommitNode(SourceLoc l, MbarrierRef b, Expr cta_mask = nullptr)
      : StmtNode(NodeKind::Tcgen05Commit, std::move(l)), barrier(std::move(b)), cta_mask(std::move(cta_mask)) {}
  MbarrierRef barrier;
  Expr cta_mask;  // bit r: cluster rank r's barrier receives the arrival; null: this block's
  static constexpr auto operands() {
    return std::tuple{&Tcgen05CommitNode::barrier, optional(&Tcgen05CommitNode::cta_mask)};
  }
};
// dst <- src by one thread of the warp, asynchronously, with tcgen05.cp 128x256b: src [128, c] is a
// shared tile of 32-bit elements with rows of one swizzle span (c = 8, 16 or 32), read through
// matrix descriptors 8 columns (32 bytes) per instruction; dst [128, c] is in tensor memory at
// lane 0. Ordered before the issuing thread's later mma; a commit observes its completion.
struct Tcgen05CopyNode : StmtNode {
  Tcgen05CopyNode(SourceLoc l, TMemoryTensor dst, SharedTensor src)
      : StmtNode(NodeKind::Tcgen05Copy, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  TMemoryTensor dst;
  SharedTensor src;
  static constexpr auto operands() { return std::tuple{&Tcgen05CopyNode::dst, &Tcgen05CopyNode::src}; }
};
// out <- src with tcgen05.ld 32x32b, then tcgen05.wait::ld: warp w of the group reads lanes
// 32 (w mod 4) ... + 31; thread l of it holds row 32 (w mod 4) + l - src's first lane, every
// column (tcgen05_layout()).
struct Tcgen05LoadNode : StmtNode {
  Tcgen05LoadNode(SourceLoc l, RegisterTensor out, TMemoryTensor src)
      : StmtNode(NodeKind::Tcgen05Load, std::move(l)), out(std::move(out)), src(std::move(src)) {}
  RegisterTensor out;
  TMemoryTensor src;
  static constexpr auto operands() { return std::tuple{&Tcgen05LoadNode::out, &Tcgen05LoadNode::src}; }
};
// dst <- src with tcgen05.st 32x32b, then tcgen05.wait::st; the same lanes and layout as loads.
struct Tcgen05StoreNode : StmtNode {
  Tcgen05StoreNode(SourceLoc l, TMemoryTensor dst, RegisterTensor src)
      : StmtNode(NodeKind::Tcgen05Store, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  TMemoryTensor dst;
  RegisterTensor src;
  static constexpr auto operands() { return std::tuple{&Tcgen05StoreNode::dst, &Tcgen05StoreNode::src}; }
};
// tcgen05.wait::ld (or ::st) by each warp, then tcgen05.fence::before_thread_sync, so that a
// sync() or arrival that follows orders the warp's tensor-memory accesses before what other
// threads do next (freeing or overwriting the columns).
struct Tcgen05WaitNode : StmtNode {
  Tcgen05WaitNode(SourceLoc l, bool store) : StmtNode(NodeKind::Tcgen05Wait, std::move(l)), store(store) {}
  bool store;  // wait_store; otherwise wait_load
  static constexpr auto operands() { return std::tuple<>{}; }
};

Stmt seq(std::vector<Stmt> stmts, SourceLoc l = {});

// ---- kernels -------------------------------------------------------------------------------

// A tensor map (CUtensorMap): a global view, whose address, shape and strides are evaluated on the
// host at launch, cut into boxes of a shared tile's shape and swizzle. plan_tensor_maps collects
// one per distinct (view, box, swizzle) of the kernel's TMA instructions; each becomes a
// `__grid_constant__` parameter after the kernel's own (tessel/ir/tensor_map.hpp).
struct TensorMap {
  GlobalTensor view;
  std::vector<int> box;  // extent per dimension of the view, outermost first
  int swizzle_bits = 0;  // the tile's swizzle (layout/shared_swizzle.hpp): 0 none, 1, 2, 3: 32, 64, 128 B
  SourceLoc loc;         // the first instruction that uses it
  bool operator==(const TensorMap&) const = default;
};

// A kernel parameter that the launch computes instead of taking it from the call: a grid-constant
// fast_divmod divisor and its magic numbers, or the device's number of multiprocessors.
enum class DerivedValue : uint8_t { Divisor, Multiplier, Log2, Multiprocessors };
struct DerivedParam {
  Var param;
  DerivedValue value;
  Expr divisor;   // over the call's parameters; null for Multiprocessors
  SourceLoc loc;  // the fast_divmod that divides by it, or the first use of multiprocessors
};

struct KernelNode {
  std::string name;
  std::vector<Var> params;  // the call's, then the derived ones
  std::vector<DerivedParam> derived_params;
  std::vector<Expr> blocks;                // grid extents, 1 to 3, over the parameters
  SourceLoc blocks_loc;                    // where attrs.blocks was set
  std::array<int, 3> cluster = {1, 1, 1};  // blocks per cluster (attrs.cluster); 1 x 1 x 1: no clusters
  int warps = 0;
  Stmt body;
  int64_t shared_bytes = -1;           // set by the shared-memory planner
  std::vector<TensorMap> tensor_maps;  // set by plan_tensor_maps
  int tcgen05_cta_group = 1;           // set by plan_tensor_memory: the CTA group of every tcgen05 instruction
  // What the launch knows about the call's parameters (the specialization of a variant): the value
  // of parameter i (a pointer's address, in bytes) is a multiple of param_divisors[i], a power of
  // two. Missing entries and 1: nothing known.
  std::vector<int64_t> param_divisors;
  SourceLoc loc;
  int threads() const { return warps * 32; }
  size_t call_params() const { return params.size() - derived_params.size(); }
  bool clustered() const { return cluster != std::array<int, 3>{1, 1, 1}; }
  int cluster_blocks() const { return cluster[0] * cluster[1] * cluster[2]; }
  int64_t param_divisor(size_t i) const { return i < param_divisors.size() ? param_divisors[i] : 1; }
};
using Kernel = Ref<KernelNode>;

Kernel with_body(const Kernel& k, Stmt body);

// ---- making nodes ------------------------------------------------------------------------

namespace detail {

template <class T> bool present(const Ref<T>& x) { return x != nullptr; }
template <class T> bool present(const std::vector<T>& xs) {
  for (const T& x : xs)
    if (!present(x)) return false;
  return true;
}
inline bool present(const Operand& o) { return (o.tensor != nullptr) != (o.scalar != nullptr); }
inline bool present(const MbarrierRef& b) { return b.array && b.index; }

}  // namespace detail

// Every node is made here: the node, once its required operands (all those operands() does not
// mark optional) are checked to be present, so a node missing one fails where it is made rather
// than where a later layer reads it.
template <class N, class... A> std::shared_ptr<N> make(A&&... args) {
  auto n = std::make_shared<N>(std::forward<A>(args)...);
  int index = 0;
  const auto check = [&](auto field) {
    if constexpr (std::is_same_v<decltype(field), decltype(member_of(field))>)
      TESSEL_CHECK(detail::present((*n).*field), "{} made at {} without its operand {}", kind_name(n->kind),
                   n->loc.str(), index);
    ++index;
  };
  std::apply([&](auto... field) { (check(field), ...); }, N::operands());
  return n;
}

}  // namespace tessel::ir
