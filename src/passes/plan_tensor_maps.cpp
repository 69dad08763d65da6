// Collects the tensor maps of the kernel's TMA instructions into the kernel's table, one per
// distinct (global view, box, swizzle), and points each instruction at its entry. A tensor map is
// encoded on the host at launch, so its view may use only the kernel's parameters, constants and
// variables declared once from them, which the table's view (and so the instructions') has replaced
// by their definitions.
// Runs last: the swizzles are decided and the shared memory planned, so a box whose shared
// address is known here is checked here.
#include <algorithm>
#include <map>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/tensor_map.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class TensorMapPlanner : public ir::Mutator {
 public:
  TensorMapPlanner(const ir::KernelNode& k, std::map<const ir::SharedTensorNode*, int64_t> shared_offsets)
      : kernel_(k), shared_offsets_(std::move(shared_offsets)), definitions_(ir::single_definitions(k.body)) {}

  std::vector<ir::TensorMap> maps;

 protected:
  ir::Stmt visit(const ir::TmaStoreNode& n, const ir::Stmt& self) override {
    check_shared_address(*n.src, n.loc);
    const int index =
        entry(n.dst, ir::tma_box(*n.src, n.dst->rank(), n.dims), n.src->allocation()->swizzle_bits, n.loc);
    if (index == n.tensor_map && maps[size_t(index)].view == n.dst) return self;
    auto planned = ir::copy_of(n);
    planned->tensor_map = index;
    planned->dst = maps[size_t(index)].view;
    return planned;
  }

  ir::Stmt visit(const ir::TmaLoadNode& n, const ir::Stmt& self) override {
    check_shared_address(*n.dst, n.loc);
    const int index =
        entry(n.src, ir::tma_box(*n.dst, n.src->rank(), n.dims), n.dst->allocation()->swizzle_bits, n.loc);
    if (index == n.tensor_map && maps[size_t(index)].view == n.src) return self;
    auto planned = ir::copy_of(n);
    planned->tensor_map = index;
    planned->src = maps[size_t(index)].view;
    return planned;
  }

 private:
  // The table index of (view, box, swizzle), added at `loc` when new.
  int entry(const ir::GlobalTensor& view, std::vector<int> box, int swizzle_bits, const SourceLoc& loc) {
    swizzle_bits = std::max(swizzle_bits, 0);
    for (size_t i = 0; i < maps.size(); ++i)
      if (views_[i] == view && maps[i].box == box && maps[i].swizzle_bits == swizzle_bits) return int(i);
    const ir::GlobalTensor at_launch = with_definitions(view);
    check_made_from_parameters(*at_launch, loc);
    if (int(maps.size()) == ir::kMaxTensorMapsPerKernel)
      throw Error(loc, fmt::format("tma: this copy needs a tensor map beyond the {} a kernel may take (one per "
                                   "distinct global view, box and swizzle); copy through fewer views or box shapes",
                                   ir::kMaxTensorMapsPerKernel));
    views_.push_back(view);
    maps.push_back({at_launch, std::move(box), swizzle_bits, loc});
    return int(maps.size()) - 1;
  }

  bool is_parameter(const ir::ExprNode& x) const {
    return std::any_of(kernel_.params.begin(), kernel_.params.end(), [&](const ir::Var& p) { return p.get() == &x; });
  }

  // Whether `e` comes down to parameters and constants through variables declared once; those it
  // uses join `of_parameters_`, which a view's expressions are then substituted from. A view that
  // uses another variable (one of the block's index, say) is refused naming it.
  bool of_parameters(const ir::ExprNode& e) {
    bool computable = true;
    ir::walk_expr(e, [&](const ir::ExprNode& x) {
      if (x.kind == ir::NodeKind::Builtin) computable = false;
      if (!computable || x.kind != ir::NodeKind::Var) return;
      const auto* var = static_cast<const ir::VarNode*>(&x);
      if (is_parameter(*var)) return;
      const auto known = computable_.find(var);
      if (known == computable_.end()) {
        const auto definition = definitions_.find(var);
        const bool from_parameters = definition != definitions_.end() && of_parameters(*definition->second);
        if (from_parameters) of_parameters_[var] = definition->second;
        computable &= computable_.emplace(var, from_parameters).first->second;
      } else {
        computable &= known->second;
      }
    });
    return computable;
  }

  // The view with its variables declared once replaced by their definitions: what the host evaluates.
  ir::GlobalTensor with_definitions(const ir::GlobalTensor& view) {
    auto out = ir::copy_of(*view);
    bool changed = false;
    const auto replace = [&](ir::Expr& e) {
      of_parameters(*e);
      ir::Expr defined = ir::substitute(e, of_parameters_);
      changed |= defined != e;
      e = std::move(defined);
    };
    replace(out->ptr);
    for (ir::Expr& e : out->shape) replace(e);
    for (ir::Expr& e : out->strides) replace(e);
    return changed ? ir::GlobalTensor(out) : view;
  }

  void check_made_from_parameters(const ir::GlobalTensorNode& view, const SourceLoc& loc) const {
    const auto not_a_parameter = [&](const ir::ExprNode& x) {
      return (x.kind == ir::NodeKind::Var && !is_parameter(x)) || x.kind == ir::NodeKind::Builtin;
    };
    if (view.ptr->kind == ir::NodeKind::Cast) {
      bool from_parameters = true;
      ir::walk_expr(*view.ptr, [&](const ir::ExprNode& x) { from_parameters &= !not_a_parameter(x); });
      if (!from_parameters)
        throw Error(loc, fmt::format("tma: the global view is over the pointer made at {} from an address the kernel "
                                     "reads or computes; a tensor map is made on the host at launch, so a TMA copy "
                                     "needs a view over a parameter: copy the rows with tma.bulk_global_to_shared, "
                                     "which takes any pointer, or with copy_async",
                                     view.ptr->loc.str()));
    }
    for (const ir::Expr& e : ir::tensor_exprs(view))
      ir::walk_expr(*e, [&](const ir::ExprNode& x) {
        if (not_a_parameter(x))
          throw Error(loc, fmt::format("tma: the global view uses {}, not a kernel parameter; a tensor map is made on "
                                       "the host at launch, so the view's address, shape and strides may use only "
                                       "parameters, constants and variables declared once from them, never assigned "
                                       "(move per-block offsets into the TMA offsets)",
                                       x.kind == ir::NodeKind::Builtin
                                           ? std::string(ir::builtin_name(static_cast<const ir::BuiltinNode&>(x).which))
                                           : fmt::format("the variable declared at {}", x.loc.str())));
      });
  }

  // The tile's first byte when its offset is a constant; other offsets are checked by the
  // simulator at each copy.
  void check_shared_address(const ir::SharedTensorNode& tile, const SourceLoc& loc) const {
    const auto planned = shared_offsets_.find(tile.allocation());
    int64_t offset = 0;
    if (planned == shared_offsets_.end() || (tile.offset && !ir::as_const_int(tile.offset, &offset))) return;
    const int bits = tile.allocation()->swizzle_bits;
    ir::check_tma_shared_address(planned->second + offset * ir::tma_shared_element_bytes(tile.dtype),
                                 bits > 0 ? 16 << bits : 0, loc);
  }

  const ir::KernelNode& kernel_;
  const std::map<const ir::SharedTensorNode*, int64_t> shared_offsets_;
  const std::map<const ir::VarNode*, ir::Expr> definitions_;
  std::map<const ir::VarNode*, bool> computable_;
  std::map<const ir::VarNode*, ir::Expr> of_parameters_;
  std::vector<ir::GlobalTensor> views_;  // each entry's view as the traced instructions named it
};

}  // namespace

ir::Kernel plan_tensor_maps(const ir::Kernel& k, const PassContext&) {
  std::map<const ir::SharedTensorNode*, int64_t> shared_offsets;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::AllocShared) return;
    const auto& a = static_cast<const ir::AllocSharedNode&>(s);
    if (a.offset >= 0) shared_offsets[a.tensor.get()] = a.offset;
  });
  TensorMapPlanner planner(*k, std::move(shared_offsets));
  ir::Stmt body = planner.mutate(k->body);
  if (body == k->body && planner.maps == k->tensor_maps) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = body;
  out->tensor_maps = std::move(planner.maps);
  return out;
}

}  // namespace tessel::passes
