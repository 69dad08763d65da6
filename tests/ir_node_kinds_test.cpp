// One instance of every node kind of nodes.def, built by hand into one kernel that is printed,
// verified, lowered and emitted as CUDA. A kind added to nodes.def without an example here fails
// the first test and names the kind.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/verifier.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel {
namespace {

using namespace ir;

SourceLoc at(int line) { return SourceLoc{"kinds.cpp", line}; }

// The kernel: every statement kind, with every expression and tensor kind among their operands.
Kernel every_kind() {
  auto n = make_var(Type{DType::I32}, "n");
  auto ptr = make_var(Type{DType::F32, true}, "p");
  auto half = make_var(Type{DType::F16, true}, "h");
  auto counters = make_var(Type{DType::I32, true}, "counters");
  auto v = make_var(Type{DType::I32}, "v");
  auto i = make_var(Type{DType::I32}, "i");
  auto q = make_var(Type{DType::I32}, "q");
  auto rem = make_var(Type{DType::I32}, "rem");
  const int threads = 128;
  auto tile = [&](DType t, std::vector<int> shape, const char* name) {
    return std::make_shared<RegisterTensorNode>(t, std::move(shape), threads, Layout(), name, at(1));
  };
  auto g = std::make_shared<GlobalTensorNode>(DType::F32, ptr, std::vector<Expr>{n, const_int(32)},
                                              std::vector<Expr>{const_int(32), const_int(1)}, "g", at(2));
  auto gh = std::make_shared<GlobalTensorNode>(DType::F16, half, std::vector<Expr>{const_int(32), const_int(32)},
                                               std::vector<Expr>{const_int(32), const_int(1)}, "gh", at(2));
  auto rows = std::make_shared<GlobalTensorNode>(DType::F16, half, std::vector<Expr>{const_int(1), const_int(1024)},
                                                 std::vector<Expr>{const_int(1024), const_int(1)}, "rows", at(2));
  auto s = std::make_shared<SharedTensorNode>(DType::F32, std::vector<int>{2, 8, 32}, std::vector<int>{256, 32, 1},
                                              nullptr, nullptr, "s", at(3), 0);
  auto view = std::make_shared<SharedTensorNode>(DType::F32, std::vector<int>{8, 32}, std::vector<int>{32, 1}, s,
                                                 binary(BinaryOp::Mul, i, const_int(256)), "s", at(4), 0);
  auto second = std::make_shared<SharedTensorNode>(DType::F32, std::vector<int>{8, 32}, std::vector<int>{32, 1}, s,
                                                   const_int(256), "s", at(4), 0);
  auto sh = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{32, 32}, std::vector<int>{32, 1}, nullptr,
                                               nullptr, "sh", at(3), 0);
  auto r = tile(DType::F32, {8, 32}, "r"), x = tile(DType::F32, {8, 32}, "x"), y = tile(DType::F32, {8, 32}, "y");
  auto c = tile(DType::Bool, {8, 32}, "c"), w = tile(DType::F32, {8, 32}, "w"), f = tile(DType::F32, {8, 32}, "f");
  auto row = tile(DType::F32, {8, 1}, "row"), as_int = tile(DType::I32, {8, 32}, "as_int");
  auto part = tile(DType::F32, {8, 32}, "part"), prefix = tile(DType::F32, {8, 32}, "prefix");
  auto swapped = tile(DType::F32, {32, 8}, "swapped");
  auto bits = tile(DType::U32, {8, 32}, "bits"), index = tile(DType::I32, {8, 32}, "index");
  auto single = tile(DType::F32, {1, 1}, "single");
  auto picked = make_var(Type{DType::F32}, "picked");
  auto a = tile(DType::F16, {32, 16}, "a"), b = tile(DType::F16, {16, 32}, "b");
  auto acc = tile(DType::F32, {32, 32}, "acc"), d = tile(DType::F32, {32, 32}, "d");
  auto zeros = [](int k) { return std::vector<Expr>(size_t(k), const_int(0)); };
  auto wa = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{64, 16}, std::vector<int>{16, 1}, nullptr,
                                               nullptr, "wa", at(31), kSwizzleUndecided);
  auto wb = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{8, 16}, std::vector<int>{16, 1}, nullptr,
                                               nullptr, "wb", at(31), kSwizzleUndecided);
  auto wb_t = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{16, 8}, std::vector<int>{1, 16}, wb,
                                                 const_int(0), "wb", at(31), kSwizzleUndecided);
  auto wacc = tile(DType::F32, {64, 8}, "wacc");
  auto bars = std::make_shared<SharedTensorNode>(DType::U64, std::vector<int>{2}, std::vector<int>{1}, nullptr, nullptr,
                                                 "bars", at(31), 0);
  auto ready = make_var(Type{DType::Bool}, "ready");
  const Expr rank = std::make_shared<BuiltinNode>(at(40), BuiltinKind::ClusterBlockRank);
  const Expr peer = binary(BinaryOp::Sub, const_int(1), rank);
  auto response = std::make_shared<SharedTensorNode>(DType::U32, std::vector<int>{4}, std::vector<int>{1}, nullptr,
                                                     nullptr, "response", at(43), 0);
  auto canceled = make_var(Type{DType::Bool}, "canceled"), ctaid_x = make_var(Type{DType::I32}, "ctaid_x"),
       ctaid_y = make_var(Type{DType::I32}, "ctaid_y"), ctaid_z = make_var(Type{DType::I32}, "ctaid_z");
  const MbarrierRef bar0{bars, const_int(0)}, bar_v{bars, binary(BinaryOp::Mod, v, const_int(2))};
  auto seen = make_var(Type{DType::I32}, "seen");
  auto neighbour = make_var(Type{DType::I32}, "neighbour"), voted = make_var(Type{DType::U32}, "voted");
  auto ones_shuffled = tile(DType::I32, {32}, "ones_shuffled"), ones_moved = tile(DType::I32, {32}, "ones_moved");
  auto counts = std::make_shared<GlobalTensorNode>(DType::I32, counters, std::vector<Expr>{const_int(32)},
                                                   std::vector<Expr>{const_int(1)}, "counts", at(46));
  auto ones = tile(DType::I32, {32}, "ones");
  auto peers_tile = tile(DType::F32, {8, 32}, "peers_tile");
  auto slots = std::make_shared<SharedTensorNode>(DType::I32, std::vector<int>{32}, std::vector<int>{1}, nullptr,
                                                  nullptr, "slots", at(50), 0);
  std::vector<Stmt> loop_body = {
      std::make_shared<LoadSharedNode>(at(10), y, view, zeros(2)),
      std::make_shared<StoreSharedNode>(at(11), view, y, zeros(2)),
  };
  std::vector<Stmt> body = {
      std::make_shared<DeclareNode>(at(5), v, binary(BinaryOp::Add, n, const_int(1))),
      std::make_shared<AssignNode>(
          at(6), v,
          select(binary(BinaryOp::Lt, v, const_int(3)), cast(DType::I32, unary(UnaryOp::Neg, const_float(2.0))),
                 std::make_shared<BuiltinNode>(at(6), BuiltinKind::BlockIdxX))),
      std::make_shared<AllocSharedNode>(at(3), s),
      std::make_shared<AllocRegisterNode>(at(7), r, const_float(1.0)),
      std::make_shared<LoadGlobalNode>(at(8), x, g, std::vector<Expr>{v, const_int(0)}, 0.0),
      std::make_shared<StoreGlobalNode>(at(9), g, x, zeros(2)),
      std::make_shared<ForNode>(at(10), i, const_int(0), const_int(2), const_int(1), 2, seq(loop_body)),
      std::make_shared<ElementwiseBinaryNode>(at(12), c, BinaryOp::Lt, Operand{x, nullptr}, Operand{r, nullptr}),
      std::make_shared<ElementwiseUnaryNode>(at(13), w, UnaryOp::Exp, x),
      std::make_shared<WhereNode>(at(14), f, Operand{c, nullptr}, Operand{w, nullptr},
                                  Operand{nullptr, const_float(0)}),
      std::make_shared<FmaNode>(at(15), y, Operand{x, nullptr}, Operand{nullptr, const_float(2)}, Operand{f, nullptr}),
      std::make_shared<CastTensorNode>(at(16), as_int, y),
      std::make_shared<BitcastTensorNode>(at(16), bits, y),
      std::make_shared<IotaNode>(at(16), index, 1),
      std::make_shared<AllocRegisterNode>(at(16), single, const_float(3.0)),
      std::make_shared<DeclareNode>(at(16), picked, const_float(0.0)),
      std::make_shared<TileElementNode>(at(16), picked, single),
      std::make_shared<ReduceNode>(at(17), row, ReduceOp::Max, y, 1),
      std::make_shared<ScanNode>(at(17), prefix, ReduceOp::Sum, y, 1, true),
      std::make_shared<CopyRegisterNode>(at(18), r, y),
      std::make_shared<SliceRegisterNode>(at(18), part, y, std::vector<int>{0, 0}),
      std::make_shared<RegroupRegistersNode>(at(18), swapped, Regroup::Permute, y, nullptr, std::vector<int>{1, 0}),
      std::make_shared<AnnotateLayoutNode>(at(19), r, Layout::distributed({8, 32}, threads, 4)),
      std::make_shared<PrintTensorNode>(at(20), "row", row, std::array<int, 3>{0, 0, 0}),
      std::make_shared<PrintSharedNode>(at(20), "tile", s, std::array<int, 3>{0, 0, 0}),
      std::make_shared<PrintValuesNode>(at(20), "n = {}", std::vector<Expr>{n}, std::array<int, 3>{1, 0, 0}),
      std::make_shared<LoadGlobalNode>(at(21), a, gh, zeros(2), 0.0),
      std::make_shared<LoadGlobalNode>(at(21), b, gh, zeros(2), 0.0),
      std::make_shared<AllocRegisterNode>(at(21), acc, const_float(0.0)),
      std::make_shared<DotNode>(at(22), d, a, b, acc, 0, 0),
      std::make_shared<CopyAsyncNode>(at(23), g, second, zeros(2), Layout::distributed({8, 32}, threads, 4)),
      std::make_shared<CopyAsyncCommitNode>(at(24)),
      std::make_shared<CopyAsyncWaitNode>(at(25), 0, false),
      std::make_shared<SyncNode>(at(26)),
      std::make_shared<AllocSharedNode>(at(31), wa),
      std::make_shared<AllocSharedNode>(at(31), wb),
      std::make_shared<AllocRegisterNode>(at(31), wacc, const_float(0.0)),
      std::make_shared<WgmmaFenceNode>(at(32)),
      std::make_shared<WgmmaMmaNode>(at(33), wacc, wa, nullptr, wb_t),
      std::make_shared<WgmmaCommitGroupNode>(at(34)),
      std::make_shared<WgmmaWaitGroupNode>(at(35), 0),
      std::make_shared<AllocSharedNode>(at(31), sh),
      std::make_shared<TmaStoreNode>(at(32), sh, gh, zeros(2), std::vector<int>{0, 1}),
      std::make_shared<TmaCommitNode>(at(33)),
      std::make_shared<TmaWaitNode>(at(34), 0, true),
      std::make_shared<IfNode>(at(27), binary(BinaryOp::Gt, n, const_int(0)),
                               std::make_shared<ThreadGroupNode>(
                                   at(28), 32, 32, seq({std::make_shared<SyncNode>(at(28), SyncNode::kUnallocated)})),
                               nullptr),
      std::make_shared<WhileNode>(at(29), binary(BinaryOp::Lt, v, const_int(0)),
                                  seq({std::make_shared<AssignNode>(at(30), v, binary(BinaryOp::Add, v, const_int(1))),
                                       std::make_shared<IfNode>(at(30), binary(BinaryOp::Gt, v, const_int(5)),
                                                                seq({std::make_shared<BreakNode>(at(30))}),
                                                                seq({std::make_shared<ContinueNode>(at(30))}))})),
      std::make_shared<AllocSharedNode>(at(31), bars),
      std::make_shared<ThreadGroupNode>(
          at(31), 0, 1, seq({std::make_shared<MbarrierInitNode>(at(31), bars, std::vector<int>{1, 128})})),
      std::make_shared<SyncNode>(at(31)),
      std::make_shared<ThreadGroupNode>(at(32), 0, 1,
                                        seq({std::make_shared<MbarrierArriveExpectTxNode>(at(32), bar0, const_int(64)),
                                             std::make_shared<MbarrierExpectTxNode>(at(33), bar0, const_int(32))})),
      std::make_shared<MbarrierArriveNode>(at(34), bar_v, const_int(1)),
      std::make_shared<MbarrierWaitNode>(at(35), bar0, const_int(0, DType::U32)),
      std::make_shared<DeclareNode>(at(36), ready, const_int(0, DType::Bool)),
      std::make_shared<MbarrierTryWaitNode>(at(36), ready, bar_v, const_int(1, DType::U32), WaitSemantics::Relaxed,
                                            WaitScope::Cluster),
      std::make_shared<FenceProxyAsyncNode>(at(37), ProxyFenceSpace::SharedCta),
      std::make_shared<MemoryFenceNode>(at(37), FenceSemantics::AcqRel, MemoryScope::Gpu),
      std::make_shared<LaunchDependentsNode>(at(37)),
      std::make_shared<GridDependencyWaitNode>(at(37)),
      std::make_shared<TmaLoadNode>(at(38), gh, sh, zeros(2), std::vector<int>{0, 1}, bar0),
      std::make_shared<SetMaxNRegNode>(at(31), false, 40),
      std::make_shared<DeclareNode>(at(32), q, const_int(0)),
      std::make_shared<DeclareNode>(at(32), rem, const_int(0)),
      std::make_shared<FastDivmodNode>(at(32), q, rem, v, binary(BinaryOp::Add, n, const_int(1))),
      std::make_shared<ClusterSyncNode>(at(39)),
      std::make_shared<ClusterArriveNode>(at(39), true),
      std::make_shared<ClusterWaitNode>(at(39)),
      std::make_shared<ClusterArriveNode>(at(39), false),
      std::make_shared<ClusterWaitNode>(at(39)),
      std::make_shared<MbarrierRemoteArriveNode>(at(40), bar0, peer, const_int(1), nullptr),
      std::make_shared<ThreadGroupNode>(
          at(41), 0, 1,
          seq({std::make_shared<MbarrierRemoteArriveNode>(at(41), bar0, const_int(0), nullptr, const_int(32)),
               std::make_shared<TmaLoadNode>(at(42), gh, sh, zeros(2), std::vector<int>{0, 1}, bar0, -1, const_int(3)),
               std::make_shared<TmaSharedToClusterNode>(at(42), sh, sh, const_int(1), bar0),
               std::make_shared<TmaBulkLoadNode>(at(42), rows, sh, zeros(2), bar0),
               std::make_shared<TmaBulkStoreNode>(at(42), sh, rows, zeros(2))})),
      std::make_shared<AllocSharedNode>(at(43), response),
      std::make_shared<ThreadGroupNode>(at(44), 0, 1,
                                        seq({std::make_shared<ClcTryCancelNode>(at(44), response, bar0)})),
      std::make_shared<DeclareNode>(at(45), canceled, const_int(0, DType::Bool)),
      std::make_shared<DeclareNode>(at(45), ctaid_x, const_int(0)),
      std::make_shared<DeclareNode>(at(45), ctaid_y, const_int(0)),
      std::make_shared<DeclareNode>(at(45), ctaid_z, const_int(0)),
      std::make_shared<ClcQueryNode>(at(45), canceled, ctaid_x, ctaid_y, ctaid_z, response),
      std::make_shared<DeclareNode>(at(46), seen, const_int(0)),
      std::make_shared<AtomicScalarNode>(at(46), seen, AtomicOp::Add, counts, nullptr, std::vector<Expr>{const_int(0)},
                                         const_int(1), nullptr, MemoryOrder::AcqRel, MemoryScope::Gpu),
      std::make_shared<LoadGlobalNode>(at(47), ones, counts, zeros(1), 0.0),
      std::make_shared<AtomicTensorNode>(at(47), nullptr, AtomicOp::Max, counts, nullptr, zeros(1), ones, nullptr,
                                         MemoryOrder::Relaxed, MemoryScope::Gpu),
      std::make_shared<DeclareNode>(at(48), neighbour, const_int(0)),
      std::make_shared<ShuffleNode>(at(48), neighbour, nullptr, ShuffleMode::Xor, Operand{nullptr, seen}, const_int(1)),
      std::make_shared<ShuffleNode>(at(48), nullptr, ones_shuffled, ShuffleMode::Down, Operand{ones, nullptr},
                                    const_int(2)),
      std::make_shared<RelayoutNode>(at(48), ones_moved, ones_shuffled),
      std::make_shared<TraceMarkNode>(at(48), "moving", true),
      std::make_shared<TraceMarkNode>(at(48), "moving", false),
      std::make_shared<DeclareNode>(at(49), voted, const_int(0, DType::U32)),
      std::make_shared<VoteNode>(at(49), voted, VoteMode::Ballot, binary(BinaryOp::Gt, seen, const_int(0))),
      // Another block's shared tiles (distributed shared memory).
      std::make_shared<LoadSharedNode>(at(50), peers_tile, second, zeros(2), peer),
      std::make_shared<StoreSharedNode>(at(50), second, peers_tile, zeros(2), peer),
      std::make_shared<StoreSharedAsyncNode>(at(50), second, peers_tile, zeros(2), peer, bar0),
      std::make_shared<AllocSharedNode>(at(50), slots),
      std::make_shared<AtomicScalarNode>(at(50), nullptr, AtomicOp::Add, nullptr, slots,
                                         std::vector<Expr>{const_int(1)}, const_int(1), nullptr, MemoryOrder::Relaxed,
                                         MemoryScope::Cluster, peer),
      std::make_shared<AtomicTensorNode>(at(50), nullptr, AtomicOp::Add, nullptr, slots, zeros(1), ones, nullptr,
                                         MemoryOrder::Relaxed, MemoryScope::Cluster, nullptr, peer),
      std::make_shared<FreeSharedNode>(at(51), slots),
      std::make_shared<IfNode>(at(52), binary(BinaryOp::Gt, n, const_int(1)),
                               seq({std::make_shared<ReturnNode>(at(52))}), nullptr),
  };
  auto k = std::make_shared<KernelNode>();
  k->name = "every_kind";
  k->params = {n, ptr, half, counters};
  k->blocks = {const_int(2)};
  k->cluster = {2, 1, 1};
  k->warps = 4;
  k->body = seq(body, at(5));
  k->loc = at(5);
  return k;
}

// The Blackwell kinds, which need sm_100a (the kernel above needs sm_90a for wgmma): tensor
// memory and every tcgen05 instruction.
Kernel every_blackwell_kind() {
  auto n = make_var(Type{DType::I32}, "n");
  auto sa = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{128, 16}, std::vector<int>{16, 1}, nullptr,
                                               nullptr, "sa", at(41), kSwizzleUndecided);
  auto sb = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{16, 16}, std::vector<int>{16, 1}, nullptr,
                                               nullptr, "sb", at(41), kSwizzleUndecided);
  auto sb_t = std::make_shared<SharedTensorNode>(DType::F16, std::vector<int>{16, 16}, std::vector<int>{1, 16}, sb,
                                                 const_int(0), "sb", at(41), kSwizzleUndecided);
  auto word = std::make_shared<SharedTensorNode>(DType::U32, std::vector<int>{1}, std::vector<int>{1}, nullptr, nullptr,
                                                 "tmem_address", at(42), 0);
  auto tm = std::make_shared<TMemoryTensorNode>(DType::F32, std::vector<int>{128, 32}, nullptr, 0, nullptr, word, "tm",
                                                at(42));
  auto tview = std::make_shared<TMemoryTensorNode>(
      DType::F32, std::vector<int>{128, 16}, tm, 0,
      binary(BinaryOp::Mul, const_int(16), binary(BinaryOp::Mod, n, const_int(2))), nullptr, "tm", at(43));
  auto bars = std::make_shared<SharedTensorNode>(DType::U64, std::vector<int>{1}, std::vector<int>{1}, nullptr, nullptr,
                                                 "bars", at(44), 0);
  const MbarrierRef bar0{bars, const_int(0)};
  auto r = std::make_shared<RegisterTensorNode>(DType::F32, std::vector<int>{128, 16}, 128, Layout(), "r", at(45));
  auto sc = std::make_shared<SharedTensorNode>(DType::F32, std::vector<int>{128, 32}, std::vector<int>{32, 1}, nullptr,
                                               nullptr, "sc", at(41), kSwizzleUndecided);
  auto one_warp = [](int line, std::vector<Stmt> body) {
    return std::make_shared<ThreadGroupNode>(at(line), 0, 32, seq(std::move(body), at(line)));
  };
  std::vector<Stmt> body = {
      std::make_shared<AllocSharedNode>(at(42), word),
      one_warp(42, {std::make_shared<Tcgen05AllocNode>(at(42), tm)}),
      std::make_shared<SyncNode>(at(42)),
      std::make_shared<AllocSharedNode>(at(41), sa),
      std::make_shared<AllocSharedNode>(at(41), sb),
      std::make_shared<AllocSharedNode>(at(41), sc),
      std::make_shared<AllocSharedNode>(at(44), bars),
      std::make_shared<ThreadGroupNode>(at(44), 0, 1,
                                        seq({std::make_shared<MbarrierInitNode>(at(44), bars, std::vector<int>{1})})),
      std::make_shared<SyncNode>(at(44)),
      one_warp(46, {std::make_shared<Tcgen05CopyNode>(at(45), tm, sc),
                    std::make_shared<Tcgen05MmaNode>(at(46), tview, sa, sb_t, binary(BinaryOp::Ne, n, const_int(0))),
                    std::make_shared<Tcgen05CommitNode>(at(47), bar0),
                    std::make_shared<MbarrierWaitNode>(at(48), bar0, const_int(0, DType::U32))}),
      std::make_shared<SyncNode>(at(49)),
      std::make_shared<Tcgen05LoadNode>(at(50), r, tview),
      std::make_shared<Tcgen05WaitNode>(at(51), false),
      std::make_shared<Tcgen05StoreNode>(at(52), tview, r),
      std::make_shared<Tcgen05WaitNode>(at(53), true),
      std::make_shared<SyncNode>(at(54)),
      one_warp(55, {std::make_shared<Tcgen05DeallocNode>(at(55), tm)}),
  };
  auto k = std::make_shared<KernelNode>();
  k->name = "every_blackwell_kind";
  k->params = {n};
  k->blocks = {const_int(1)};
  k->warps = 4;
  k->body = seq(body, at(40));
  k->loc = at(40);
  return k;
}

std::set<NodeKind> kinds_in(const KernelNode& k) {
  std::set<NodeKind> kinds;
  walk(
      k.body,
      [&](const StmtNode& s) {
        kinds.insert(s.kind);
        for (const auto& t : direct_operands(s).tensors) kinds.insert(t->kind);
      },
      [&](const ExprNode& e) { kinds.insert(e.kind); });
  return kinds;
}

TEST(NodeKinds, TheExampleKernelHoldsEveryKind) {
  std::set<NodeKind> present = kinds_in(*every_kind());
  present.merge(kinds_in(*every_blackwell_kind()));
  for (NodeKind kind : all_kinds())
    EXPECT_TRUE(present.count(kind)) << "add an instance of " << kind_name(kind) << " to every_kind()";
}

// Drops the instructions `target` lacks: those newer than it, and wgmma after sm_90a.
class InstructionsOf : public Mutator {
 public:
  explicit InstructionsOf(Arch target) : target_(target) {}
  Stmt mutate(const Stmt& s) override {
    if (!is_instruction(s->kind)) return Mutator::mutate(s);
    const InstructionTraits& t = instruction_traits(s->kind);
    const bool has = t.min_target <= target_ && (t.family != "wgmma" || target_ == Arch::Sm90a);
    return has ? Mutator::mutate(s) : seq({}, s->loc);
  }

 private:
  const Arch target_;
};

// The CUDA C++ of every_kind's instructions that `target` has, verified before and after lowering.
std::string verified_lowered_cuda(const Kernel& k, Arch target, const codegen::EmitOptions& options = {}) {
  const Kernel kept = with_body(k, InstructionsOf(target).mutate(k->body));
  verify(*kept, target);
  const Kernel lowered = passes::lower(kept, passes::PassContext{target});
  verify(*lowered, target);
  return codegen::emit_cuda(*lowered, target, options).source;
}

TEST(NodeKinds, EveryKindPrintsVerifiesAndLowers) {
  const Kernel k = every_kind();
  const std::string text = print(*k);
  for (const char* piece : {"alloc_shared<f32>[2, 8, 32]",
                            "load_global",
                            "store_global",
                            "load_shared view<f32>",
                            "store_shared",
                            "lt(",
                            "exp(",
                            "where(",
                            "fma(",
                            "dot(",
                            "cast(",
                            "reduce_max(",
                            "copy(",
                            "annotate_layout",
                            "print \"row\"",
                            "print \"tile\" %s in block (0, 0, 0)",
                            "copy_async global<f32>",
                            "copy_async_commit_group",
                            "copy_async_wait_group 0",
                            "sync",
                            "thread_group(begin=32, count=32)",
                            "while ",
                            "for %i in range(0, 2, 1) unroll=2",
                            "select(",
                            "cast<i32>(neg(",
                            "blockIdx.x",
                            "full(",
                            "wgmma.fence",
                            "wgmma.mma %wacc += %wa @ view<f16>",
                            "wgmma.commit_group",
                            "wgmma.wait_group 0",
                            "mbarrier.alloc %bars counts=[1, 128]",
                            "mbarrier.arrive_and_expect_tx %bars[0] bytes=64",
                            "mbarrier.expect_tx %bars[0] bytes=32",
                            "mbarrier.arrive %bars[mod(%v, 2)] count=1",
                            "mbarrier.wait %bars[0] parity=0:u32 acquire.cta",
                            "%ready = mbarrier.try_wait %bars[mod(%v, 2)] parity=1:u32 relaxed.cluster",
                            "fence_proxy_async shared::cta",
                            "tma.shared_to_global %sh to global<f16>",
                            "tma.global_to_shared global<f16>",
                            "to %sh dims [0, 1] on %bars[0]",
                            "tma.commit_group",
                            "tma.wait_group 0 read",
                            "sync group",
                            "setmaxnreg.dec 40",
                            "= convert_layout(%ones_shuffled)",
                            "%picked = item(%single)",
                            "trace_region \"moving\" begins",
                            "= fast_divmod(",
                            "blocks=[2] cluster=[2, 1, 1]",
                            "cluster.sync",
                            "cluster.arrive.relaxed",
                            "cluster.arrive.release",
                            "cluster.wait",
                            "mbarrier.arrive %bars[0] of cluster block sub(1, cluster.blockRank) count=1",
                            "mbarrier.arrive_and_expect_tx %bars[0] of cluster block 0 bytes=32",
                            "on %bars[0] multicast to blocks 3",
                            "tma.shared_to_cluster %sh to %sh of cluster block 1 on %bars[0]",
                            "tma.bulk_global_to_shared global<f16>(",
                            "tma.bulk_shared_to_global %sh to global<f16>(",
                            "clc.try_cancel to %response on %bars[0]",
                            "%canceled, %ctaid_x, %ctaid_y, %ctaid_z = clc.query_response %response",
                            "shape=[8, 32], strides=[32, 1]) of cluster block sub(1, cluster.blockRank) at [0, 0]",
                            "store_shared %peers_tile to view<f32>(%s + 256",
                            "store_shared_async %peers_tile to view<f32>(%s + 256",
                            "%slots of cluster block sub(1, cluster.blockRank) at [1]",
                            "into %slots of cluster block sub(1, cluster.blockRank) at [0]"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
  const std::string cuda = verified_lowered_cuda(k, Arch::Sm90a);
  EXPECT_NE(cuda.find("mma.sync"), std::string::npos);
  EXPECT_NE(cuda.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(cuda.find("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"), std::string::npos);
  EXPECT_NE(cuda.find("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"), std::string::npos);
  EXPECT_NE(cuda.find("st.async.shared::cluster.mbarrier::complete_tx::bytes"), std::string::npos);
  EXPECT_NE(cuda.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"),
            std::string::npos);
  EXPECT_NE(cuda.find("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"), std::string::npos);
  EXPECT_NE(cuda.find("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"),
            std::string::npos);
  for (const char* piece :
       {"barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;",
        "barrier.cluster.arrive.relaxed.aligned;", "mapa.shared::cluster.u32",
        "mbarrier.arrive.release.cluster.shared::cluster.b64",
        "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64", "complete_tx::bytes.multicast::cluster",
        "blockIdx.x % 2u", "mapa.u64", "red.relaxed.cluster.add.s32"})
    EXPECT_NE(cuda.find(piece), std::string::npos) << piece;
  // cluster.sync() is one release arrival and one wait; the kernel's halves add a release arrival,
  // a relaxed one and two waits.
  const auto count = [&](std::string_view piece) {
    int n = 0;
    for (size_t at = cuda.find(piece); at != std::string::npos; at = cuda.find(piece, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("barrier.cluster.arrive.release.aligned;"), 2);
  EXPECT_EQ(count("barrier.cluster.arrive.relaxed.aligned;"), 1);
  EXPECT_EQ(count("barrier.cluster.wait.acquire.aligned;"), 3);
  const std::string blackwell = verified_lowered_cuda(k, Arch::Sm100a);
  for (const char* piece : {"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
                            "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%1, %2, %3, %4}"})
    EXPECT_NE(blackwell.find(piece), std::string::npos) << piece;
}

// Debug mode has a check for each wait and global access, whatever instruction it is part of.
TEST(NodeKinds, EveryKindEmitsInDebugMode) {
  for (const Arch target : {Arch::Sm90a, Arch::Sm100a}) {
    const std::string cuda = verified_lowered_cuda(every_kind(), target, {.debug = true});
    for (const char* piece : {"tessel_debug_wait_timed_out(", "tessel_debug_watch_try_wait(", "\"load_global reads\"",
                              "\"store_global writes\"", "\"copy_async reads\""})
      EXPECT_NE(cuda.find(piece), std::string::npos) << piece << " for " << arch_name(target);
  }
}

TEST(NodeKinds, EveryBlackwellKindPrintsVerifiesAndLowers) {
  const Kernel k = every_blackwell_kind();
  const std::string text = print(*k);
  for (const char* piece : {"%tm: tmem<f32>[128, 32] = tcgen05.alloc columns=32 address=%tmem_address",
                            "tcgen05.mma tmem_view<f32>(%tm + [0, mul(16, mod(%n, 2))], shape=[128, 16]) = %sa @ "
                            "view<f16>(%sb + 0, shape=[16, 16], strides=[1, 16]) enable_input_d=ne(%n, 0)",
                            "tcgen05.commit %bars[0]", "tcgen05.copy %sc to %tm",
                            "%r: reg<f32> unresolved[128,16] over 128 threads = tcgen05.load "
                            "tmem_view<f32>(%tm + [0, mul(16, mod(%n, 2))], shape=[128, 16])",
                            "tcgen05.wait_load",
                            "tcgen05.store tmem_view<f32>(%tm + [0, mul(16, mod(%n, 2))], "
                            "shape=[128, 16]) = %r",
                            "tcgen05.wait_store", "tcgen05.dealloc %tm"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
  verify(*k, Arch::Sm100a);
  const Kernel lowered = passes::lower(k, passes::PassContext{Arch::Sm100a});
  verify(*lowered, Arch::Sm100a);
  EXPECT_NE(print(*lowered).find("tcgen05.alloc columns=32 address=%tmem_address relinquish"), std::string::npos);
  const std::string cuda = codegen::emit_cuda(*lowered, Arch::Sm100a).source;
  for (const char* piece :
       {"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "tcgen05.mma.cta_group::1.kind::f16",
        "tcgen05.cp.cta_group::1.128x256b", "tcgen05.commit.cta_group::1.mbarrier::arrive::one",
        "tcgen05.ld.sync.aligned.32x32b.x16.b32", "tcgen05.st.sync.aligned.32x32b.x16.b32",
        "tcgen05.wait::ld.sync.aligned;", "tcgen05.wait::st.sync.aligned;", "tcgen05.fence::before_thread_sync;",
        "tcgen05.fence::after_thread_sync;", "tcgen05.dealloc.cta_group::1.sync.aligned.b32"})
    EXPECT_NE(cuda.find(piece), std::string::npos) << piece;
}

// Messages and the printed IR name an instruction by how the user writes it, so no two share a
// name.
TEST(NodeKinds, EveryInstructionHasItsOwnCallName) {
  std::map<std::string_view, NodeKind> seen;
  for (NodeKind kind : all_kinds()) {
    if (!is_instruction(kind)) continue;
    const std::string_view call = call_name(kind);
    EXPECT_FALSE(call.empty()) << kind_name(kind);
    const auto [it, fresh] = seen.emplace(call, kind);
    EXPECT_TRUE(fresh) << kind_name(kind) << " and " << kind_name(it->second) << " are both written " << call;
  }
}

}  // namespace
}  // namespace tessel

namespace tessel {
namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(std::string(TESSEL_SOURCE_DIR) + "/" + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Adding an instruction touches one file of the same name in each layer: nodes.def names the
// family, and each layer's entry for the instruction lives in that family's file; in the language,
// the function that creates the instruction's node.
TEST(NodeKinds, EachLayerDefinesAnInstructionInItsFamilyFile) {
  struct Layer {
    std::string file, before, after, extension = ".cpp";
  };
  const std::vector<Layer> layers = {
      {"include/tessel/ir/instructions/", "struct ", "Node : StmtNode {", ".hpp"},
      {"src/lang/", "ir::make<ir::", "Node>("},
      {"src/ir/instructions/", "void verify_", "("},
      {"src/ir/instructions/", "Effects effects_of(const ", "Node&"},
      {"src/passes/layout_rules_", "void layout_rule_", "("},
      {"src/codegen/emit_", "void emit_", "("},
      {"src/sim/exec_", "void exec_", "("},
  };
  for (ir::NodeKind kind : ir::all_kinds()) {
    if (!ir::is_instruction(kind)) continue;
    const std::string family(ir::instruction_traits(kind).family);
    for (const Layer& layer : layers) {
      const std::string path = layer.file + family + layer.extension;
      const std::string text = read_source(path);
      ASSERT_FALSE(text.empty()) << path << " is missing (family of " << ir::kind_name(kind) << ")";
      const std::string entry = layer.before + std::string(ir::kind_name(kind)) + layer.after;
      EXPECT_NE(text.find(entry), std::string::npos) << entry << " is not in " << path;
    }
  }
}

}  // namespace
}  // namespace tessel
