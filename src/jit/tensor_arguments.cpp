#include "tensor_arguments.hpp"

#include <map>
#include <set>

#include <fmt/ranges.h>

#include "tessel/ir/mutator.hpp"

namespace tessel::detail {

namespace {

// Whether the host knows `e` at launch: it reads only parameters (derived ones included), the
// multiprocessor count and constants.
bool known_at_launch(const ir::Expr& e, const std::set<const ir::ExprNode*>& params) {
  bool known = true;
  ir::walk_expr(*e, [&](const ir::ExprNode& x) {
    if (x.kind == ir::NodeKind::Var) known &= params.count(&x) > 0;
    if (x.kind == ir::NodeKind::Builtin)
      known &= static_cast<const ir::BuiltinNode&>(x).which == ir::BuiltinKind::Multiprocessors;
  });
  return known;
}

std::vector<int64_t> evaluated(const std::vector<ir::Expr>& exprs, const ir::KernelNode& k,
                               std::span<const ir::Scalar> values, int multiprocessors) {
  std::vector<int64_t> out;
  for (const ir::Expr& e : exprs) out.push_back(ir::evaluate_at_launch(*e, k, values, multiprocessors).i);
  return out;
}

// The elements of the view's type the argument holds: packed elements come in bytes (uint8_t).
int64_t elements_held(const ir::GlobalTensorNode& view, const HostArg& tensor) {
  const bool bytes = is_packed(view.dtype) && !tensor.void_pointer && tensor.pointee == DType::U8;
  return bytes ? tensor.span * 8 / dtype_bits(view.dtype) : tensor.span;
}

[[noreturn]] void throw_overrun(const ir::KernelNode& k, const ViewOfParameter& v, const HostArg& tensor,
                                std::span<const ir::Scalar> values, int multiprocessors, int64_t first, int64_t end) {
  const ir::GlobalTensorNode& view = *v.view;
  const std::string& param = k.params[v.param]->name;
  const std::vector<int64_t> shape = evaluated(view.shape, k, values, multiprocessors);
  const std::vector<int64_t> strides = evaluated(view.strides, k, values, multiprocessors);
  const std::string reach =
      first < 0 ? fmt::format("elements {} to {}", first, end - 1) : fmt::format("{} elements", end);
  throw Error(view.loc, fmt::format("kernel {}: the global_view of parameter {} with shape [{}] and strides [{}] spans "
                                    "{}, but the argument for {} holds {}; pass a larger tensor, or sizes that fit it",
                                    k.name, param, fmt::join(shape, ", "), fmt::join(strides, ", "), reach, param,
                                    elements_held(view, tensor)));
}

}  // namespace

std::vector<ViewOfParameter> views_of_parameters(const ir::KernelNode& k, const KernelSignature& signature) {
  std::set<const ir::ExprNode*> params;
  for (const ir::Var& p : k.params) params.insert(p.get());
  // A size declared once from the parameters at the top of the body (`Int32 half = n / 2;`) is
  // known at launch too; one declared inside a branch may hold only where the branch is taken.
  std::map<const ir::VarNode*, ir::Expr> definitions = ir::single_definitions(k.body);
  std::set<const ir::VarNode*> top_level;
  if (k.body && k.body->kind == ir::NodeKind::Seq)
    for (const ir::Stmt& s : static_cast<const ir::SeqNode&>(*k.body).stmts)
      if (s->kind == ir::NodeKind::Declare) top_level.insert(static_cast<const ir::DeclareNode&>(*s).var.get());
  std::erase_if(definitions, [&](const auto& d) { return !top_level.count(d.first); });
  std::set<const ir::Node*> seen;
  std::vector<ViewOfParameter> out;
  ir::walk(k.body, [&](const ir::StmtNode& s) {
    for (const ir::Ref<ir::Node>& t : ir::direct_operands(s).tensors) {
      if (t->kind != ir::NodeKind::GlobalTensor || !seen.insert(t.get()).second) continue;
      ir::GlobalTensor view = std::static_pointer_cast<const ir::GlobalTensorNode>(t);
      size_t param = 0;
      while (param < k.call_params() && k.params[param].get() != view->ptr.get()) ++param;
      if (param == k.call_params()) continue;
      auto defined = std::make_shared<ir::GlobalTensorNode>(*view);
      bool known = true;
      for (auto* exprs : {&defined->shape, &defined->strides})
        for (ir::Expr& e : *exprs) {
          e = ir::substitute(e, definitions);
          known &= known_at_launch(e, params);
        }
      if (known) out.push_back({std::move(defined), param, signature.argument_of(param)});
    }
  });
  return out;
}

void check_tensor_arguments(const ir::KernelNode& k, const KernelSignature& signature,
                            std::span<const ViewOfParameter> views, std::span<const HostArg> args,
                            std::span<const ir::Scalar> values, int multiprocessors, bool on_gpu) {
  for (size_t param = 0; param < k.call_params(); ++param) {
    const HostArg& a = args[signature.argument_of(param)];
    if (a.span >= 0 && a.on_gpu != on_gpu)
      throw Error(k.loc, fmt::format("kernel {} runs on {}, but the tensor passed for {} is on {}; pass a tensor on "
                                     "the kernel's device",
                                     k.name, on_gpu ? "the GPU" : "the simulator", k.params[param]->name,
                                     a.on_gpu ? "the GPU" : "the simulator"));
  }
  for (const ViewOfParameter& v : views) {
    const HostArg& tensor = args[v.argument];
    if (tensor.span < 0) continue;
    const ir::GlobalTensorNode& view = *v.view;
    // The view reaches the offsets sum(i_d * stride_d) for 0 <= i_d < shape_d: from the sum of the
    // negative strides' ends to the sum of the positive ones'. A size the launch cannot compute (a
    // division by a parameter that is 0 here, in a branch this launch does not take) leaves the view
    // to the kernel's own checks.
    int64_t first = 0, last = 0;
    bool empty = false, computable = true;
    for (int d = 0; d < view.rank() && computable; ++d) {
      try {
        const int64_t extent = ir::evaluate_at_launch(*view.shape[d], k, values, multiprocessors).i;
        const int64_t stride = ir::evaluate_at_launch(*view.strides[d], k, values, multiprocessors).i;
        empty |= extent <= 0;
        (stride < 0 ? first : last) += (extent - 1) * stride;
      } catch (const Error&) {
        computable = false;
      }
    }
    if (!computable) continue;
    if (!empty && (first < 0 || last >= elements_held(view, tensor)))
      throw_overrun(k, v, tensor, values, multiprocessors, first, last + 1);
  }
}

}  // namespace tessel::detail
