#include "pointers_in_memory.hpp"

#include <set>

#include "tessel/ir/mutator.hpp"

namespace tessel::detail {

namespace {

// The made pointer of `view` whose address uses a value of the kernel's body, if there is one.
const ir::CastNode* pointer_in_memory(const ir::GlobalTensor& view, const std::set<const ir::ExprNode*>& params) {
  if (!view || view->ptr->kind != ir::NodeKind::Cast) return nullptr;
  bool of_parameters = true;
  ir::walk_expr(*view->ptr, [&](const ir::ExprNode& x) {
    of_parameters &= !(x.kind == ir::NodeKind::Var && !params.contains(&x)) && x.kind != ir::NodeKind::Builtin;
  });
  return of_parameters ? nullptr : static_cast<const ir::CastNode*>(view->ptr.get());
}

// The global view an instruction writes, if it writes one.
ir::GlobalTensor written_view(const ir::StmtNode& s) {
  switch (s.kind) {
    case ir::NodeKind::StoreGlobal: return static_cast<const ir::StoreGlobalNode&>(s).dst;
    case ir::NodeKind::TmaStore: return static_cast<const ir::TmaStoreNode&>(s).dst;
    case ir::NodeKind::TmaBulkStore: return static_cast<const ir::TmaBulkStoreNode&>(s).dst;
    case ir::NodeKind::AtomicScalar: {
      const auto& a = static_cast<const ir::AtomicScalarNode&>(s);
      return ir::writes_memory(a.op) ? a.global : nullptr;
    }
    case ir::NodeKind::AtomicTensor: {
      const auto& a = static_cast<const ir::AtomicTensorNode&>(s);
      return ir::writes_memory(a.op) ? a.global : nullptr;
    }
    default: return nullptr;
  }
}

}  // namespace

std::optional<SourceLoc> write_through_pointer_in_memory(const ir::KernelNode& k) {
  std::set<const ir::ExprNode*> params;
  for (const ir::Var& p : k.params) params.insert(p.get());
  std::optional<SourceLoc> made_at;
  ir::walk(k.body, [&](const ir::StmtNode& s) {
    if (made_at) return;
    if (const ir::CastNode* made = pointer_in_memory(written_view(s), params)) made_at = made->loc;
  });
  return made_at;
}

}  // namespace tessel::detail
