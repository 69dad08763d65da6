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

#include "tessel/ir/ir.hpp"
#include "tessel/jit/arguments.hpp"
#include "tessel/lang/space.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel {

struct KernelOptions {
  std::string arch;        // code-generation target; empty: the device's (sm_90a on the simulator)
  // The simulator's run: interleaving seed, completion order of asynchronous work, blocks run
  // together (sim::Options).
  sim::Options sim;
  bool verbose = false;    // print compile economics and dropped tuning candidates to stderr
  // Replaces GPU timing while tuning, on any device: the median time of the candidate with these
  // hyperparameters. Tests use it to tune on the simulator.
  std::function<double(const std::string& hyperparameters)> tuning_timer;
};

// How the hyperparameters of a call were chosen.
enum class Selection {
  Only,           // the kernel has a single configuration
  Tuned,          // timed every candidate in this process
  FromDatabase,   // a tuning result recorded for this GPU
  FirstFeasible,  // TESSEL_TUNE=off, or a device that cannot time (the simulator)
};
std::string_view selection_name(Selection s);

// What it cost to get a kernel ready, for `tessel run --verbose` and the benchmarks.
struct CompileStats {
  double trace_ms = 0, lower_ms = 0, codegen_ms = 0, compile_ms = 0, load_ms = 0;
  bool from_cache = false;  // the cubin came from the disk cache
  std::string arch, hyperparameters;
  Selection selection = Selection::Only;
  int candidates = 1;           // in the space
  double tuning_wall_ms = 0;    // Tuned: the whole search
  int registers = -1;           // per thread, from ptxas (GPU only)
  int spill_bytes = 0;          // spill stores + loads
};

namespace detail {

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
  std::string cuda_source(std::span<const HostArg> args);
  // Compiles to a cubin for the kernel's target through the disk cache, without loading it (no
  // GPU needed); `stats()` then says whether it came from the cache.
  std::vector<char> cubin(std::span<const HostArg> args);
  // The variant the last call used (empty before the first call).
  const CompileStats& stats() const;
  const Device& device() const { return device_; }
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
  // Traces, lowers and checks candidate `index` against the target; compiles it when `compile`.
  // Thread-safe. Returns null and sets *infeasible when the candidate cannot run here.
  std::unique_ptr<Variant> build(std::span<const HostArg> args, int index, bool compile, double time_limit_s,
                                 bool strict, std::string* infeasible) const;
  // Keeps a built variant for the rest of the kernel's life, loaded on the GPU.
  Variant& adopt(const std::string& compile_args, std::unique_ptr<Variant> v);
  void load(Variant& v) const;
  void launch_variant(const Variant& v, std::span<const HostArg> args, void* stream) const;

  std::string name_;
  KernelSignature signature_;
  TraceFn trace_;
  Space space_;
  Device device_;
  KernelOptions options_;
  ir::Arch arch_;
  int multiprocessors_;  // the device's, read once: a launch does not ask the driver
  std::map<std::string, std::unique_ptr<Variant>> variants_;  // by compile-time args and hyperparameters
  std::vector<Binding> bindings_;
  std::vector<int64_t> call_key_;  // scratch, reused by every call
  const Variant* last_ = nullptr;
};

}  // namespace detail
}  // namespace tessel
