// The example kernels, with host references, as the CLI, the tests and the benchmarks use them.
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "tessel/ir/ir.hpp"
#include "tessel/jit/kernel.hpp"

namespace tessel::examples {

struct RunResult {
  bool ok = false;
  double max_error = 0;  // the largest error relative to the tolerance's scale
  std::string summary;   // one line: what ran and whether it matched the host reference
  CompileStats stats;
};

struct Example {
  std::string name, description;
  std::vector<std::string> size_names;
  std::vector<int64_t> default_sizes;
  // The code-generation targets it exists on (sm_90a-only instructions exist on no other).
  std::vector<std::string> targets = {"sm_80", "sm_90a", "sm_100a"};
  // Runs on `device` with random inputs and checks against a host reference; on the simulator,
  // for simulated_target() unless `options` name a target.
  RunResult run(const Device& device, const std::vector<int64_t>& sizes, KernelOptions options = {}) const {
    if (options.arch.empty() && !device.is_gpu()) options.arch = simulated_target();
    return runner(device, sizes, options);
  }
  // The traced (lowered=false) or lowered IR for the given sizes, for simulated_target().
  ir::Kernel ir(const std::vector<int64_t>& sizes, bool lowered) const {
    return tracer(sizes, lowered, simulated_target());
  }
  // The target the simulator runs it as: sm_90a where it exists, else its first target (sm_100a
  // for the Blackwell kernels).
  std::string simulated_target() const {
    for (const std::string& t : targets)
      if (t == "sm_90a") return t;
    return targets.front();
  }

  std::function<RunResult(const Device&, const std::vector<int64_t>&, const KernelOptions&)> runner;
  std::function<ir::Kernel(const std::vector<int64_t>&, bool lowered, const std::string& arch)> tracer;
  std::function<codegen::CudaModule(const std::vector<int64_t>&, const std::string& arch)> cuda_module;
  std::string cuda(const std::vector<int64_t>& sizes, const std::string& arch) const {
    return cuda_module(sizes, arch).source;
  }
  // Compiles to a cubin through the disk cache without running; returns the cubin size.
  std::function<size_t(const std::vector<int64_t>&, const std::string& arch, CompileStats*)> compile;
  // Builds every candidate of its space for a GPU, for the GPU's target, without running any.
  std::function<std::vector<CandidateFit>(const std::vector<int64_t>&, const analysis::GpuSpec&)> fit_space;
  // The candidates of its space, each as KernelOptions::configuration takes it.
  std::function<std::vector<std::string>()> configurations;
};

// Fills the introspection entries (ir, cuda_module, compile, fit_space, configurations) of an example; `args` turns
// its sizes into a tuple of kernel arguments (pointers may be null: nothing runs).
template <class S, class Args> void add_introspection(Example& e, Args args) {
  e.tracer = [args](const std::vector<int64_t>& s, bool lowered, const std::string& arch) {
    Kernel<S> k(Device::simulator(), KernelOptions{arch});
    return std::apply([&](auto... a) { return lowered ? k.lowered(a...) : k.traced(a...); }, args(s));
  };
  e.cuda_module = [args](const std::vector<int64_t>& s, const std::string& arch) {
    Kernel<S> k(Device::simulator(), KernelOptions{arch});
    return std::apply([&](auto... a) { return k.cuda_module(a...); }, args(s));
  };
  e.compile = [args](const std::vector<int64_t>& s, const std::string& arch, CompileStats* stats) {
    Kernel<S> k(Device::simulator(), KernelOptions{arch});
    const size_t bytes = std::apply([&](auto... a) { return k.cubin(a...).size(); }, args(s));
    *stats = k.stats();
    return bytes;
  };
  e.configurations = [] {
    std::vector<std::string> out;
    const Space space = Kernel<S>::space();
    for (const Space::Candidate& c : space.candidates()) out.push_back(Space::describe(c));
    return out;
  };
  e.fit_space = [args](const std::vector<int64_t>& s, const analysis::GpuSpec& gpu) {
    const Kernel<S> k(Device::simulator(), KernelOptions{std::string(ir::arch_name(gpu.target()))});
    return std::apply([&](auto... a) { return k.fit_space(gpu, a...); }, args(s));
  };
}

const std::vector<Example>& all_examples();
// Throws tessel::Error listing the examples when `name` is not one of them.
const Example& find_example(const std::string& name);

// The examples' registrations (one per example file).
Example vector_add_example();
Example row_softmax_example();
Example wide_row_softmax_example();
Example layer_norm_example();
Example dequantize_int4_example();
Example matmul_simt_example();
Example broken_sync_example();
std::vector<Example> ampere_ladder_examples();
std::vector<Example> hopper_ladder_examples();
std::vector<Example> blackwell_ladder_examples();

}  // namespace tessel::examples
