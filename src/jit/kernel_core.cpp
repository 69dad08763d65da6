// KernelCore's front: the variants it keeps, the binding of calls to them, and the entry points
// of Kernel<S>. Building, selecting and launching a variant have their own files.
#include "tessel/jit/kernel_core.hpp"

#include <chrono>
#include <cstdlib>
#include <string_view>

#include "gpu_timeline.hpp"
#include "scratch_buffers.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/runtime/cache_key.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/loaded_kernel.hpp"
#include "tessel/tuning/tuner.hpp"
#include "variant.hpp"

namespace tessel {

std::string_view selection_name(Selection s) {
  switch (s) {
    case Selection::Only: return "the only configuration";
    case Selection::Tuned: return "tuned";
    case Selection::FromDatabase: return "from the tuning database";
    case Selection::FirstFeasible: return "first feasible candidate";
    case Selection::Configured: return "as configured";
  }
  return "?";
}

}  // namespace tessel

namespace tessel::detail {

namespace {

// A GPU without a target of its own (a later one than tessel knows) runs sm_80 code, which the
// driver compiles for it from PTX (runtime::module_image).
ir::Arch arch_of_device(const Device& d) {
  if (!d.is_gpu()) return ir::Arch::Sm90a;
  return runtime::native_target(runtime::CudaDriver::get().device_info()).value_or(ir::Arch::Sm80);
}

// What a candidate must fit: the target's limits, and on a GPU the device's own opt-in shared
// memory (a GPU may allow less than its target).
analysis::GpuSpec limits_of(const Device& d, ir::Arch arch) {
  analysis::GpuSpec limits = analysis::target_spec(arch);
  if (d.is_gpu()) {
    const auto info = runtime::CudaDriver::get().device_info();
    limits.name = info.name;
    limits.shared_per_block_optin = info.max_shared_per_block_optin;
  }
  return limits;
}

// TESSEL_DEBUG=1 turns debug mode on for every kernel of the process.
KernelOptions with_environment(KernelOptions options) {
  const char* v = std::getenv("TESSEL_DEBUG");
  if (v && *v && std::string_view(v) != "0" && std::string_view(v) != "off") options.debug = true;
  return options;
}

int multiprocessors_of_device(const Device& d, const sim::Options& sim) {
  if (d.is_gpu()) return runtime::CudaDriver::get().device_info().sm_count;
  if (sim.multiprocessors < 1)
    throw Error(fmt::format("sim::Options::multiprocessors is {}; the simulated device needs at least one",
                            sim.multiprocessors));
  return sim.multiprocessors;
}

}  // namespace

KernelCore::KernelCore(std::string name, KernelSignature signature, TraceFn trace, Space space, Device device,
                       KernelOptions options)
    : name_(std::move(name)),
      signature_(std::move(signature)),
      trace_(std::move(trace)),
      space_(options.configuration.empty() ? std::move(space) : space.configured(options.configuration, name_)),
      device_(device),
      options_(with_environment(std::move(options))),
      arch_(options_.arch.empty() ? arch_of_device(device_) : ir::parse_arch(options_.arch)),
      device_limits_(limits_of(device_, arch_)),
      multiprocessors_(multiprocessors_of_device(device_, options_.sim)),
      scratch_(std::make_unique<ScratchBuffers>(device_)),
      timeline_(std::make_unique<GpuTimeline>(device_)) {}

KernelCore::~KernelCore() = default;

const CompileStats& KernelCore::stats() const {
  static const CompileStats none;
  return last_ ? last_->stats : none;
}

ir::Kernel KernelCore::specialized(ir::Kernel k, std::span<const HostArg> args) const {
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->param_divisors.clear();
  signature_.divisors(args, out->param_divisors);
  // Scratch buffers are allocated with cuMemAlloc's alignment (ScratchBuffers).
  out->param_divisors.resize(out->params.size(), 1);
  for (size_t i = 0; i < out->derived_params.size(); ++i)
    if (out->derived_params[i].is_scratch()) out->param_divisors[out->call_params() + i] = 256;
  return out;
}

KernelCore::Variant& KernelCore::adopt(const std::string& variant_args, std::unique_ptr<Variant> v) {
  const std::string key = variant_args + "|" + v->hyperparameters;
  auto it = variants_.find(key);
  if (it == variants_.end()) it = variants_.emplace(key, std::move(v)).first;
  load(*it->second);
  return *it->second;
}

void KernelCore::load(Variant& v) const {
  if (v.loaded || !device_.is_gpu()) return;
  const auto t0 = std::chrono::steady_clock::now();
  v.loaded = std::make_unique<runtime::LoadedKernel>(v.binary, *v.kernel);
  v.stats.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool KernelCore::make_exact(const std::vector<size_t>& arguments) {
  bool changed = false;
  for (size_t a : arguments) changed |= signature_.make_exact(a);
  if (changed) bindings_.clear();  // their keys hold the buckets of what is now exact
  return changed;
}

KernelCore::Variant& KernelCore::prepare(std::span<const HostArg> args, bool allow_tuning) {
  signature_.check(args);
  signature_.variant_key(args, space_.size() > 1, call_key_);
  for (size_t i = bindings_.size(); i-- > 0;) {
    if (bindings_[i].key != call_key_) continue;
    Variant& bound = *bindings_[i].variant;
    // Another call of the size bucket chose `bound`; where this call does not meet one of its
    // requirements (one that reads a hyperparameter), the values it reads tell the calls apart
    // from now on, and this call chooses among the candidates that meet them.
    std::vector<size_t> read;
    if (space_.size() > 1)
      if (const ir::Requirement* unmet = unmet_requirement(*bound.kernel, args, requirement_values_))
        describe_unmet(*unmet, *bound.kernel, requirement_values_, read);
    if (!read.empty() && make_exact(read)) {
      signature_.variant_key(args, true, call_key_);
      break;
    }
    last_ = &bound;
    return bound;
  }
  Variant& v = select(args, allow_tuning);
  last_ = &v;
  v.report_spills(name_);
  v.report_compiler_warnings(name_);
  const CompileStats& s = v.stats;
  if (options_.verbose)
    fmt::print(stderr,
               "tessel: kernel {} for {} ({}): trace {:.2f} ms, passes {:.2f} ms, codegen {:.2f} ms, {} {:.2f} ms, "
               "module load {:.2f} ms{}\n",
               v.configured(name_), s.arch, selection_name(s.selection), s.trace_ms, s.lower_ms, s.codegen_ms,
               s.from_cache ? "cache load" : "NVRTC compile", s.compile_ms, s.load_ms,
               s.registers >= 0 ? fmt::format(", {} registers, {} spill bytes", s.registers, s.spill_bytes) : "");
  // Only calls that may tune are remembered: an introspection call must not pin an untuned choice.
  // The key again: selecting may have made sizes exact (KernelSignature::make_exact).
  signature_.variant_key(args, space_.size() > 1, call_key_);
  if (allow_tuning || space_.size() == 1) bindings_.push_back({call_key_, &v});
  return v;
}

std::string KernelCore::code_digest(std::span<const HostArg> args) const {
  runtime::CacheKey digest("tessel-traced-code-v1");
  for (const Space::Candidate& c : space_.candidates()) {
    try {
      digest.add(ir::print(*trace_(args, c)));
    } catch (const Error& e) {
      digest.add(e.message());
    }
  }
  return digest.digest();
}

std::string KernelCore::problem_label(std::span<const HostArg> args) const {
  const std::string compile_args = signature_.compile_args(args), sizes = signature_.size_buckets(args);
  if (compile_args.empty() || sizes.empty()) return fmt::format("{} ({}{})", name_, compile_args, sizes);
  return fmt::format("{} ({}, {})", name_, compile_args, sizes);
}

ir::Kernel KernelCore::traced(std::span<const HostArg> args) {
  signature_.check(args);
  return specialized(trace_(args, space_.candidates().front()), args);
}

ir::Kernel KernelCore::lowered(std::span<const HostArg> args) { return prepare(args, false).kernel; }

codegen::CudaModule KernelCore::cuda_module(std::span<const HostArg> args) {
  return codegen::emit_cuda(*prepare(args, false).kernel, arch_, {.debug = options_.debug});
}

std::vector<char> KernelCore::cubin(std::span<const HostArg> args) {
  Variant& v = prepare(args, false);
  if (v.binary.cubin.empty()) {  // the simulator prepares kernels without compiling them
    // Under the time limit and the strict cache of every other compile.
    const tuning::TunerSettings settings = tuning::TunerSettings::from_environment();
    v.set_binary(runtime::compile_kernel(
        *v.kernel, arch_,
        {.time_limit_s = settings.compile_time_limit_s, .require_cached = settings.strict, .debug = options_.debug}));
    v.report_spills(name_);
    v.report_compiler_warnings(name_);
  }
  last_ = &v;
  return v.binary.cubin;
}

aot::ExportedKernel KernelCore::exported(std::span<const HostArg> args, const std::string& name) {
  aot::ExportedKernel e;
  e.name = name;
  e.cubin = cubin(args);
  const Variant& v = prepare(args, false);
  e.kernel = v.kernel;
  e.ptx = v.binary.ptx;
  e.symbol = v.binary.symbol;
  e.arch = std::string(ir::arch_name(arch_));
  std::vector<std::string> facts;
  for (const std::string& part : {signature_.compile_args(args), v.hyperparameters, signature_.specialization(args)})
    if (!part.empty()) facts.push_back(part);
  e.compiled_for = fmt::format("{}", fmt::join(facts, "; "));
  for (const ViewOfParameter& view : v.views) e.checked_views.push_back({view.view, view.param});
  return e;
}

void KernelCore::launch(std::span<const HostArg> args, void* stream) {
  const Variant& v = prepare(args, true);
  ++calls_;
  launch_variant(v, args, stream);
  if (options_.debug && device_.is_gpu()) wait_for_call(v, calls_, stream);
}

}  // namespace tessel::detail
