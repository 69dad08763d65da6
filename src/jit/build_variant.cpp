// Building one candidate of a kernel's space: trace it with the candidate's hyperparameters,
// lower it, check it against the target's limits, and compile it.
#include <chrono>

#include "tessel/ir/target_limits.hpp"
#include "tessel/passes/pipeline.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "variant.hpp"

namespace tessel::detail {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The first line of a message: a dropped candidate is reported on one line.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::unique_ptr<KernelCore::Variant> KernelCore::build(std::span<const HostArg> args, int index, bool compile,
                                                       double time_limit_s, bool strict,
                                                       std::string* infeasible) const {
  auto v = std::make_unique<Variant>();
  const Space::Candidate& config = space_.candidates()[size_t(index)];
  v->hyperparameters = Space::describe(config);
  v->stats.arch = std::string(ir::arch_name(arch_));
  v->stats.hyperparameters = v->hyperparameters;
  ir::Kernel lowered;
  try {
    auto t0 = std::chrono::steady_clock::now();
    ir::Kernel k = trace_(args, config);
    v->stats.trace_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    lowered = passes::lower(k, passes::PassContext{arch_});
    v->stats.lower_ms = ms_since(t0);
  } catch (const Error& e) {
    // With a single configuration the error is the user's to fix; within a space it rules out
    // one candidate (a tile that does not divide, shared memory over the target's limit).
    if (space_.size() == 1) throw;
    *infeasible = first_line(e.what());
    return nullptr;
  }
  v->kernel = lowered;
  const ir::TargetLimits& limits = ir::target_limits(arch_);
  if (lowered->threads() > limits.max_threads_per_block) {
    *infeasible =
        fmt::format("{} threads per block; the limit is {}", lowered->threads(), limits.max_threads_per_block);
    return nullptr;
  }
  if (device_.is_gpu()) {
    const int limit = runtime::CudaDriver::get().device_info().max_shared_per_block_optin;
    if (lowered->shared_bytes > limit) {
      *infeasible = fmt::format("needs {} bytes of shared memory per block; the device allows {}",
                                lowered->shared_bytes, limit);
      return nullptr;
    }
  }
  if (!compile) return v;
  v->set_binary(runtime::compile_kernel(*lowered, arch_, {time_limit_s, strict}));
  const runtime::ResourceUsage& r = v->binary.resources;
  if (r.registers > 0 && int64_t(r.registers) * lowered->threads() > limits.registers_per_block) {
    *infeasible = fmt::format("{} registers x {} threads exceed the {} registers a block may use", r.registers,
                              lowered->threads(), limits.registers_per_block);
    return nullptr;
  }
  return v;
}

}  // namespace tessel::detail
