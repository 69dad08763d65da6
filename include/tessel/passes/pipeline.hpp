// The lowering pipeline: the passes a traced kernel goes through before code generation or
// simulation, as a list (see src/passes/pipeline.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::passes {

struct PassContext {
  ir::Arch arch = ir::Arch::Sm90a;
};

struct Pass {
  const char* name;
  std::function<ir::Kernel(const ir::Kernel&, const PassContext&)> run;
};

// The pass list, in order.
const std::vector<Pass>& pipeline();

// Runs every pass, verifying the IR after each one. With TESSEL_DUMP_IR=<dir>, writes the IR
// before the first pass and after each pass that changed it to <dir>/<kernel>.<NN>.<pass>.ir.
struct PassTiming {
  std::string name;
  double milliseconds;
  bool changed;
};
ir::Kernel lower(const ir::Kernel& k, const PassContext& ctx, std::vector<PassTiming>* timings = nullptr);

// The individual passes (one per file).
ir::Kernel infer_layouts(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel contract_multiply_adds(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel select_instructions(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel choose_swizzles(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel inline_launch_values(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel simplify_scalars(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_reductions(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_shared_memory(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_tensor_maps(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_fast_divmods(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_multiprocessors(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_trace_buffer(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel allocate_barriers(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel check_transaction_bytes(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel check_arrival_counts(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel check_async_copy_waits(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel check_shared_handoffs(const ir::Kernel& k, const PassContext& ctx);
ir::Kernel plan_tensor_memory(const ir::Kernel& k, const PassContext& ctx);
// The tensor memory a block holds at once, counted as plan_tensor_memory counts it: allocations in
// program order, each freed by its dealloc, a loop's body once.
// An allocation of tensor memory: the statement that makes it and the tensor it allocates (null for
// none).
struct TensorMemoryAllocation {
  const ir::StmtNode* at = nullptr;
  const ir::TMemoryTensorNode* tensor = nullptr;
};
struct TensorMemoryUse {
  int peak_columns = 0;
  TensorMemoryAllocation peak;  // the allocation that reaches the peak
  TensorMemoryAllocation last;
  bool last_is_nested = false;  // inside a loop or a branch
  TensorMemoryAllocation first;
  // The first allocation whose CTA group differs from the first's, if any: a kernel uses one.
  TensorMemoryAllocation other_group;
};
TensorMemoryUse tensor_memory_use(const ir::KernelNode& k);

}  // namespace tessel::passes
