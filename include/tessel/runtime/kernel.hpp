// tessel::Kernel<S>: traces a Script, lowers it, compiles it (GPU) or prepares it (simulator),
// caches the result per compile-time arguments, and launches it with the call's arguments.
#pragma once

#include <iterator>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <functional>

#include "tessel/ir/ir.hpp"
#include "tessel/lang/script.hpp"
#include "tessel/lang/space.hpp"
#include "tessel/runtime/device.hpp"

namespace tessel::runtime {
struct KernelBinary;
}

namespace tessel {

// One argument of a kernel call as the host sees it. Built on every call, so it holds no strings.
struct HostArg {
  enum class Kind { Int, Float, Pointer } kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  const void* p = nullptr;
  bool is_bool = false;
  bool void_pointer = false;
  DType pointee = DType::F32;  // pointers to tessel element types
  std::string type_name() const;  // the C++ type, for messages
};

struct KernelOptions {
  std::string arch;        // code-generation target; empty: the device's (sm_90a on the simulator)
  uint64_t sim_seed = 0;   // simulator interleaving (0: round-robin)
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

// What kind of value each parameter of operator() takes.
struct ParamSpec {
  enum class Kind { CompileInt, CompileBool, Scalar, Pointer } kind;
  DType dtype = DType::I32;  // scalar type, or pointee type of a pointer
};

using TraceFn = std::function<ir::Kernel(const std::vector<HostArg>& args, const Space::Candidate& config)>;

class KernelCore {
 public:
  KernelCore(std::string name, std::vector<ParamSpec> params, std::vector<std::string> param_names, TraceFn trace,
             Space space, Device device, KernelOptions options);
  ~KernelCore();

  void launch(const std::vector<HostArg>& args, void* stream);
  // The kernel as traced and as lowered for these arguments (the CLI's `ir` command).
  ir::Kernel traced(const std::vector<HostArg>& args);
  ir::Kernel lowered(const std::vector<HostArg>& args);
  std::string cuda_source(const std::vector<HostArg>& args);
  // Compiles to a cubin for the kernel's target through the disk cache, without loading it (no
  // GPU needed); `stats()` then says whether it came from the cache.
  std::vector<char> cubin(const std::vector<HostArg>& args);
  // The variant the last call used (empty before the first call).
  const CompileStats& stats() const;
  const Device& device() const { return device_; }
  const std::string& name() const { return name_; }

 private:
  struct Variant;
  struct Binding {
    std::vector<int64_t> signature;
    Variant* variant;
  };
  // The variant a call runs: found by the call's signature, else selected (maybe by tuning).
  Variant& prepare(const std::vector<HostArg>& args, bool allow_tuning);
  Variant& select(const std::vector<HostArg>& args, bool allow_tuning);
  // Traces, lowers and checks candidate `index` against the device; compiles it when `compile`.
  // Thread-safe. Returns null and sets *infeasible when the candidate cannot run here.
  std::unique_ptr<Variant> build(const std::vector<HostArg>& args, int index, bool compile, double time_limit_s,
                                 bool strict, std::string* infeasible) const;
  Variant& adopt(const std::string& compile_args, std::unique_ptr<Variant> v);
  void load(Variant& v);
  static void set_binary(Variant& v, runtime::KernelBinary binary);
  void launch_variant(const Variant& v, const std::vector<HostArg>& args, void* stream) const;
  void signature(const std::vector<HostArg>& args, std::vector<int64_t>& out) const;
  // "k=4096" (the compile-time arguments), or with `sizes` "m<=4096, n<=4096" (the run-time size
  // buckets that share a tuning result).
  std::string describe_call(const std::vector<HostArg>& args, bool sizes) const;
  void check_args(const std::vector<HostArg>& args) const;

  std::string name_;
  std::vector<ParamSpec> params_;
  std::vector<std::string> param_names_;
  TraceFn trace_;
  Space space_;
  Device device_;
  KernelOptions options_;
  ir::Arch arch_;
  std::string launch_label_;  // "kernel <name>", for launch errors without building it per call
  std::map<std::string, std::unique_ptr<Variant>> variants_;  // by compile-time args and hyperparameters
  std::vector<Binding> bindings_;
  std::vector<int64_t> call_signature_;  // scratch, reused by every call
  const Variant* last_ = nullptr;
};

std::string kernel_name_of(const std::type_info& t);

template <class F> struct body_traits;
template <class C, class... P> struct body_traits<void (C::*)(P...)> { using params = std::tuple<P...>; };

template <class P> struct param_traits;
template <> struct param_traits<int> { static ParamSpec spec() { return {ParamSpec::Kind::CompileInt}; } };
template <> struct param_traits<bool> { static ParamSpec spec() { return {ParamSpec::Kind::CompileBool, DType::Bool}; } };
template <class T> struct param_traits<Var<T>> { static ParamSpec spec() { return {ParamSpec::Kind::Scalar, dtype_v<T>}; } };
template <class T> struct param_traits<Ptr<T>> { static ParamSpec spec() { return {ParamSpec::Kind::Pointer, dtype_v<T>}; } };

// A script may name its parameters for the IR and the generated code:
//   static constexpr const char* param_names[] = {"m_size", "n_size", ...};
template <class S> std::string param_name(int index) {
  if constexpr (requires { S::param_names[0]; }) {
    if (index < int(std::size(S::param_names))) return S::param_names[index];
  }
  return fmt::format("arg{}", index);
}

template <class P> P make_param(const HostArg& a, std::vector<ir::Var>& params, const std::string& name) {
  if constexpr (std::is_same_v<P, int>) return int(a.i);
  else if constexpr (std::is_same_v<P, bool>) return a.i != 0;
  else {
    const bool pointer = param_traits<P>::spec().kind == ParamSpec::Kind::Pointer;
    ir::Var v = ir::make_var(ir::Type{param_traits<P>::spec().dtype, pointer}, name);
    params.push_back(v);
    return P::bind(v);
  }
}

template <class X> HostArg host_arg(const X& x) {
  using T = std::remove_cvref_t<X>;
  HostArg a;
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
    a.kind = HostArg::Kind::Int;
    a.i = int64_t(x);
    a.is_bool = std::is_same_v<T, bool>;
  } else if constexpr (std::is_floating_point_v<T>) {
    a.kind = HostArg::Kind::Float;
    a.f = double(x);
  } else if constexpr (std::is_pointer_v<T>) {
    a.kind = HostArg::Kind::Pointer;
    a.p = x;
    using E = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_void_v<E>) a.void_pointer = true;
    else a.pointee = dtype_v<E>;
  } else if constexpr (requires { x.data(); x.device(); }) {
    return host_arg(x.data());
  } else {
    static_assert(sizeof(T) == 0, "kernel arguments are integers, floats, pointers or tessel::Buffer");
  }
  return a;
}

// Finishes a trace: checks the launch attributes and builds the kernel node.
ir::Kernel finish_trace(Builder& b, Attrs& attrs, const std::string& name, std::vector<ir::Var> params);

}  // namespace detail

template <class S> class Kernel {
  using Params = typename detail::body_traits<decltype(&S::operator())>::params;
  static constexpr size_t N = std::tuple_size_v<Params>;

 public:
  explicit Kernel(Device device = Device::default_device(), KernelOptions options = {})
      : core_(detail::kernel_name_of(typeid(S)), specs(std::make_index_sequence<N>{}),
              names(std::make_index_sequence<N>{}), trace_fn(), space(), device, std::move(options)) {}

  template <class... A> void operator()(const A&... args) { core_.launch(pack(args...), nullptr); }
  // Launches on a CUDA stream (a CUstream; ignored by the simulator).
  template <class... A> void launch_on(void* stream, const A&... args) { core_.launch(pack(args...), stream); }

  template <class... A> ir::Kernel traced(const A&... args) { return core_.traced(pack(args...)); }
  template <class... A> ir::Kernel lowered(const A&... args) { return core_.lowered(pack(args...)); }
  template <class... A> std::string cuda_source(const A&... args) { return core_.cuda_source(pack(args...)); }
  template <class... A> std::vector<char> cubin(const A&... args) { return core_.cubin(pack(args...)); }
  const CompileStats& stats() const { return core_.stats(); }
  const Device& device() const { return core_.device(); }

 private:
  template <size_t... I> static std::vector<detail::ParamSpec> specs(std::index_sequence<I...>) {
    return {detail::param_traits<std::tuple_element_t<I, Params>>::spec()...};
  }
  template <size_t... I> static std::vector<std::string> names(std::index_sequence<I...>) {
    return {detail::param_name<S>(int(I))...};
  }
  static Space space() {
    if constexpr (requires { S::space(); }) return S::space();
    else return Space();
  }
  template <class... A> static std::vector<HostArg> pack(const A&... args) {
    if (sizeof...(A) != N)
      throw Error(fmt::format("kernel {} takes {} arguments, {} given", detail::kernel_name_of(typeid(S)), N,
                              sizeof...(A)));
    return {detail::host_arg(args)...};
  }
  static detail::TraceFn trace_fn() {
    return [](const std::vector<HostArg>& args, const Space::Candidate& config) {
      return trace(args, config, std::make_index_sequence<N>{});
    };
  }
  template <size_t... I>
  static ir::Kernel trace(const std::vector<HostArg>& args, const Space::Candidate& config, std::index_sequence<I...>) {
    S script;
    for (const Space::Setting& s : config) s.apply(&script);
    Builder b(&script.attrs);
    std::vector<ir::Var> params;
    // Braced initialization evaluates in order, so parameters are numbered left to right.
    Params values{detail::make_param<std::tuple_element_t<I, Params>>(args[I], params, detail::param_name<S>(int(I)))...};
    std::apply([&](auto&&... p) { script(std::move(p)...); }, std::move(values));
    b.throw_deferred();
    return detail::finish_trace(b, script.attrs, detail::kernel_name_of(typeid(S)), std::move(params));
  }

  detail::KernelCore core_;
};

}  // namespace tessel
