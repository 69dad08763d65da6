#include "tessel/ir/mutator.hpp"

namespace tessel::ir {

Stmt Mutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
      return s;
#define TESSEL_STMT(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#define TESSEL_INSTR(Name, family, min_target, executor) \
  case NodeKind::Name: return visit(static_cast<const Name##Node&>(*s), s);
#include "tessel/ir/nodes.def"
  }
  return s;
}

Expr Mutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not an expression: {}", kind_name(e->kind));
      return e;
#define TESSEL_EXPR(Name) case NodeKind::Name: return visit(static_cast<const Name##Node&>(*e), e);
#include "tessel/ir/nodes.def"
  }
  return e;
}

template <class T> Ref<T> Mutator::memoized(const Ref<T>& t) {
  if (!t) return t;
  auto it = tensors_.find(t.get());
  if (it != tensors_.end()) return std::static_pointer_cast<const T>(it->second);
  Ref<T> m = visit(*t, t);
  tensors_[t.get()] = m;
  return m;
}

GlobalTensor Mutator::mutate(const GlobalTensor& t) { return memoized(t); }
SharedTensor Mutator::mutate(const SharedTensor& t) { return memoized(t); }
RegisterTensor Mutator::mutate(const RegisterTensor& t) { return memoized(t); }
TMemoryTensor Mutator::mutate(const TMemoryTensor& t) { return memoized(t); }

std::vector<Expr> Mutator::update(const std::vector<Expr>& es, bool* changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(update(e, changed));
  return out;
}

Operand Mutator::update(const Operand& o, bool* changed) {
  if (o.tensor) return Operand{update(o.tensor, changed), nullptr};
  return Operand{nullptr, update(o.scalar, changed)};
}

// ---- expressions ----

Expr Mutator::visit(const ConstNode&, const Expr& self) { return self; }
Expr Mutator::visit(const VarNode&, const Expr& self) { return self; }
Expr Mutator::visit(const BuiltinNode&, const Expr& self) { return self; }

Expr Mutator::visit(const BinaryNode& n, const Expr& self) {
  bool changed = false;
  Expr a = update(n.a, &changed), b = update(n.b, &changed);
  return changed ? std::make_shared<BinaryNode>(n.loc, n.type, n.op, a, b) : self;
}

Expr Mutator::visit(const UnaryNode& n, const Expr& self) {
  bool changed = false;
  Expr a = update(n.a, &changed);
  return changed ? std::make_shared<UnaryNode>(n.loc, n.type, n.op, a) : self;
}

Expr Mutator::visit(const SelectNode& n, const Expr& self) {
  bool changed = false;
  Expr c = update(n.cond, &changed), a = update(n.a, &changed), b = update(n.b, &changed);
  return changed ? std::make_shared<SelectNode>(n.loc, c, a, b) : self;
}

Expr Mutator::visit(const CastNode& n, const Expr& self) {
  bool changed = false;
  Expr a = update(n.a, &changed);
  return changed ? std::make_shared<CastNode>(n.loc, n.type, a) : self;
}

// ---- tensors ----

GlobalTensor Mutator::visit(const GlobalTensorNode& n, const GlobalTensor& self) {
  bool changed = false;
  Expr ptr = update(n.ptr, &changed);
  auto shape = update(n.shape, &changed), strides = update(n.strides, &changed);
  return changed ? std::make_shared<GlobalTensorNode>(n.dtype, ptr, shape, strides, n.name, n.loc) : self;
}

SharedTensor Mutator::visit(const SharedTensorNode& n, const SharedTensor& self) {
  bool changed = false;
  SharedTensor root = update(n.root, &changed);
  Expr offset = update(n.offset, &changed);
  return changed ? std::make_shared<SharedTensorNode>(n.dtype, n.shape, n.strides, root, offset, n.name, n.loc,
                                                      root ? root->swizzle_bits : n.swizzle_bits)
                 : self;
}

RegisterTensor Mutator::visit(const RegisterTensorNode&, const RegisterTensor& self) { return self; }

TMemoryTensor Mutator::visit(const TMemoryTensorNode& n, const TMemoryTensor& self) {
  bool changed = false;
  TMemoryTensor root = update(n.root, &changed);
  Expr column_offset = update(n.column_offset, &changed);
  SharedTensor address = update(n.address, &changed);
  return changed ? std::make_shared<TMemoryTensorNode>(n.dtype, n.shape, root, n.lane_offset, column_offset, address,
                                                       n.name, n.loc, n.cta_group)
                 : self;
}

// ---- statements ----

Stmt Mutator::visit(const SeqNode& n, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  for (const Stmt& s : n.stmts)
    if (Stmt m = update(s, &changed)) out.push_back(m);
  return changed ? std::make_shared<SeqNode>(n.loc, std::move(out)) : self;
}

Stmt Mutator::visit(const DeclareNode& n, const Stmt& self) {
  bool changed = false;
  Expr init = update(n.init, &changed);
  return changed ? std::make_shared<DeclareNode>(n.loc, n.var, init) : self;
}

Stmt Mutator::visit(const AssignNode& n, const Stmt& self) {
  bool changed = false;
  Expr v = update(n.value, &changed);
  return changed ? std::make_shared<AssignNode>(n.loc, n.var, v) : self;
}

Stmt Mutator::visit(const ForNode& n, const Stmt& self) {
  bool changed = false;
  Expr a = update(n.start, &changed), b = update(n.stop, &changed), c = update(n.step, &changed);
  Stmt body = update(n.body, &changed);
  return changed ? std::make_shared<ForNode>(n.loc, n.var, a, b, c, n.unroll, body) : self;
}

Stmt Mutator::visit(const IfNode& n, const Stmt& self) {
  bool changed = false;
  Expr c = update(n.cond, &changed);
  Stmt t = update(n.then_case, &changed), e = update(n.else_case, &changed);
  return changed ? std::make_shared<IfNode>(n.loc, c, t, e) : self;
}

Stmt Mutator::visit(const WhileNode& n, const Stmt& self) {
  bool changed = false;
  Expr c = update(n.cond, &changed);
  Stmt b = update(n.body, &changed);
  return changed ? std::make_shared<WhileNode>(n.loc, c, b) : self;
}

Stmt Mutator::visit(const ThreadGroupNode& n, const Stmt& self) {
  bool changed = false;
  Stmt b = update(n.body, &changed);
  return changed ? std::make_shared<ThreadGroupNode>(n.loc, n.begin, n.count, b) : self;
}

// ---- instructions ----

Stmt Mutator::visit(const SyncNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const CopyAsyncCommitNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const CopyAsyncWaitNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const TmaCommitNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const TmaWaitNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const TmaStoreNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor src = update(n.src, &changed);
  GlobalTensor dst = update(n.dst, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<TmaStoreNode>(n.loc, src, dst, offs, n.dims, n.tensor_map) : self;
}

Stmt Mutator::visit(const TmaLoadNode& n, const Stmt& self) {
  bool changed = false;
  GlobalTensor src = update(n.src, &changed);
  SharedTensor dst = update(n.dst, &changed);
  auto offs = update(n.offsets, &changed);
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr mask = update(n.cta_mask, &changed);
  Expr barrier_rank = update(n.barrier_rank, &changed);
  return changed ? std::make_shared<TmaLoadNode>(n.loc, src, dst, offs, n.dims, b, n.tensor_map, mask, barrier_rank)
                 : self;
}

Stmt Mutator::visit(const WgmmaFenceNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const WgmmaCommitGroupNode&, const Stmt& self) { return self; }
Stmt Mutator::visit(const WgmmaWaitGroupNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const WgmmaMmaNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor acc = update(n.acc, &changed), a_registers = update(n.a_registers, &changed);
  SharedTensor a_shared = update(n.a_shared, &changed), b = update(n.b, &changed);
  return changed ? std::make_shared<WgmmaMmaNode>(n.loc, acc, a_shared, a_registers, b) : self;
}

Stmt Mutator::visit(const SetMaxNRegNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const Tcgen05AllocNode& n, const Stmt& self) {
  bool changed = false;
  TMemoryTensor t = update(n.tensor, &changed);
  return changed ? std::make_shared<Tcgen05AllocNode>(n.loc, t, n.relinquish) : self;
}

Stmt Mutator::visit(const Tcgen05DeallocNode& n, const Stmt& self) {
  bool changed = false;
  TMemoryTensor t = update(n.tensor, &changed);
  return changed ? std::make_shared<Tcgen05DeallocNode>(n.loc, t) : self;
}

Stmt Mutator::visit(const Tcgen05MmaNode& n, const Stmt& self) {
  bool changed = false;
  TMemoryTensor acc = update(n.acc, &changed);
  SharedTensor a = update(n.a, &changed), b = update(n.b, &changed);
  Expr enable_input_d = update(n.enable_input_d, &changed);
  return changed ? std::make_shared<Tcgen05MmaNode>(n.loc, acc, a, b, enable_input_d) : self;
}

Stmt Mutator::visit(const Tcgen05CommitNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr mask = update(n.cta_mask, &changed);
  return changed ? std::make_shared<Tcgen05CommitNode>(n.loc, b, mask) : self;
}

Stmt Mutator::visit(const Tcgen05CopyNode& n, const Stmt& self) {
  bool changed = false;
  TMemoryTensor dst = update(n.dst, &changed);
  SharedTensor src = update(n.src, &changed);
  return changed ? std::make_shared<Tcgen05CopyNode>(n.loc, dst, src) : self;
}

Stmt Mutator::visit(const Tcgen05LoadNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  TMemoryTensor src = update(n.src, &changed);
  return changed ? std::make_shared<Tcgen05LoadNode>(n.loc, out, src) : self;
}

Stmt Mutator::visit(const Tcgen05StoreNode& n, const Stmt& self) {
  bool changed = false;
  TMemoryTensor dst = update(n.dst, &changed);
  RegisterTensor src = update(n.src, &changed);
  return changed ? std::make_shared<Tcgen05StoreNode>(n.loc, dst, src) : self;
}

Stmt Mutator::visit(const Tcgen05WaitNode&, const Stmt& self) { return self; }

// The quotient and remainder are assigned, not read: like an assignment's variable, they are not
// operands.
Stmt Mutator::visit(const FastDivmodNode& n, const Stmt& self) {
  bool changed = false;
  Expr x = update(n.x, &changed), divisor = update(n.divisor, &changed);
  Expr multiplier = update(n.multiplier, &changed), log2 = update(n.log2, &changed);
  return changed ? std::make_shared<FastDivmodNode>(n.loc, n.quotient, n.remainder, x, divisor, multiplier, log2)
                 : self;
}

Stmt Mutator::visit(const AllocSharedNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor t = update(n.tensor, &changed);
  return changed ? std::make_shared<AllocSharedNode>(n.loc, t, n.offset, n.alignment) : self;
}

Stmt Mutator::visit(const CopyAsyncNode& n, const Stmt& self) {
  bool changed = false;
  GlobalTensor src = update(n.src, &changed);
  SharedTensor dst = update(n.dst, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<CopyAsyncNode>(n.loc, src, dst, offs, n.layout, n.vector) : self;
}

Stmt Mutator::visit(const MbarrierInitNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor array = update(n.array, &changed);
  return changed ? std::make_shared<MbarrierInitNode>(n.loc, array, n.counts) : self;
}

Stmt Mutator::visit(const MbarrierArriveNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr count = update(n.count, &changed);
  return changed ? std::make_shared<MbarrierArriveNode>(n.loc, b, count) : self;
}

Stmt Mutator::visit(const MbarrierArriveExpectTxNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr bytes = update(n.bytes, &changed);
  return changed ? std::make_shared<MbarrierArriveExpectTxNode>(n.loc, b, bytes) : self;
}

Stmt Mutator::visit(const MbarrierExpectTxNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr bytes = update(n.bytes, &changed);
  return changed ? std::make_shared<MbarrierExpectTxNode>(n.loc, b, bytes) : self;
}

Stmt Mutator::visit(const MbarrierWaitNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr parity = update(n.parity, &changed);
  return changed ? std::make_shared<MbarrierWaitNode>(n.loc, b, parity, n.sem, n.scope) : self;
}

// `ready` is written, not read: like a declaration's variable, it is not an operand.
Stmt Mutator::visit(const MbarrierTryWaitNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr parity = update(n.parity, &changed);
  return changed ? std::make_shared<MbarrierTryWaitNode>(n.loc, n.ready, b, parity, n.sem, n.scope) : self;
}

Stmt Mutator::visit(const FenceProxyAsyncNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const MbarrierRemoteArriveNode& n, const Stmt& self) {
  bool changed = false;
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  Expr rank = update(n.rank, &changed);
  Expr count = update(n.count, &changed);
  Expr bytes = update(n.bytes, &changed);
  return changed ? std::make_shared<MbarrierRemoteArriveNode>(n.loc, b, rank, count, bytes) : self;
}

Stmt Mutator::visit(const ClusterSyncNode&, const Stmt& self) { return self; }

Stmt Mutator::visit(const ClcTryCancelNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor response = update(n.response, &changed);
  MbarrierRef b{update(n.barrier.array, &changed), update(n.barrier.index, &changed)};
  return changed ? std::make_shared<ClcTryCancelNode>(n.loc, response, b, n.multicast) : self;
}

// The result variables are written, not read: like a declaration's variable, not operands.
Stmt Mutator::visit(const ClcQueryNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor response = update(n.response, &changed);
  return changed ? std::make_shared<ClcQueryNode>(n.loc, n.canceled, n.x, n.y, n.z, response) : self;
}

Stmt Mutator::visit(const AllocRegisterNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  Expr init = update(n.init, &changed);
  return changed ? std::make_shared<AllocRegisterNode>(n.loc, out, init) : self;
}

Stmt Mutator::visit(const LoadGlobalNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  GlobalTensor src = update(n.src, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<LoadGlobalNode>(n.loc, out, src, offs, n.fill, n.vector) : self;
}

Stmt Mutator::visit(const StoreGlobalNode& n, const Stmt& self) {
  bool changed = false;
  GlobalTensor dst = update(n.dst, &changed);
  RegisterTensor src = update(n.src, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<StoreGlobalNode>(n.loc, dst, src, offs, n.vector) : self;
}

Stmt Mutator::visit(const LoadSharedNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  SharedTensor src = update(n.src, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<LoadSharedNode>(n.loc, out, src, offs, n.matrix) : self;
}

Stmt Mutator::visit(const StoreSharedNode& n, const Stmt& self) {
  bool changed = false;
  SharedTensor dst = update(n.dst, &changed);
  RegisterTensor src = update(n.src, &changed);
  auto offs = update(n.offsets, &changed);
  return changed ? std::make_shared<StoreSharedNode>(n.loc, dst, src, offs, n.matrix, n.vector) : self;
}

Stmt Mutator::visit(const ElementwiseBinaryNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  Operand a = update(n.a, &changed), b = update(n.b, &changed);
  return changed ? std::make_shared<ElementwiseBinaryNode>(n.loc, out, n.op, a, b) : self;
}

Stmt Mutator::visit(const ElementwiseUnaryNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed), a = update(n.a, &changed);
  return changed ? std::make_shared<ElementwiseUnaryNode>(n.loc, out, n.op, a) : self;
}

Stmt Mutator::visit(const WhereNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  Operand c = update(n.cond, &changed), a = update(n.a, &changed), b = update(n.b, &changed);
  return changed ? std::make_shared<WhereNode>(n.loc, out, c, a, b) : self;
}

Stmt Mutator::visit(const FmaNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed);
  Operand a = update(n.a, &changed), b = update(n.b, &changed);
  RegisterTensor c = update(n.c, &changed);
  return changed ? std::make_shared<FmaNode>(n.loc, out, a, b, c) : self;
}

Stmt Mutator::visit(const DotNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed), a = update(n.a, &changed), b = update(n.b, &changed),
                 c = update(n.c, &changed);
  return changed ? std::make_shared<DotNode>(n.loc, out, a, b, c, n.warps_m, n.warps_n) : self;
}

Stmt Mutator::visit(const CastTensorNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed), a = update(n.a, &changed);
  return changed ? std::make_shared<CastTensorNode>(n.loc, out, a) : self;
}

Stmt Mutator::visit(const ReduceNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed), a = update(n.a, &changed);
  return changed ? std::make_shared<ReduceNode>(n.loc, out, n.op, a, n.dim) : self;
}

Stmt Mutator::visit(const CopyRegisterNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor dst = update(n.dst, &changed), src = update(n.src, &changed);
  return changed ? std::make_shared<CopyRegisterNode>(n.loc, dst, src) : self;
}

Stmt Mutator::visit(const SliceRegisterNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor out = update(n.out, &changed), src = update(n.src, &changed);
  return changed ? std::make_shared<SliceRegisterNode>(n.loc, out, src, n.offsets) : self;
}

Stmt Mutator::visit(const AnnotateLayoutNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor tile = update(n.tile, &changed);
  return changed ? std::make_shared<AnnotateLayoutNode>(n.loc, tile, n.layout) : self;
}

Stmt Mutator::visit(const PrintTensorNode& n, const Stmt& self) {
  bool changed = false;
  RegisterTensor t = update(n.tensor, &changed);
  return changed ? std::make_shared<PrintTensorNode>(n.loc, n.label, t) : self;
}

// ---- walking ----

namespace {

// Lists what the mutator visits one level below `root`, changing nothing.
class OperandLister : public Mutator {
 public:
  explicit OperandLister(const Node* root) : root_(root) {}
  DirectOperands found;
  using Mutator::mutate;

  Stmt mutate(const Stmt& s) override {
    if (s && s.get() != root_) {
      found.children.push_back(s);
      return s;
    }
    return Mutator::mutate(s);
  }
  Expr mutate(const Expr& e) override {
    if (e) found.exprs.push_back(e);
    return e;
  }

 protected:
  GlobalTensor visit(const GlobalTensorNode&, const GlobalTensor& self) override { return listed(self); }
  SharedTensor visit(const SharedTensorNode&, const SharedTensor& self) override { return listed(self); }
  RegisterTensor visit(const RegisterTensorNode&, const RegisterTensor& self) override { return listed(self); }
  TMemoryTensor visit(const TMemoryTensorNode&, const TMemoryTensor& self) override { return listed(self); }

 private:
  template <class T> Ref<T> listed(const Ref<T>& t) {
    found.tensors.push_back(t);
    return t;
  }
  const Node* root_;
};

// Lists the expressions a tensor holds directly.
class TensorExprLister : public Mutator {
 public:
  std::vector<Expr> exprs;
  using Mutator::mutate;
  Expr mutate(const Expr& e) override {
    if (e) exprs.push_back(e);
    return e;
  }

 protected:
  // A view's allocation is a tensor of its own, checked where it is allocated.
  SharedTensor visit(const SharedTensorNode& n, const SharedTensor& self) override {
    mutate(n.offset);
    return self;
  }
  // The same for a tensor-memory view; the allocation's address word is allocated with it.
  TMemoryTensor visit(const TMemoryTensorNode& n, const TMemoryTensor& self) override {
    mutate(n.column_offset);
    return self;
  }
};

// A non-owning reference, for handing a node we only borrow to the mutator.
template <class T> Ref<T> borrowed(const T& n) { return Ref<T>(std::shared_ptr<const T>(), &n); }

}  // namespace

DirectOperands direct_operands(const StmtNode& s) {
  OperandLister lister(&s);
  lister.mutate(borrowed(s));
  return std::move(lister.found);
}

std::vector<Var> instruction_results(const StmtNode& s) {
  switch (s.kind) {
    case NodeKind::MbarrierTryWait: return {static_cast<const MbarrierTryWaitNode&>(s).ready};
    case NodeKind::ClcQuery: {
      const auto& q = static_cast<const ClcQueryNode&>(s);
      return {q.canceled, q.x, q.y, q.z};
    }
    case NodeKind::FastDivmod: {
      const auto& d = static_cast<const FastDivmodNode&>(s);
      return {d.quotient, d.remainder};
    }
    default: return {};
  }
}

std::vector<Expr> tensor_exprs(const Node& tensor) {
  TensorExprLister lister;
  switch (tensor.kind) {
    case NodeKind::GlobalTensor: lister.mutate(borrowed(static_cast<const GlobalTensorNode&>(tensor))); break;
    case NodeKind::SharedTensor: lister.mutate(borrowed(static_cast<const SharedTensorNode&>(tensor))); break;
    case NodeKind::RegisterTensor: break;
    case NodeKind::TMemoryTensor: lister.mutate(borrowed(static_cast<const TMemoryTensorNode&>(tensor))); break;
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      TESSEL_CHECK(false, "not a tensor: {}", kind_name(tensor.kind));
  }
  return std::move(lister.exprs);
}

void walk_expr(const ExprNode& e, const std::function<void(const ExprNode&)>& on_expr) {
  on_expr(e);
  class Children : public Mutator {
   public:
    std::vector<Expr> found;
    const ExprNode* root = nullptr;
    using Mutator::mutate;
    Expr mutate(const Expr& x) override {
      if (x.get() == root) return Mutator::mutate(x);
      if (x) found.push_back(x);
      return x;
    }
  } children;
  children.root = &e;
  children.mutate(borrowed(e));
  for (const Expr& c : children.found) walk_expr(*c, on_expr);
}

void walk(const Stmt& s, const std::function<void(const StmtNode&)>& on_stmt,
          const std::function<void(const ExprNode&)>& on_expr) {
  if (!s) return;
  on_stmt(*s);
  DirectOperands ops = direct_operands(*s);
  if (on_expr) {
    for (const Expr& e : ops.exprs) walk_expr(*e, on_expr);
    for (const auto& t : ops.tensors)
      for (const Expr& e : tensor_exprs(*t)) walk_expr(*e, on_expr);
  }
  for (const Stmt& c : ops.children) walk(c, on_stmt, on_expr);
}

}  // namespace tessel::ir
