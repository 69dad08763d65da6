// plan_tensor_memory: checks that the tensor memory a block holds at once fits in its 512 columns,
// and marks the kernel's last tcgen05.alloc to relinquish the block's permit to allocate after it
// (tcgen05.relinquish_alloc_permit), which lets the hardware schedule the next block's
// allocations, and sets the kernel's CTA group from its allocations, which must agree.
// Allocations are counted in program order, each freed by its dealloc; the body of
// a loop is counted once. An allocation inside a loop or an if_ is never the one that
// relinquishes: a later iteration, or the other branch, may still allocate.
#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/target_limits.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class MarkRelinquish : public ir::Mutator {
 public:
  explicit MarkRelinquish(const ir::StmtNode* last) : last_(last) {}

 protected:
  ir::Stmt visit(const ir::Tcgen05AllocNode& n, const ir::Stmt& self) override {
    if (&n != last_ || n.relinquish) return self;
    auto last = ir::copy_of(n);
    last->relinquish = true;
    return last;
  }

 private:
  const ir::StmtNode* last_;
};

std::string cta_group_name(int group) { return group == 2 ? "CtaGroup::two" : "CtaGroup::one"; }

// Allocations and deallocations in program order, each allocation with whether a loop or an if_
// encloses it.
class TensorMemoryCounter : public ir::Visitor {
 public:
  TensorMemoryUse use;

 protected:
  void visit_instruction(const ir::StmtNode& s) override {
    const ir::Effects e = ir::effects(s);
    if (e.tensor_memory_allocated) allocated(s, *e.tensor_memory_allocated);
    if (e.tensor_memory_freed) live_ -= e.tensor_memory_freed->allocated_columns();
  }

 private:
  void allocated(const ir::StmtNode& s, const ir::TMemoryTensorNode& tensor) {
    const TensorMemoryAllocation here{&s, &tensor};
    live_ += tensor.allocated_columns();
    if (live_ > use.peak_columns) {
      use.peak_columns = live_;
      use.peak = here;
    }
    use.last = here;
    use.last_is_nested = position().nested();
    if (!use.first.at) use.first = here;
    if (!use.other_group.at && tensor.cta_group != use.first.tensor->cta_group) use.other_group = here;
  }
  int live_ = 0;
};

}  // namespace

TensorMemoryUse tensor_memory_use(const ir::KernelNode& k) {
  TensorMemoryCounter counter;
  counter.visit_kernel(k);
  return counter.use;
}

ir::Kernel plan_tensor_memory(const ir::Kernel& k, const PassContext& ctx) {
  const TensorMemoryUse use = tensor_memory_use(*k);
  const int columns = ir::target_limits(ctx.arch).tmem_columns;
  if (use.peak_columns > columns)
    throw Error(use.peak.at->loc,
                fmt::format("tcgen05.alloc: this allocation of {} columns brings the tensor memory the block holds at "
                            "once to {} columns; a block has {}: deallocate earlier allocations first or allocate "
                            "fewer columns",
                            use.peak.tensor->allocated_columns(), use.peak_columns, columns));
  if (use.other_group.at)
    throw Error(use.other_group.at->loc,
                fmt::format("tcgen05.alloc: this allocation is {}, but the one at {} is {}; every tcgen05 "
                            "instruction of a kernel uses one CTA group (PTX ISA 9.7.16.7.1), so allocate all "
                            "tensor memory with the same CtaGroup",
                            cta_group_name(use.other_group.tensor->cta_group), use.first.at->loc.str(),
                            cta_group_name(use.first.tensor->cta_group)));
  ir::Kernel planned = k;
  if (use.first.at && use.first.tensor->cta_group != k->tcgen05_cta_group) {
    auto copy = std::make_shared<ir::KernelNode>(*k);
    copy->tcgen05_cta_group = use.first.tensor->cta_group;
    planned = copy;
  }
  if (!use.last.at || use.last_is_nested) return planned;
  const ir::Stmt body = MarkRelinquish(use.last.at).mutate(planned->body);
  return body == planned->body ? planned : ir::with_body(planned, body);
}

}  // namespace tessel::passes
