// Building one candidate of a kernel's space: trace it with the candidate's hyperparameters,
// lower it, check it against the GPU's limits, and compile it.
#include <chrono>

#include "tessel/analysis/kernel_fit.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"
#include "variant.hpp"

namespace tessel::detail {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The first line of a message: a dropped candidate is reported on one line.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<std::pair<std::array<int, 3>, SourceLoc>> printing_blocks(const ir::KernelNode& k) {
  std::vector<std::pair<std::array<int, 3>, SourceLoc>> blocks;
  ir::walk(k.body, [&](const ir::StmtNode& s) {
    if (s.kind == ir::NodeKind::PrintTensor)
      blocks.emplace_back(static_cast<const ir::PrintTensorNode&>(s).block, s.loc);
    else if (s.kind == ir::NodeKind::PrintShared)
      blocks.emplace_back(static_cast<const ir::PrintSharedNode&>(s).block, s.loc);
    else if (s.kind == ir::NodeKind::PrintValues)
      blocks.emplace_back(static_cast<const ir::PrintValuesNode&>(s).block, s.loc);
  });
  return blocks;
}

}  // namespace

// The first requirement (Script::require) that this call's values (put in `values`) do not meet,
// or null.
const ir::Requirement* KernelCore::unmet_requirement(const ir::KernelNode& k, std::span<const HostArg> args,
                                                     std::vector<ir::Scalar>& values) const {
  if (k.requirements.empty()) return nullptr;
  values.resize(k.call_params());
  signature_.run_time_values(args, values);
  for (const ir::Requirement& r : k.requirements)
    if (!ir::evaluate_at_launch(*r.cond, k, values, multiprocessors_).i) return &r;
  return nullptr;
}

// The values that requirement `r` reads ("m = 130, k = 64"), whose arguments go to `arguments`.
std::string KernelCore::describe_unmet(const ir::Requirement& r, const ir::KernelNode& k,
                                       std::span<const ir::Scalar> values, std::vector<size_t>& arguments) const {
  std::vector<std::string> read;
  for (size_t j : ir::call_params_read(*r.cond, k)) {
    arguments.push_back(signature_.argument_of(j));
    const ir::VarNode& p = *k.params[j];
    const ir::Scalar value = values[j];
    read.push_back(fmt::format("{} = {}", p.name,
                               is_float(p.type.dtype) ? fmt::format("{}", value.f) : fmt::format("{}", value.i)));
  }
  return fmt::format("{}", fmt::join(read, ", "));
}

std::unique_ptr<KernelCore::Variant> KernelCore::build(std::span<const HostArg> args, int index,
                                                       const BuildRequest& request, std::string* infeasible) const {
  const analysis::GpuSpec& gpu = *request.gpu;
  auto v = std::make_unique<Variant>();
  const Space::Candidate& config = space_.candidates()[size_t(index)];
  v->hyperparameters = Space::describe(config);
  v->stats.arch = std::string(ir::arch_name(arch_));
  v->stats.hyperparameters = v->hyperparameters;
  try {
    auto t0 = std::chrono::steady_clock::now();
    ir::Kernel k = specialized(trace_(args, config), args);
    v->stats.trace_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    v->kernel = passes::lower(k, passes::PassContext{arch_});
    v->stats.lower_ms = ms_since(t0);
    v->views = views_of_parameters(*v->kernel, signature_);
    v->printing_blocks = printing_blocks(*v->kernel);
    v->dependent_launch = ir::waits_for_prior_grids(*v->kernel);
  } catch (const Error& e) {
    // A tile that does not divide, shared memory over the target's limit: within a space this
    // rules out one candidate; for a single configuration it is the user's to fix. An error that
    // has no line of the user's (a layout whose extents the arguments made 0, say) names the kernel
    // and what it was built for instead.
    if (!request.errors_rule_out) {
      if (e.loc().known() || e.message().starts_with("kernel ")) throw;
      std::vector<std::string> facts;
      for (const std::string& part : {signature_.compile_args(args), v->hyperparameters})
        if (!part.empty()) facts.push_back(part);
      throw Error(fmt::format("kernel {}{}: {}", name_,
                              facts.empty() ? "" : fmt::format(" ({})", fmt::join(facts, "; ")), e.message()));
    }
    *infeasible = first_line(e.what());
    return nullptr;
  }
  const ir::KernelNode& lowered = *v->kernel;
  std::vector<ir::Scalar> values;
  if (request.errors_rule_out)
    if (const ir::Requirement* unmet = unmet_requirement(lowered, args, values)) {
      const std::string read = describe_unmet(*unmet, lowered, values, v->unmet_requirement_arguments);
      *infeasible = fmt::format("{}: {}{}", unmet->loc.str(), unmet->message,
                                read.empty() ? "" : fmt::format(" (this call has {})", read));
      v->unmet_requirement =
          Error(unmet->loc, fmt::format("kernel {}: {}{}", lowered.name, unmet->message,
                                        read.empty() ? "" : fmt::format(" (this launch has {})", read)));
      return v;
    }
  for (const auto& overflow : {analysis::thread_overflow(lowered, gpu), analysis::shared_memory_overflow(lowered, gpu),
                               analysis::tensor_memory_overflow(lowered, gpu)})
    if (overflow) {
      *infeasible = *overflow;
      return v;
    }
  if (!request.compile) return v;
  v->set_binary(runtime::compile_kernel(
      lowered, arch_,
      {.time_limit_s = request.time_limit_s, .require_cached = request.strict, .debug = options_.debug}));
  const int registers = v->binary.resources.registers;
  if (registers > 0)
    if (const auto overflow = analysis::register_overflow(lowered, registers, gpu)) *infeasible = *overflow;
  return v;
}

}  // namespace tessel::detail
