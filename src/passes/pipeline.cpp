// The table of contents of lowering: the passes in order, and the one loop that runs them.
#include "tessel/passes/pipeline.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "tessel/ir/printer.hpp"
#include "tessel/ir/verifier.hpp"
#include "tessel/text_file.hpp"

namespace tessel::passes {

const std::vector<Pass>& pipeline() {
  // One pass per line, in order.
  // clang-format off
  static const std::vector<Pass> passes = {
      {"inline_launch_values", inline_launch_values},
      {"infer_layouts", infer_layouts},
      {"contract_multiply_adds", contract_multiply_adds},
      {"simplify_scalars", simplify_scalars},
      {"check_transaction_bytes", check_transaction_bytes},
      {"check_arrival_counts", check_arrival_counts},
      {"check_async_copy_waits", check_async_copy_waits},
      {"check_shared_handoffs", check_shared_handoffs},
      {"plan_reductions", plan_reductions},
      {"select_instructions", select_instructions},
      {"choose_swizzles", choose_swizzles},
      {"plan_shared_memory", plan_shared_memory},
      {"plan_tensor_maps", plan_tensor_maps},
      {"allocate_barriers", allocate_barriers},
      {"plan_fast_divmods", plan_fast_divmods},
      {"plan_multiprocessors", plan_multiprocessors},
      {"plan_trace_buffer", plan_trace_buffer},
      {"plan_tensor_memory", plan_tensor_memory},
  };
  // clang-format on
  return passes;
}

namespace {

void dump(const ir::Kernel& k, int index, const char* pass) {
  const char* dir = std::getenv("TESSEL_DUMP_IR");
  if (!dir || !*dir) return;
  std::filesystem::create_directories(dir);
  const auto path = std::filesystem::path(dir) / fmt::format("{}.{:02}.{}.ir", k->name, index, pass);
  if (const std::string reason = write_text_file(path.string(), ir::print(*k)); !reason.empty())
    throw Error(fmt::format("TESSEL_DUMP_IR: cannot write {}: {}", path.string(), reason));
}

}  // namespace

ir::Kernel lower(const ir::Kernel& input, const PassContext& ctx, std::vector<PassTiming>* timings) {
  ir::Kernel k = input;
  dump(k, 0, "traced");
  // What the user can get wrong (scopes, targets, who runs an instruction) is reported on the
  // kernel as traced, before any pass depends on it.
  ir::verify(*k, ctx.arch);
  int index = 1;
  for (const Pass& p : pipeline()) {
    const auto start = std::chrono::steady_clock::now();
    ir::Kernel next = p.run(k, ctx);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool changed = next != k;
    k = next;
    ir::verify(*k, ctx.arch);
    if (changed) dump(k, index, p.name);
    if (timings) timings->push_back({p.name, ms, changed});
    ++index;
  }
  return k;
}

}  // namespace tessel::passes
