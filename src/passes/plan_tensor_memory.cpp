// plan_tensor_memory: checks that the tensor memory a block holds at once fits in its 512 columns,
// and marks the kernel's last tcgen05.alloc to relinquish the block's permit to allocate after it
// (tcgen05.relinquish_alloc_permit), which lets the hardware schedule the next block's
// allocations, and sets the kernel's CTA group from its allocations, which must agree.
// Allocations are counted in program order, each freed by its dealloc; the body of
// a loop is counted once. An allocation inside a loop or an if_ is never the one that
// relinquishes: a later iteration, or the other branch, may still allocate.
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/target_limits.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class MarkRelinquish : public ir::Mutator {
 public:
  explicit MarkRelinquish(const ir::Tcgen05AllocNode* last) : last_(last) {}

 protected:
  ir::Stmt visit(const ir::Tcgen05AllocNode& n, const ir::Stmt& self) override {
    if (&n != last_ || n.relinquish) return self;
    auto last = ir::copy_of(n);
    last->relinquish = true;
    return last;
  }

 private:
  const ir::Tcgen05AllocNode* last_;
};

// The statements of `body` in program order with the number of loops and branches around each.
void visit_in_order(const ir::Stmt& s, int depth,
                    const std::function<void(const ir::StmtNode&, int depth)>& on_stmt) {
  on_stmt(*s, depth);
  const bool nests = s->kind == ir::NodeKind::For || s->kind == ir::NodeKind::While || s->kind == ir::NodeKind::If;
  for (const ir::Stmt& child : ir::direct_operands(*s).children) visit_in_order(child, depth + (nests ? 1 : 0), on_stmt);
}

std::string cta_group_name(int group) { return group == 2 ? "CtaGroup::two" : "CtaGroup::one"; }

}  // namespace

TensorMemoryUse tensor_memory_use(const ir::Stmt& body) {
  TensorMemoryUse use;
  int live = 0;
  visit_in_order(body, 0, [&](const ir::StmtNode& s, int depth) {
    if (s.kind == ir::NodeKind::Tcgen05Alloc) {
      const auto& n = static_cast<const ir::Tcgen05AllocNode&>(s);
      live += n.tensor->allocated_columns();
      if (live > use.peak_columns) {
        use.peak_columns = live;
        use.peak_alloc = &n;
      }
      use.last_alloc = &n;
      use.last_is_nested = depth > 0;
      if (!use.first_alloc) use.first_alloc = &n;
      if (!use.other_group_alloc && n.tensor->cta_group != use.first_alloc->tensor->cta_group)
        use.other_group_alloc = &n;
    }
    if (s.kind == ir::NodeKind::Tcgen05Dealloc)
      live -= static_cast<const ir::Tcgen05DeallocNode&>(s).tensor->allocated_columns();
  });
  return use;
}

ir::Kernel plan_tensor_memory(const ir::Kernel& k, const PassContext& ctx) {
  const TensorMemoryUse use = tensor_memory_use(k->body);
  const int columns = ir::target_limits(ctx.arch).tmem_columns;
  if (use.peak_columns > columns)
    throw Error(use.peak_alloc->loc,
                fmt::format("tcgen05.alloc: this allocation of {} columns brings the tensor memory the block holds at "
                            "once to {} columns; a block has {}: deallocate earlier allocations first or allocate "
                            "fewer columns",
                            use.peak_alloc->tensor->allocated_columns(), use.peak_columns, columns));
  if (use.other_group_alloc)
    throw Error(use.other_group_alloc->loc,
                fmt::format("tcgen05.alloc: this allocation is {}, but the one at {} is {}; every tcgen05 "
                            "instruction of a kernel uses one CTA group (PTX ISA 9.7.16.7.1), so allocate all "
                            "tensor memory with the same CtaGroup",
                            cta_group_name(use.other_group_alloc->tensor->cta_group), use.first_alloc->loc.str(),
                            cta_group_name(use.first_alloc->tensor->cta_group)));
  ir::Kernel planned = k;
  if (use.first_alloc && use.first_alloc->tensor->cta_group != k->tcgen05_cta_group) {
    auto copy = std::make_shared<ir::KernelNode>(*k);
    copy->tcgen05_cta_group = use.first_alloc->tensor->cta_group;
    planned = copy;
  }
  if (!use.last_alloc || use.last_is_nested) return planned;
  const ir::Stmt body = MarkRelinquish(use.last_alloc).mutate(planned->body);
  return body == planned->body ? planned : ir::with_body(planned, body);
}

}  // namespace tessel::passes
