#include "tessel/ir/printer.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "tessel/ir/mutator.hpp"
#include "tessel/layout/wgmma_atoms.hpp"

namespace tessel::ir {

namespace {

class Printer {
 public:
  std::string kernel(const KernelNode& k) {
    std::vector<std::string> params, blocks;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const Var& p = k.params[i];
      params.push_back(fmt::format("{}: {}{}", name(p.get(), p->name), p->type.str(), fact(k, i)));
    }
    for (const Expr& b : k.blocks) blocks.push_back(expr(b));
    const std::string cluster = k.clustered() ? fmt::format(" cluster=[{}]", fmt::join(k.cluster, ", ")) : "";
    const std::string resident = k.resident_blocks ? fmt::format(" resident_blocks={}", k.resident_blocks) : "";
    line(fmt::format("kernel {}({}) blocks=[{}]{} warps={}{} shared={} {{", k.name, fmt::join(params, ", "),
                     fmt::join(blocks, ", "), cluster, k.warps, resident, k.shared_bytes));
    ++indent_;
    for (const Requirement& r : k.requirements) line(fmt::format("require {}  // {}", expr(r.cond), r.message));
    --indent_;
    derived_params(k);
    if (k.shared_bytes >= 0) shared_memory_plan(k);
    tensor_maps(k);
    block(k.body);
    line("}");
    return out_;
  }

  // " [16-byte aligned]", " [multiple of 16]": what the variant's specialization knows of parameter i.
  static std::string fact(const KernelNode& k, size_t i) {
    const int64_t d = k.param_divisor(i);
    const Type& t = k.params[i]->type;
    if (t.pointer) return d > element_alignment(t.dtype) ? fmt::format(" [{}-byte aligned]", d) : "";
    return d > 1 ? fmt::format(" [multiple of {}]", d) : "";
  }

  // How the launch computes each derived parameter, as comment lines under the kernel's header.
  void derived_params(const KernelNode& k) {
    ++indent_;
    for (const DerivedParam& p : k.derived_params) {
      std::string what;
      switch (p.value) {
        case DerivedValue::Divisor: what = "fast_divmod divisor " + expr(p.source); break;
        case DerivedValue::Multiplier: what = "fast_divmod multiplier of " + expr(p.source); break;
        case DerivedValue::Log2: what = "fast_divmod ceil(log2) of " + expr(p.source); break;
        case DerivedValue::Multiprocessors: what = "the device's multiprocessor count"; break;
        case DerivedValue::Scratch: what = "global scratch of " + expr(p.source) + " bytes"; break;
        case DerivedValue::ZeroedScratch: what = "global scratch of " + expr(p.source) + " bytes, zeroed"; break;
        case DerivedValue::TraceBuffer: what = "the timeline's buffer, or null"; break;
      }
      line(fmt::format("// {} = {}, at launch", name(p.param.get(), p.param->name), what));
    }
    --indent_;
  }

  // The planner's layout of shared memory, as comment lines under the kernel's header (none when
  // the kernel has no shared tiles).
  void shared_memory_plan(const KernelNode& k) {
    std::vector<const AllocSharedNode*> allocs;
    std::map<const SharedTensorNode*, const SourceLoc*> freed;
    walk(k.body, [&](const StmtNode& s) {
      if (s.kind == NodeKind::AllocShared) allocs.push_back(static_cast<const AllocSharedNode*>(&s));
      if (s.kind == NodeKind::FreeShared) freed[static_cast<const FreeSharedNode&>(s).tensor.get()] = &s.loc;
    });
    if (allocs.empty()) return;
    ++indent_;
    line(fmt::format("// shared memory plan: {} bytes in {} allocation{}", k.shared_bytes, allocs.size(),
                     allocs.size() == 1 ? "" : "s"));
    for (const AllocSharedNode* n : allocs) {
      const SharedTensorNode& t = *n->tensor;
      const auto free = freed.find(&t);
      line(fmt::format("//   {}: {}[{}] at bytes [{}, {}) aligned to {}, {}{}", name(&t, t.name), dtype_name(t.dtype),
                       fmt::join(t.shape, ", "), n->offset, n->offset + t.nbytes(), n->alignment,
                       t.swizzle_bits > 0 ? fmt::format("swizzled {}B", 16 << t.swizzle_bits) : "unswizzled",
                       free == freed.end() ? "" : fmt::format(", freed at {}", free->second->str())));
    }
    --indent_;
  }

  // The kernel's tensor maps, as comment lines under its header.
  void tensor_maps(const KernelNode& k) {
    ++indent_;
    for (size_t i = 0; i < k.tensor_maps.size(); ++i) {
      const TensorMap& m = k.tensor_maps[i];
      line(fmt::format("// tensor map {}: {} box [{}] {}", i, global(m.view), fmt::join(m.box, ", "),
                       m.swizzle_bits > 0 ? fmt::format("swizzled {}B", 16 << m.swizzle_bits) : "unswizzled"));
    }
    --indent_;
  }

  std::string stmt_text(const Stmt& s) {
    stmt(s);
    return out_;
  }

  std::string expr(const Expr& e) {
    printed_.insert(e.get());
    switch (e->kind) {
      case NodeKind::Const: {
        auto& n = static_cast<const ConstNode&>(*e);
        if (is_float(n.type.dtype)) return fmt::format("{}:{}", n.f, n.type.str());
        if (n.type.dtype == DType::Bool) return n.i ? "true" : "false";
        return n.type.dtype == DType::I32 ? fmt::format("{}", n.i) : fmt::format("{}:{}", n.i, n.type.str());
      }
      case NodeKind::Var: {
        auto& n = static_cast<const VarNode&>(*e);
        return name(&n, n.name);
      }
      case NodeKind::Binary: {
        auto& n = static_cast<const BinaryNode&>(*e);
        return fmt::format("{}({}, {})", op_name(n.op), expr(n.a), expr(n.b));
      }
      case NodeKind::Unary: {
        auto& n = static_cast<const UnaryNode&>(*e);
        return fmt::format("{}({})", op_name(n.op), expr(n.a));
      }
      case NodeKind::Select: {
        auto& n = static_cast<const SelectNode&>(*e);
        return fmt::format("select({}, {}, {})", expr(n.cond), expr(n.a), expr(n.b));
      }
      case NodeKind::Cast: {
        auto& n = static_cast<const CastNode&>(*e);
        if (n.type.pointer) return fmt::format("pointer_at<{}, aligned {}>({})", n.type.str(), n.alignment, expr(n.a));
        return fmt::format("cast<{}>({})", n.type.str(), expr(n.a));
      }
      case NodeKind::Builtin:
        return std::string(builtin_name(static_cast<const BuiltinNode&>(*e).which));
// clang-format off
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#define TESSEL_INSTR(Name, family, min_target, executor, call) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        // clang-format on
        TESSEL_CHECK(false, "not an expression: {}", kind_name(e->kind));
    }
    return "";
  }

 private:
  std::string name(const void* object, const std::string& hint) {
    auto it = names_.find(object);
    if (it != names_.end()) return it->second;
    std::string base = "%" + (hint.empty() ? std::string("v") : hint);
    std::string n = base;
    for (int i = 1; used_.count(n); ++i) n = fmt::format("{}.{}", base, i);
    used_.insert(n);
    names_[object] = n;
    return n;
  }

  std::string exprs(const std::vector<Expr>& es) {
    std::vector<std::string> parts;
    for (const Expr& e : es) parts.push_back(expr(e));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }

  std::string global(const GlobalTensor& g) {
    printed_.insert(g.get());
    return fmt::format(
        "global<{}>({}, shape={}, strides={}{}{}{})", dtype_name(g->dtype), expr(g->ptr), exprs(g->shape),
        exprs(g->strides),
        g->cache_hint == CacheHint::Normal ? "" : fmt::format(", cache_hint={}", cache_hint_name(g->cache_hint)),
        g->l1_hint == L1Hint::Normal ? "" : fmt::format(", l1_hint={}", l1_hint_name(g->l1_hint)),
        g->read_only ? ", read_only" : "");
  }

  std::string shared(const SharedTensor& s) {
    printed_.insert(s.get());
    if (!s->root) return name(s.get(), s->name);
    return fmt::format("view<{}>({} + {}, shape=[{}], strides=[{}])", dtype_name(s->dtype),
                       name(s->root.get(), s->root->name), expr(s->offset), fmt::join(s->shape, ", "),
                       fmt::join(s->strides, ", "));
  }

  static std::string vector_text(int vector) { return vector > 1 ? fmt::format(" vector={}", vector) : ""; }
  static std::string matrix_text(const MatrixAccess& m) { return m.str().empty() ? "" : " by " + m.str(); }
  std::string rank_text(const Expr& rank) { return rank ? fmt::format(" of cluster block {}", expr(rank)) : ""; }

  std::string reg(const RegisterTensor& r) {
    printed_.insert(r.get());
    return name(r.get(), r->name);
  }

  std::string tmem(const TMemoryTensor& t) {
    printed_.insert(t.get());
    if (!t->root) return name(t.get(), t->name);
    return fmt::format("tmem_view<{}>({} + [{}, {}], shape=[{}])", dtype_name(t->dtype),
                       name(t->root.get(), t->root->name), t->lane_offset, expr(t->column_offset),
                       fmt::join(t->shape, ", "));
  }

  static std::string swizzle_text(int bits) {
    if (bits == kSwizzleUndecided) return " swizzle=undecided";
    return bits ? fmt::format(" swizzle={}B", 16 << bits) : "";
  }

  std::string reg_decl(const RegisterTensor& r) {
    if (!r->has_layout())
      return fmt::format("{}: reg<{}> unresolved[{}] over {} threads", reg(r), dtype_name(r->dtype),
                         fmt::join(r->shape(), ","), r->threads);
    return fmt::format("{}: reg<{}> {}", reg(r), dtype_name(r->dtype), r->layout.str());
  }

  std::string operand(const Operand& o) { return o.tensor ? reg(o.tensor) : expr(o.scalar); }

  void line(const std::string& s) { out_ += std::string(indent_ * 2, ' ') + s + "\n"; }

  void block(const Stmt& s) {
    ++indent_;
    stmt(s);
    --indent_;
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
        TESSEL_CHECK(false, "not a statement: {}", kind_name(s->kind));
        return;
#define TESSEL_STMT(Name) case NodeKind::Name: return stmt(static_cast<const Name##Node&>(*s));
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name: return instruction(static_cast<const Name##Node&>(*s));
#include "tessel/ir/nodes.def"
      // clang-format on
    }
  }

  // An instruction's line, which must show every operand its kind's operands() lists: a field
  // added to a node and not to its line here is an error in the first kernel printed.
  template <class N> void instruction(const N& n) {
    printed_.clear();
    stmt(n);
    const DirectOperands operands = direct_operands(n);
    for (const Expr& e : operands.exprs)
      TESSEL_CHECK(printed_.count(e.get()), "the printed IR leaves out an expression operand of {}", call_name(n.kind));
    for (const Ref<Node>& t : operands.tensors)
      TESSEL_CHECK(printed_.count(t.get()), "the printed IR leaves out a tensor operand of {}", call_name(n.kind));
  }

  void stmt(const SeqNode& n) {
    for (const Stmt& c : n.stmts) stmt(c);
  }

  void stmt(const DeclareNode& n) {
    line(fmt::format("{}: {} = {}", name(n.var.get(), n.var->name), n.var->type.str(), expr(n.init)));
  }

  void stmt(const AssignNode& n) { line(fmt::format("{} = {}", name(n.var.get(), n.var->name), expr(n.value))); }

  void stmt(const ForNode& n) {
    line(fmt::format("for {} in range({}, {}, {}){} {{", name(n.var.get(), n.var->name), expr(n.start), expr(n.stop),
                     expr(n.step), n.unroll ? fmt::format(" unroll={}", n.unroll) : ""));
    block(n.body);
    line("}");
  }

  void stmt(const IfNode& n) {
    line(fmt::format("if {} {{", expr(n.cond)));
    block(n.then_case);
    if (n.else_case) {
      line("} else {");
      block(n.else_case);
    }
    line("}");
  }

  void stmt(const WhileNode& n) {
    line(fmt::format("while {} {{", expr(n.cond)));
    block(n.body);
    line("}");
  }

  void stmt(const BreakNode&) { line("break"); }
  void stmt(const ContinueNode&) { line("continue"); }
  void stmt(const ReturnNode&) { line("return"); }

  void stmt(const ThreadGroupNode& n) {
    line(fmt::format("thread_group(begin={}, count={}) {{", n.begin, n.count));
    block(n.body);
    line("}");
  }

  void stmt(const SyncNode& n) {
    if (n.barrier == SyncNode::kBlockBarrier) return line("sync");
    line(n.barrier == SyncNode::kUnallocated ? std::string("sync group") : fmt::format("sync barrier={}", n.barrier));
  }

  void stmt(const SetMaxNRegNode& n) { line(fmt::format("setmaxnreg.{} {}", n.increase ? "inc" : "dec", n.registers)); }

  void stmt(const FastDivmodNode& n) {
    const std::string magic =
        n.planned() ? fmt::format(" magic=({}, {})", expr(n.multiplier), expr(n.log2)) : std::string();
    line(fmt::format("{}, {} = fast_divmod({}, {}){}", name(n.quotient.get(), n.quotient->name),
                     name(n.remainder.get(), n.remainder->name), expr(n.x), expr(n.divisor), magic));
  }

  void stmt(const AllocSharedNode& n) {
    line(fmt::format("{} = alloc_shared<{}>[{}] offset={}{}", shared(n.tensor), dtype_name(n.tensor->dtype),
                     fmt::join(n.tensor->shape, ", "), n.offset, swizzle_text(n.tensor->swizzle_bits)));
  }

  void stmt(const FreeSharedNode& n) { line(fmt::format("free_shared {}", shared(n.tensor))); }

  void stmt(const AllocRegisterNode& n) { line(fmt::format("{} = full({})", reg_decl(n.out), expr(n.init))); }

  void stmt(const LoadGlobalNode& n) {
    line(fmt::format("{} = load_global {} at {}{}{}{}", reg_decl(n.out), global(n.src), exprs(n.offsets),
                     index_text(n.index, n.index_dim), n.fill == 0 ? "" : fmt::format(" fill={}", n.fill),
                     vector_text(n.vector)));
  }

  void stmt(const StoreGlobalNode& n) {
    line(fmt::format("store_global {} to {} at {}{}{}", reg(n.src), global(n.dst), exprs(n.offsets),
                     index_text(n.index, n.index_dim), vector_text(n.vector)));
  }

  // A gather's or scatter's indices: " plus %idx along dim 0".
  std::string index_text(const RegisterTensor& index, int dim) {
    return index ? fmt::format(" plus {} along dim {}", reg(index), dim) : "";
  }

  void stmt(const LoadSharedNode& n) {
    line(fmt::format("{} = load_shared {}{} at {}{}{}{}{}", reg_decl(n.out), shared(n.src), rank_text(n.rank),
                     exprs(n.offsets), index_text(n.index, n.index_dim),
                     n.fill == 0 ? "" : fmt::format(" fill={}", n.fill), matrix_text(n.matrix), vector_text(n.vector)));
  }

  void stmt(const StoreSharedNode& n) {
    line(fmt::format("store_shared {} to {}{} at {}{}{}{}", reg(n.src), shared(n.dst), rank_text(n.rank),
                     exprs(n.offsets), index_text(n.index, n.index_dim), matrix_text(n.matrix), vector_text(n.vector)));
  }

  void stmt(const ElementwiseBinaryNode& n) {
    line(fmt::format("{} = {}({}, {})", reg_decl(n.out), op_name(n.op), operand(n.a), operand(n.b)));
  }

  void stmt(const ElementwiseUnaryNode& n) {
    line(fmt::format("{} = {}{}({})", reg_decl(n.out), op_name(n.op), n.precision == MathPrecision::Fast ? ".fast" : "",
                     reg(n.a)));
  }

  void stmt(const WhereNode& n) {
    line(fmt::format("{} = where({}, {}, {})", reg_decl(n.out), operand(n.cond), operand(n.a), operand(n.b)));
  }

  void stmt(const FmaNode& n) {
    line(fmt::format("{} = fma({}, {}, {})", reg_decl(n.out), operand(n.a), operand(n.b), operand(n.c)));
  }

  void stmt(const DotNode& n) {
    const std::string warps = n.warps_m ? fmt::format("{}x{}", n.warps_m, n.warps_n) : std::string("unresolved");
    line(fmt::format("{} = dot({}, {}, {}) warps={}{}", reg_decl(n.out), reg(n.a), reg(n.b), reg(n.c), warps,
                     n.saturate ? " saturate" : ""));
  }

  void stmt(const CastTensorNode& n) {
    const char* rounding = !n.rounding ? "" : *n.rounding == Rounding::up ? " round_up" : " round_down";
    line(fmt::format("{} = cast({}){}{}", reg_decl(n.out), reg(n.a), n.saturate ? " saturate" : "", rounding));
  }

  void stmt(const BitcastTensorNode& n) { line(fmt::format("{} = bitcast({})", reg_decl(n.out), reg(n.a))); }

  void stmt(const TileElementNode& n) {
    line(fmt::format("{} = item({})", name(n.result.get(), n.result->name), reg(n.a)));
  }

  void stmt(const IotaNode& n) { line(fmt::format("{} = arange(dim={})", reg_decl(n.out), n.dim)); }

  void stmt(const ReduceNode& n) {
    const std::string across_warps =
        n.scratch ? fmt::format(" through {} barrier={}", shared(n.scratch), n.barrier) : std::string();
    if (n.position) {
      const std::string positions =
          n.position_scratch ? fmt::format(" and {}", shared(n.position_scratch)) : std::string();
      line(fmt::format("{}, {} = {}({}, dim={}){}{}", reg_decl(n.out), reg_decl(n.position), reduction_name(n),
                       reg(n.a), n.dim, across_warps, positions));
      return;
    }
    line(fmt::format("{} = reduce_{}({}, dim={}){}", reg_decl(n.out), op_name(n.op), reg(n.a), n.dim, across_warps));
  }

  void stmt(const ScanNode& n) {
    const std::string across_warps =
        n.scratch ? fmt::format(" through {} barrier={}", shared(n.scratch), n.barrier) : std::string();
    line(fmt::format("{} = scan_{}({}, dim={}{}){}", reg_decl(n.out), op_name(n.op), reg(n.a), n.dim,
                     n.exclusive ? ", exclusive" : "", across_warps));
  }

  // "atomic.add.relaxed.gpu", the order and scope always shown.
  static std::string atomic_text(AtomicOp op, MemoryOrder order, MemoryScope scope) {
    return fmt::format("atomic.{}.{}.{}", atomic_op_name(op), memory_order_name(order), memory_scope_name(scope));
  }

  void stmt(const ShuffleNode& n) {
    const std::string value = n.value.tensor ? reg(n.value.tensor) : expr(n.value.scalar);
    const std::string call = fmt::format("warp.{}({}, lane={})", shuffle_name(n.mode), value, expr(n.lane));
    line(fmt::format("{} = {}", n.out ? reg_decl(n.out) : name(n.result.get(), n.result->name), call));
  }

  void stmt(const RelayoutNode& n) {
    const std::string across_warps =
        n.scratch ? fmt::format(" through {} barrier={}", shared(n.scratch), n.barrier) : std::string();
    line(fmt::format("{} = convert_layout({}){}", reg_decl(n.out), reg(n.a), across_warps));
  }

  void stmt(const TraceMarkNode& n) {
    line(fmt::format("trace_region \"{}\" {}{}", n.name, n.begin ? "begins" : "ends",
                     n.buffer ? " into " + expr(n.buffer) : std::string()));
  }

  void stmt(const VoteNode& n) {
    line(fmt::format("{} = warp.{}({})", name(n.result.get(), n.result->name), vote_name(n.mode), expr(n.predicate)));
  }

  void stmt(const AtomicScalarNode& n) {
    const std::string target = n.global ? global(n.global) : shared(n.shared) + rank_text(n.rank);
    std::string args = fmt::format("{} at {}", target, exprs(n.index));
    if (n.compare) args += ", expected=" + expr(n.compare);
    if (n.value) args += ", " + expr(n.value);
    const std::string call = fmt::format("{} {}", atomic_text(n.op, n.order, n.scope), args);
    line(n.result ? fmt::format("{} = {}", name(n.result.get(), n.result->name), call) : call);
  }

  void stmt(const AtomicTensorNode& n) {
    const std::string target = n.global ? global(n.global) : shared(n.shared) + rank_text(n.rank);
    const std::string expected = n.compare ? fmt::format(" expected={}", reg(n.compare)) : std::string();
    // A scatter's positions are its indices from the view's origin (offsets 0).
    const std::string at = n.index ? fmt::format("{} + indices {}", exprs(n.offsets), reg(n.index)) : exprs(n.offsets);
    const std::string call =
        fmt::format("{} {}{} into {} at {}", atomic_text(n.op, n.order, n.scope), reg(n.value), expected, target, at);
    line(n.out ? fmt::format("{} = {}", reg_decl(n.out), call) : call);
  }

  void stmt(const CopyRegisterNode& n) { line(fmt::format("{} = copy({})", reg(n.dst), reg(n.src))); }

  void stmt(const SliceRegisterNode& n) {
    line(fmt::format("{} = slice({}, at=[{}])", reg_decl(n.out), reg(n.src), fmt::join(n.offsets, ", ")));
  }

  void stmt(const RegroupRegistersNode& n) {
    line(fmt::format("{} = {}({}{}, dims=[{}])", reg_decl(n.out), regroup_name(n.regroup), reg(n.a),
                     n.b ? ", " + reg(n.b) : std::string(), fmt::join(n.dims, ", ")));
  }

  void stmt(const AnnotateLayoutNode& n) { line(fmt::format("annotate_layout {} {}", reg(n.tile), n.layout.str())); }

  void stmt(const CopyAsyncNode& n) {
    line(fmt::format("copy_async {} at {} to {}{}", global(n.src), exprs(n.offsets), shared(n.dst),
                     n.in_turn         ? fmt::format(" by runs of {} in turn", n.vector)
                     : n.layout.rank() ? " by " + n.layout.str()
                                       : ""));
  }

  void stmt(const CopyAsyncCommitNode&) { line("copy_async_commit_group"); }

  void stmt(const CopyAsyncWaitNode& n) {
    line(n.all ? std::string("copy_async_wait_all") : fmt::format("copy_async_wait_group {}", n.pending));
  }

  void stmt(const WgmmaFenceNode&) { line("wgmma.fence"); }

  void stmt(const WgmmaMmaNode& n) {
    const std::string a = n.a_shared ? shared(n.a_shared) : reg(n.a_registers);
    line(fmt::format("wgmma.mma {} {} {} @ {} m64n{}k{}{}", reg(n.acc), n.accumulate ? "+=" : "=", a, shared(n.b),
                     n.n(), wgmma_k(n.operand_type()), n.saturate ? " saturate" : ""));
  }

  void stmt(const WgmmaCommitGroupNode&) { line("wgmma.commit_group"); }

  void stmt(const WgmmaWaitGroupNode& n) { line(fmt::format("wgmma.wait_group {}", n.pending)); }

  std::string barrier(const MbarrierRef& b) { return fmt::format("{}[{}]", shared(b.array), expr(b.index)); }

  void stmt(const Tcgen05AllocNode& n) {
    line(fmt::format("{}: tmem<{}>[{}] = tcgen05.alloc columns={} address={}{}{}", tmem(n.tensor),
                     dtype_name(n.tensor->dtype), fmt::join(n.tensor->shape, ", "), n.tensor->allocated_columns(),
                     shared(n.tensor->address), n.tensor->cta_group == 2 ? " pair" : "",
                     n.relinquish ? " relinquish" : ""));
  }
  void stmt(const Tcgen05DeallocNode& n) { line(fmt::format("tcgen05.dealloc {}", tmem(n.tensor))); }
  void stmt(const Tcgen05MmaNode& n) {
    const std::string kind =
        n.mma_kind() == Tcgen05Kind::f16 ? "" : fmt::format(".kind::{}", tcgen05_kind_name(n.mma_kind()));
    line(fmt::format(
        "tcgen05.mma{} {} = {} @ {} enable_input_d={}{}", kind, tmem(n.acc), shared(n.a), shared(n.b),
        expr(n.enable_input_d),
        n.scale_a    ? fmt::format(" scales={} {} {}", n.scale_format == Tcgen05ScaleFormat::ue8m0 ? "ue8m0" : "ue4m3",
                                   tmem(n.scale_a), tmem(n.scale_b))
        : n.saturate ? " saturate"
                     : ""));
  }
  void stmt(const Tcgen05CommitNode& n) {
    line(fmt::format("tcgen05.commit {}{}", barrier(n.barrier),
                     n.cta_mask ? fmt::format(" multicast to blocks {}", expr(n.cta_mask)) : ""));
  }
  void stmt(const Tcgen05CopyNode& n) { line(fmt::format("tcgen05.copy {} to {}", shared(n.src), tmem(n.dst))); }
  void stmt(const Tcgen05LoadNode& n) { line(fmt::format("{} = tcgen05.load {}", reg_decl(n.out), tmem(n.src))); }
  void stmt(const Tcgen05StoreNode& n) { line(fmt::format("tcgen05.store {} = {}", tmem(n.dst), reg(n.src))); }
  void stmt(const Tcgen05WaitNode& n) { line(n.store ? "tcgen05.wait_store" : "tcgen05.wait_load"); }

  void stmt(const MbarrierInitNode& n) {
    line(fmt::format("mbarrier.alloc {} counts=[{}]", shared(n.array), fmt::join(n.counts, ", ")));
  }
  void stmt(const MbarrierArriveNode& n) {
    line(fmt::format("mbarrier.arrive {} count={}", barrier(n.barrier), expr(n.count)));
  }
  void stmt(const MbarrierArriveExpectTxNode& n) {
    line(fmt::format("mbarrier.arrive_and_expect_tx {} bytes={}", barrier(n.barrier), expr(n.bytes)));
  }
  void stmt(const MbarrierExpectTxNode& n) {
    line(fmt::format("mbarrier.expect_tx {} bytes={}", barrier(n.barrier), expr(n.bytes)));
  }
  static std::string ordering(WaitSemantics sem, WaitScope scope) {
    return fmt::format("{}.{}", wait_semantics_name(sem), wait_scope_name(scope));
  }
  void stmt(const MbarrierWaitNode& n) {
    line(fmt::format("mbarrier.wait {} parity={} {}", barrier(n.barrier), expr(n.parity), ordering(n.sem, n.scope)));
  }
  void stmt(const MbarrierTryWaitNode& n) {
    line(fmt::format("{} = mbarrier.try_wait {} parity={} {}", name(n.ready.get(), n.ready->name), barrier(n.barrier),
                     expr(n.parity), ordering(n.sem, n.scope)));
  }
  void stmt(const MbarrierRemoteArriveNode& n) {
    if (n.bytes)
      line(fmt::format("mbarrier.arrive_and_expect_tx {} of cluster block {} bytes={}", barrier(n.barrier),
                       expr(n.rank), expr(n.bytes)));
    else
      line(fmt::format("mbarrier.arrive {} of cluster block {} count={}", barrier(n.barrier), expr(n.rank),
                       expr(n.count)));
  }
  void stmt(const ClusterSyncNode&) { line("cluster.sync"); }
  void stmt(const ClusterArriveNode& n) { line(n.relaxed ? "cluster.arrive.relaxed" : "cluster.arrive.release"); }
  void stmt(const ClusterWaitNode&) { line("cluster.wait"); }
  void stmt(const ClcTryCancelNode& n) {
    line(fmt::format("clc.try_cancel to {} on {}{}", shared(n.response), barrier(n.barrier),
                     n.multicast ? " multicast to the cluster" : ""));
  }
  void stmt(const ClcQueryNode& n) {
    line(fmt::format("{}, {}, {}, {} = clc.query_response {}", name(n.canceled.get(), n.canceled->name),
                     name(n.x.get(), n.x->name), name(n.y.get(), n.y->name), name(n.z.get(), n.z->name),
                     shared(n.response)));
  }
  void stmt(const FenceProxyAsyncNode& n) {
    const std::string_view space = proxy_fence_space_name(n.space);
    line(space.empty() ? std::string("fence_proxy_async") : fmt::format("fence_proxy_async {}", space));
  }
  void stmt(const MemoryFenceNode& n) {
    line(fmt::format("fence.{}.{}", fence_semantics_name(n.sem), memory_scope_name(n.scope)));
  }
  void stmt(const GridDependencyWaitNode&) { line("grid_dependency.wait"); }
  void stmt(const LaunchDependentsNode&) { line("grid_dependency.launch_dependents"); }

  void stmt(const TmaStoreNode& n) {
    line(fmt::format("tma.shared_to_global {} to {} at {} dims [{}]{}", shared(n.src), global(n.dst), exprs(n.offsets),
                     fmt::join(n.dims, ", "), n.tensor_map >= 0 ? fmt::format(" by tensor map {}", n.tensor_map) : ""));
  }

  void stmt(const TmaLoadNode& n) {
    line(fmt::format("tma.global_to_shared {} at {} to {} dims [{}] on {}{}{}{}", global(n.src), exprs(n.offsets),
                     shared(n.dst), fmt::join(n.dims, ", "), barrier(n.barrier),
                     n.barrier_rank ? fmt::format(" of cluster block {}", expr(n.barrier_rank)) : "",
                     n.cta_mask ? fmt::format(" multicast to blocks {}", expr(n.cta_mask)) : "",
                     n.tensor_map >= 0 ? fmt::format(" by tensor map {}", n.tensor_map) : ""));
  }

  void stmt(const StoreSharedAsyncNode& n) {
    line(fmt::format("store_shared_async {} to {} of cluster block {} at {} on {}{}", reg(n.src), shared(n.dst),
                     expr(n.rank), exprs(n.offsets), barrier(n.barrier), vector_text(n.vector)));
  }

  void stmt(const TmaSharedToClusterNode& n) {
    line(fmt::format("tma.shared_to_cluster {} to {} of cluster block {} on {}", shared(n.src), shared(n.dst),
                     expr(n.rank), barrier(n.barrier)));
  }

  void stmt(const TmaBulkLoadNode& n) {
    line(fmt::format("tma.bulk_global_to_shared {} at {} to {} on {}", global(n.src), exprs(n.offsets), shared(n.dst),
                     barrier(n.barrier)));
  }

  void stmt(const TmaBulkStoreNode& n) {
    line(fmt::format("tma.bulk_shared_to_global {} to {} at {}", shared(n.src), global(n.dst), exprs(n.offsets)));
  }

  void stmt(const TmaCommitNode&) { line("tma.commit_group"); }

  void stmt(const TmaWaitNode& n) { line(fmt::format("tma.wait_group {}{}", n.pending, n.read ? " read" : "")); }

  void stmt(const PrintTensorNode& n) {
    line(fmt::format("print \"{}\" {}{} in block ({}){}", n.label, reg(n.tensor),
                     n.memory == "reg" ? std::string() : " from " + n.memory, fmt::join(n.block, ", "),
                     n.scratch ? fmt::format(" through {} barrier={}", shared(n.scratch), n.barrier) : std::string()));
  }

  void stmt(const PrintSharedNode& n) {
    line(fmt::format("print \"{}\" {} in block ({})", n.label, shared(n.tensor), fmt::join(n.block, ", ")));
  }

  void stmt(const PrintValuesNode& n) {
    line(fmt::format("print \"{}\" {} in block ({})", n.format, exprs(n.values), fmt::join(n.block, ", ")));
  }

  std::string out_;
  int indent_ = 0;
  std::map<const void*, std::string> names_;
  std::set<std::string> used_;
  std::set<const void*> printed_;  // the operands the current instruction's line has shown
};

}  // namespace

std::string print(const KernelNode& k) { return Printer().kernel(k); }
std::string print(const Stmt& s) { return Printer().stmt_text(s); }
std::string print(const Expr& e) { return Printer().expr(e); }

}  // namespace tessel::ir
