// Kernels registered with the tessel command line (tessel/cli/main.hpp): the built-in examples and
// a user's own kernels alike. An entry names a kernel and its problem sizes, turns sizes into
// kernel arguments for the commands that only build it (ir, cuda, compile, space), and, where it
// has a host reference, runs it on random inputs and checks the result (run, check).
//
//   tessel::cli::Registry kernels;
//   kernels.add<Saxpy>({"saxpy", "y = a x + y", {"n"}, {4096}},
//                      [](const tessel::cli::Sizes& s) {
//                        float* p = nullptr;  // nothing runs: pointers may be null
//                        return std::make_tuple(int(s[0]), 2.0f, p, p);
//                      },
//                      [](const tessel::Device& dev, const tessel::cli::Sizes& s, tessel::Kernel<Saxpy>& kernel) {
//                        ... random inputs, kernel(...), compare with a host loop ...
//                      });
//   return tessel::cli::run(argc, argv, kernels);
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/ir/ir.hpp"
#include "tessel/jit/kernel.hpp"

namespace tessel::cli {

using Sizes = std::vector<int64_t>;

// The outcome of one checked run.
struct RunResult {
  bool ok = false;
  double max_error = 0;  // the largest error relative to the tolerance's scale
  std::string summary;   // one line: what ran and whether it matched the host reference
  CompileStats stats;
};

// What the command line shows of a kernel: its name, what it computes, and its problem sizes.
struct KernelInfo {
  std::string name, description;
  std::vector<std::string> size_names;
  Sizes default_sizes;
  // The smallest value each size takes, where it is not 1 (a flag such as attention's `causal`
  // takes 0).
  Sizes smallest_sizes;
  // The code-generation targets it exists on (sm_90a-only instructions exist on no other).
  std::vector<std::string> targets = {"sm_80", "sm_90a", "sm_100a"};
};

struct KernelEntry : KernelInfo {
  // Runs on `device` with random inputs and checks against a host reference; on the simulator,
  // for simulated_target() unless `options` name a target. Empty for a kernel without one.
  RunResult run(const Device& device, const Sizes& sizes, KernelOptions options = {}) const;
  bool runnable() const { return bool(runner); }
  // The traced (lowered=false) or lowered IR for the given sizes, for simulated_target(), of the
  // first candidate (of those that `configuration` fixes, if given).
  ir::Kernel ir(const Sizes& sizes, bool lowered, const std::string& configuration = "") const {
    return tracer(sizes, lowered, simulated_target(), configuration);
  }
  // The target the simulator runs it as: sm_90a where it exists, else its first target (sm_100a
  // for Blackwell kernels).
  std::string simulated_target() const;
  // The target a command builds for: `arch` (simulated_target() when empty), refused by name
  // when the kernel is not registered for it.
  std::string target_for(const std::string& arch) const;
  // The sizes given on a command line, checked against size_names, or the defaults when none are.
  Sizes sizes_for(const Sizes& given) const;

  std::function<RunResult(const Device&, const Sizes&, const KernelOptions&)> runner;
  // These build the first candidate of the kernel's space, or of the candidates `configuration`
  // fixes ("block_n=128"; "" for all).
  std::function<ir::Kernel(const Sizes&, bool lowered, const std::string& arch, const std::string& configuration)>
      tracer;
  std::function<codegen::CudaModule(const Sizes&, const std::string& arch, const std::string& configuration)>
      cuda_module;
  std::string cuda(const Sizes& sizes, const std::string& arch) const { return cuda_module(sizes, arch, "").source; }
  // Compiles to a cubin through the disk cache without running; returns the cubin.
  std::function<std::vector<char>(const Sizes&, const std::string& arch, const std::string& configuration,
                                  CompileStats*)>
      compile;
  // Builds every candidate of its space for a GPU, for the GPU's target, without running any.
  std::function<std::vector<CandidateFit>(const Sizes&, const analysis::GpuSpec&)> fit_space;
  // The candidates of its space, each as KernelOptions::configuration takes it.
  std::function<std::vector<std::string>()> configurations;
  // Its opt-in hyperparameters, each as "name: its values" ("early_weights: 0, 1"): tuning leaves
  // them at the script's value, and only a configuration that names one sets it.
  std::function<std::vector<std::string>()> opt_ins;
  // Refuses a configuration that no candidate of its space has, with the message a call would give.
  std::function<void(const std::string& configuration)> check_configuration;
  // The variant the sizes select for `arch` under `configuration` ("" for the tuning database's
  // choice or the first candidate), compiled for an ahead-of-time launcher (tessel aot).
  std::function<aot::ExportedKernel(const Sizes&, const std::string& arch, const std::string& configuration)> exported;
  // Its parameters: names and what each takes, for callers that build arguments at run time.
  std::function<detail::KernelSignature()> signature;
  // A kernel object for `device` and `options` that takes arguments built at run time (the Python
  // module's calls), checked as a C++ call's; launch(arguments, stream).
  using Launch = std::function<void(std::span<const HostArg> arguments, void* stream)>;
  std::function<Launch(const Device&, const KernelOptions&)> launcher;
};

// Fills the entries that build kernel S without running it (ir, cuda_module, compile, fit_space,
// configurations, check_configuration); `arguments` turns sizes into a tuple of kernel arguments (pointers may be
// null).
template <class S, class Arguments> void add_introspection(KernelEntry& e, Arguments arguments) {
  e.tracer = [arguments](const Sizes& s, bool lowered, const std::string& arch, const std::string& configuration) {
    Kernel<S> k(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration});
    return std::apply([&](auto... a) { return lowered ? k.lowered(a...) : k.traced(a...); }, arguments(s));
  };
  e.cuda_module = [arguments](const Sizes& s, const std::string& arch, const std::string& configuration) {
    Kernel<S> k(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration});
    return std::apply([&](auto... a) { return k.cuda_module(a...); }, arguments(s));
  };
  e.compile = [arguments](const Sizes& s, const std::string& arch, const std::string& configuration,
                          CompileStats* stats) {
    Kernel<S> k(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration});
    std::vector<char> cubin = std::apply([&](auto... a) { return k.cubin(a...); }, arguments(s));
    *stats = k.stats();
    return cubin;
  };
  e.exported = [arguments, name = e.name](const Sizes& s, const std::string& arch, const std::string& configuration) {
    Kernel<S> k(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration});
    return std::apply([&](auto... a) { return k.exported(name, a...); }, arguments(s));
  };
  e.signature = [] { return Kernel<S>::signature(); };
  e.launcher = [](const Device& device, const KernelOptions& options) -> KernelEntry::Launch {
    auto kernel = std::make_shared<Kernel<S>>(device, options);
    return [kernel](std::span<const HostArg> arguments, void* stream) { kernel->launch_args(arguments, stream); };
  };
  e.configurations = [] {
    std::vector<std::string> out;
    const Space space = Kernel<S>::space();
    for (const Space::Candidate& c : space.candidates()) out.push_back(Space::describe(c));
    return out;
  };
  e.opt_ins = [] {
    std::vector<std::string> out;
    const Space space = Kernel<S>::space();
    for (const Space::OptIn& o : space.opt_ins())
      out.push_back(fmt::format("{}: {}", o.name, fmt::join(o.values, ", ")));
    return out;
  };
  e.check_configuration = [name = e.name](const std::string& configuration) {
    Kernel<S>::space().configured(configuration, name);
  };
  e.fit_space = [arguments](const Sizes& s, const analysis::GpuSpec& gpu) {
    const Kernel<S> k(Device::simulator(), KernelOptions{std::string(ir::arch_name(gpu.target()))});
    return std::apply([&](auto... a) { return k.fit_space(gpu, a...); }, arguments(s));
  };
}

class Registry {
 public:
  // Registers kernel S. `check`, when given, runs the kernel object it is handed (built for the
  // command's device and options) on random inputs of the given sizes and compares the result with
  // a host reference: RunResult(const Device&, const Sizes&, Kernel<S>&).
  template <class S, class Arguments, class Check = std::nullptr_t>
  KernelEntry& add(KernelInfo info, Arguments arguments, Check check = nullptr) {
    KernelEntry e;
    static_cast<KernelInfo&>(e) = std::move(info);
    add_introspection<S>(e, arguments);
    if constexpr (!std::is_same_v<Check, std::nullptr_t>)
      e.runner = [check](const Device& dev, const Sizes& s, const KernelOptions& options) {
        Kernel<S> kernel(dev, options);
        RunResult r = check(dev, s, kernel);
        r.stats = kernel.stats();
        return r;
      };
    return add(std::move(e));
  }
  // Registers an entry filled by hand; a name already taken is an error.
  KernelEntry& add(KernelEntry e);

  const std::deque<KernelEntry>& entries() const { return entries_; }
  // Throws tessel::Error listing the registered kernels when `name` is not one of them.
  const KernelEntry& find(const std::string& name) const;

 private:
  std::deque<KernelEntry> entries_;  // stable: add() returns a reference
};

}  // namespace tessel::cli

// The kernels of one C++ file, for Python's `tessel.load(file)` and for the file's own `main`:
//
//   TESSEL_KERNELS(kernels) {
//     kernels.add<Saxpy>(...);
//   }
//   int main(int argc, char** argv) { return tessel::cli::run(argc, argv, *tessel_kernels()); }
//
// Defines `tessel_kernels()`, with C linkage so that a shared library of the file can be searched
// for it, which fills a registry with the block's registrations on its first call.
#define TESSEL_KERNELS(registry)                                          \
  static void tessel_register_kernels(::tessel::cli::Registry& registry); \
  extern "C" const ::tessel::cli::Registry* tessel_kernels() {            \
    static const ::tessel::cli::Registry kernels = [] {                   \
      ::tessel::cli::Registry r;                                          \
      tessel_register_kernels(r);                                         \
      return r;                                                           \
    }();                                                                  \
    return &kernels;                                                      \
  }                                                                       \
  static void tessel_register_kernels(::tessel::cli::Registry& registry)
