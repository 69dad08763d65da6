// The IR's core: immutable, reference-counted nodes. Scalar expressions and statements form
// trees; variables and tensors are objects whose identity is their address (never a name). Tensor
// nodes are built as values and never change once shared. The closed list of node kinds is
// ir/nodes.def; the instructions' nodes are in tessel/ir/instructions/<family>.hpp, and
// tessel/ir/ir.hpp includes them all.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
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
// Whether instructions of kind `k` take tf32 tiles: those that take packed tiles, and the other
// copies and tensor-core instructions. Every other use converts them to f32 first.
bool takes_tf32_tiles(NodeKind k);
// Whether instructions of kind `k` take e8m0 tiles: those that move and convert whole bytes. Every
// other use converts them to f32 first.
bool takes_e8m0_tiles(NodeKind k);
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

enum class UnaryOp : uint8_t { Neg, Not, BitNot, Exp, Exp2, Log, Sqrt, Rsqrt, Abs, Log2, Tanh, Erf, Sigmoid, Sin, Cos };
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

// A conversion of a value to another type; between a pointer and its 64-bit address, the same
// bits. A pointer made from an address carries the alignment in bytes that its author promises.
struct CastNode : ExprNode {
  CastNode(SourceLoc l, Type t, Expr a, int alignment = 0)
      : ExprNode(NodeKind::Cast, std::move(l), t), a(std::move(a)), alignment(alignment) {}
  Expr a;
  int alignment;  // a pointer made from an address: its promised alignment; 0 otherwise
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
  // The thread's index in the block (threadIdx.x): the one builtin that differs between threads.
  ThreadIdxX,
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
// A pointer to `t` elements at a 64-bit `address` that the kernel computed or loaded, aligned to
// `alignment` bytes (a power of two, at least an element), and a pointer's address as a u64.
Expr pointer_at(DType t, Expr address, int alignment, SourceLoc l = {});
Expr address_of(Expr pointer, SourceLoc l = {});
Var make_var(Type t, std::string name, SourceLoc l = {});
DType promote(DType a, DType b);
// The integer value of `e` if it is a constant.
bool as_const_int(const Expr& e, int64_t* v);

// ---- tensors -------------------------------------------------------------------------------

// Which lines L2 evicts first among those that accesses of a global view bring in (PTX
// createpolicy.fractional and .L2::cache_hint): a hint, which changes no value read or written.
enum class CacheHint : uint8_t { Normal, EvictFirst, EvictLast };
std::string_view cache_hint_name(CacheHint h);  // "normal", "evict_first", "evict_last"

// Whether L1 keeps the lines that a view's loads and stores bring in, and which it evicts first
// (PTX .L1::no_allocate, .L1::evict_first, .L1::evict_last): a hint, like CacheHint.
enum class L1Hint : uint8_t { Normal, NoAllocate, EvictFirst, EvictLast };
std::string_view l1_hint_name(L1Hint h);  // "normal", "no_allocate", "evict_first", "evict_last"

// A view of global memory: a pointer with run-time shape and strides (in elements). Its loads and
// stores carry its cache hints, its TMA copies the L2 one; atomics and cp.async through a hinted
// view are refused. A read-only view's loads go through the non-coherent cache (ld.global.nc), so
// nothing may write its bytes while the kernel runs: writes through it are refused.
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
  CacheHint cache_hint = CacheHint::Normal;
  L1Hint l1_hint = L1Hint::Normal;
  std::optional<SourceLoc> read_only;  // where the view was made read-only, if it was
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
  // Packed elements 16 to a 16-byte chunk, at its start (fp4: 8 bytes, fp6: 12) and the rest padding:
  // the layout in which tcgen05.mma kind::f8f6f4 reads fp6 and fp4 operands (PTX ISA 9.7.16.10.4.4).
  // Each element then takes one byte of the tile's rows. Set on allocations; views follow theirs.
  bool chunks16 = false;
  int rank() const { return int(shape.size()); }
  // The bits an element takes in the tile's rows: its width, or one byte in chunks of 16.
  int slot_bits() const { return allocation()->chunks16 ? 8 : dtype_bits(dtype); }
  int64_t nbytes() const;
  // The bit of the allocation (before any swizzle) where element `index` of the allocation starts.
  int64_t element_bit(int64_t index) const;
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

// ---- statements ------------------------------------------------------------------------------

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
// Leaves the innermost loop (range or while_) for the threads that execute it.
struct BreakNode : StmtNode {
  explicit BreakNode(SourceLoc l) : StmtNode(NodeKind::Break, std::move(l)) {}
  static constexpr auto operands() { return std::tuple{}; }
};
// Ends the current pass of the innermost loop for the threads that execute it.
struct ContinueNode : StmtNode {
  explicit ContinueNode(SourceLoc l) : StmtNode(NodeKind::Continue, std::move(l)) {}
  static constexpr auto operands() { return std::tuple{}; }
};
// Ends the kernel for the threads that execute it (CUDA's `return`).
struct ReturnNode : StmtNode {
  explicit ReturnNode(SourceLoc l) : StmtNode(NodeKind::Return, std::move(l)) {}
  static constexpr auto operands() { return std::tuple{}; }
};
// Threads [begin, begin + count) of the block run `body`; the others skip it.
struct ThreadGroupNode : StmtNode {
  ThreadGroupNode(SourceLoc l, int begin, int count, Stmt b)
      : StmtNode(NodeKind::ThreadGroup, std::move(l)), begin(begin), count(count), body(std::move(b)) {}
  int begin, count;
  Stmt body;
  static constexpr auto operands() { return std::tuple{&ThreadGroupNode::body}; }
};
// An elementwise operand: a register tile (broadcast along its extent-1 dimensions) or a scalar.
struct Operand {
  RegisterTensor tensor;
  Expr scalar;
  bool operator==(const Operand&) const = default;
  DType dtype() const { return tensor ? tensor->dtype : scalar->type.dtype; }
};
// One barrier of an array: `index` is a trace-time constant or a kernel value.
struct MbarrierRef {
  SharedTensor array;
  Expr index;
  bool operator==(const MbarrierRef&) const = default;
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
// fast_divmod divisor and its magic numbers, the device's number of multiprocessors, or the
// address of a global scratch buffer that the runtime owns (global_scratch): its contents are
// undefined at a launch, or zero at every launch for a ZeroedScratch, which each launch must leave
// zeroed again; or the buffer of a GPU timeline (TraceBuffer, ir/instructions/trace.hpp), null when
// the launch records none.
enum class DerivedValue : uint8_t { Divisor, Multiplier, Log2, Multiprocessors, Scratch, ZeroedScratch, TraceBuffer };
struct DerivedParam {
  Var param;
  DerivedValue value;
  // Over the call's parameters: the divisor, or a scratch buffer's bytes; null for Multiprocessors.
  Expr source;
  SourceLoc loc;  // the fast_divmod that divides by it, the first use of multiprocessors, or the global_scratch
  bool is_scratch() const { return value == DerivedValue::Scratch || value == DerivedValue::ZeroedScratch; }
};

// A condition on the call's parameters that every launch checks before it runs (Script::require).
struct Requirement {
  Expr cond;
  std::string message;
  SourceLoc loc;
};

struct KernelNode {
  std::string name;
  std::vector<Var> params;  // the call's, then the derived ones
  std::vector<DerivedParam> derived_params;
  std::vector<Expr> blocks;                // grid extents, 1 to 3, over the parameters
  SourceLoc blocks_loc;                    // where attrs.blocks was set
  std::vector<Requirement> requirements;   // over the call's parameters and multiprocessors
  std::array<int, 3> cluster = {1, 1, 1};  // blocks per cluster (attrs.cluster); 1 x 1 x 1: no clusters
  int warps = 0;
  int resident_blocks = 0;  // attrs.resident_blocks: blocks whose registers must fit on a multiprocessor; 0: unset
  SourceLoc resident_blocks_loc;
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
