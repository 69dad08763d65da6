// The non-template half of tessel::Kernel<S>: for each call, the variant of the kernel it runs
// (found by its compile-time arguments, else traced, lowered, tuned over the kernel's space and
// compiled), then its launch on the GPU or the simulator.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/aot/exported_kernel.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/ir.hpp"
#include "tessel/jit/arguments.hpp"
#include "tessel/lang/space.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel {

struct KernelOptions {
  std::string arch;  // code-generation target; empty: the device's (sm_90a on the simulator)
  // The simulator's run: interleaving seed, completion order of asynchronous work, blocks run
  // together (sim::Options).
  sim::Options sim;
  bool verbose = false;  // print compile economics and dropped tuning candidates to stderr
  // Hyperparameters fixed for this kernel, as "block_n=128, stages=3": only the candidates of its
  // space with these values are built (Space::configured); naming all of them picks one.
  std::string configuration;
  // Debug mode on the GPU (docs/debugging.md), also turned on by TESSEL_DEBUG=1: mbarrier waits
  // that do not end and global accesses outside their allocation are reported with the user's
  // line, and every launch is waited for, so that a fault names the kernel and the call. A debug
  // call does not tune: it runs a recorded tuning result, else the first feasible candidate.
  bool debug = false;
  // Replaces GPU timing while tuning, on any device: the median time of the candidate with these
  // hyperparameters. Tests use it to tune on the simulator.
  std::function<double(const std::string& hyperparameters)> tuning_timer;
};

// How the hyperparameters of a call were chosen.
enum class Selection {
  Only,           // the kernel has a single configuration
  Tuned,          // timed every candidate in this process
  FromDatabase,   // a tuning result recorded for this GPU
  FirstFeasible,  // TESSEL_TUNE=off, a device that cannot time (the simulator), or debug mode
  Configured,     // KernelOptions::configuration leaves a single candidate
};
std::string_view selection_name(Selection s);

// What it cost to get a kernel ready, for `tessel run --verbose` and the benchmarks.
struct CompileStats {
  double trace_ms = 0, lower_ms = 0, codegen_ms = 0, compile_ms = 0, load_ms = 0;
  bool from_cache = false;  // the cubin came from the disk cache
  std::string arch, hyperparameters;
  Selection selection = Selection::Only;
  int candidates = 1;         // in the space
  double tuning_wall_ms = 0;  // Tuned: the whole search
  int registers = -1;         // per thread, from ptxas (GPU only)
  int spill_bytes = 0;        // spill stores + loads
};

// One candidate of a kernel's space built for a GPU that need not be present (`tessel space`):
// traced, lowered for the GPU's target, compiled by NVRTC through the disk cache, and checked
// against the GPU's per-block limits.
struct CandidateFit {
  std::string hyperparameters;
  bool feasible = false;
  std::string reason;         // why it was dropped; for a feasible one, a spill note or ""
  int threads = 0;            // per block; 0 when it did not lower
  int64_t shared_bytes = -1;  // per block; -1 when it did not lower
  int registers = -1;         // per thread, from ptxas; -1 when it was not compiled
  int spill_bytes = 0;        // spill stores + loads
};

namespace detail {

class ScratchBuffers;
class GpuTimeline;

using TraceFn = std::function<ir::Kernel(std::span<const HostArg> args, const Space::Candidate& config)>;

class KernelCore {
 public:
  KernelCore(std::string name, KernelSignature signature, TraceFn trace, Space space, Device device,
             KernelOptions options);
  ~KernelCore();

  void launch(std::span<const HostArg> args, void* stream);
  // The kernel as traced and as lowered for these arguments (the CLI's `ir` command).
  ir::Kernel traced(std::span<const HostArg> args);
  ir::Kernel lowered(std::span<const HostArg> args);
  // The generated CUDA C++ and its headers.
  codegen::CudaModule cuda_module(std::span<const HostArg> args);
  // Compiles to a cubin for the kernel's target through the disk cache, without loading it (no
  // GPU needed); `stats()` then says whether it came from the cache.
  std::vector<char> cubin(std::span<const HostArg> args);
  // The variant these arguments select, compiled, for an ahead-of-time launcher class `name`.
  aot::ExportedKernel exported(std::span<const HostArg> args, const std::string& name);
  // Builds every candidate of the space for `gpu`, whose target must be the kernel's, on the
  // compile threads (TESSEL_TUNE_WORKERS), without loading or running any.
  std::vector<CandidateFit> fit_space(std::span<const HostArg> args, const analysis::GpuSpec& gpu) const;
  // The variant the last call used (empty before the first call).
  const CompileStats& stats() const;
  const Device& device() const { return device_; }
  int multiprocessors() const { return multiprocessors_; }
  const std::string& name() const { return name_; }

 private:
  struct Variant;
  struct Binding {
    std::vector<int64_t> key;
    Variant* variant;
  };
  // The variant a call runs: found by the call's variant key, else selected (maybe by tuning).
  Variant& prepare(std::span<const HostArg> args, bool allow_tuning);
  // Builds the candidates of the space and picks one: the only one, a recorded tuning result,
  // the fastest, or the first that builds.
  Variant& select(std::span<const HostArg> args, bool allow_tuning);
  // How a candidate is built: the GPU whose limits it must fit, whether it is compiled, and
  // whether a trace or lowering error rules it out (within a space) or is thrown as the user's
  // to fix (a single configuration that is called).
  struct BuildRequest {
    const analysis::GpuSpec* gpu = nullptr;
    bool compile = false;
    double time_limit_s = 0;
    bool strict = false;  // a compile-cache miss is an error
    bool errors_rule_out = true;
  };
  // Traces and lowers candidate `index`, checks it against the GPU's limits, and compiles it when
  // asked. Thread-safe. Sets *infeasible when the candidate cannot run on the GPU; returns the
  // variant as far as it got (null when it did not lower).
  std::unique_ptr<Variant> build(std::span<const HostArg> args, int index, const BuildRequest& request,
                                 std::string* infeasible) const;
  // Script::require against a call: the first requirement it does not meet (null when none), with
  // the call's parameter values put in `values`; and the values that one reads ("m = 130"), whose
  // arguments go to `arguments`.
  const ir::Requirement* unmet_requirement(const ir::KernelNode& k, std::span<const HostArg> args,
                                           std::vector<ir::Scalar>& values) const;
  std::string describe_unmet(const ir::Requirement& r, const ir::KernelNode& k, std::span<const ir::Scalar> values,
                             std::vector<size_t>& arguments) const;
  // Makes `arguments` exact sizes (KernelSignature::make_exact), forgetting the bindings whose
  // keys held their buckets; whether anything changed.
  bool make_exact(const std::vector<size_t>& arguments);
  // A digest of every candidate's traced code for these arguments (a trace error's message for one
  // that does not trace), without source locations: editing a kernel's body changes it, editing
  // the lines above the kernel does not.
  std::string code_digest(std::span<const HostArg> args) const;
  // "MatmulV5 (m<=256, n<=256, k=96)": the kernel and the call's compile-time arguments and size
  // buckets, for progress lines and errors.
  std::string problem_label(std::span<const HostArg> args) const;
  // The traced kernel `k` with what the call's arguments tell about its parameters (their
  // divisors), which the code generator may rely on.
  ir::Kernel specialized(ir::Kernel k, std::span<const HostArg> args) const;
  // Keeps a built variant for the rest of the kernel's life, loaded on the GPU, under the call's
  // compile-time arguments and specialization.
  Variant& adopt(const std::string& variant_args, std::unique_ptr<Variant> v);
  void load(Variant& v) const;
  void launch_variant(const Variant& v, std::span<const HostArg> args, void* stream) const;
  // Debug mode on the GPU: waits for call number `call` of variant `v` on `stream`; a fault in it
  // is an error naming the kernel and the call.
  void wait_for_call(const Variant& v, uint64_t call, void* stream) const;

  std::string name_;
  KernelSignature signature_;
  std::vector<ir::Scalar> requirement_values_;  // a launch's for unmet_requirement, reused
  TraceFn trace_;
  Space space_;
  Device device_;
  KernelOptions options_;
  ir::Arch arch_;
  analysis::GpuSpec device_limits_;  // what a candidate must fit on this device (see limits_of)
  int multiprocessors_;              // the device's, read once: a launch does not ask the driver
  std::map<std::string, std::unique_ptr<Variant>> variants_;  // by compile-time args and hyperparameters
  std::vector<Binding> bindings_;
  std::vector<int64_t> call_key_;            // scratch, reused by every call
  uint64_t calls_ = 0;                       // launches so far, for debug mode's errors
  std::unique_ptr<ScratchBuffers> scratch_;  // the kernel's global_scratch buffers, a set per stream
  std::unique_ptr<GpuTimeline> timeline_;    // its timeline buffer, while TESSEL_TRACE asks for one
  const Variant* last_ = nullptr;
};

}  // namespace detail
}  // namespace tessel
