// tessel::Kernel<S>: the front door. Traces a Script, lowers it, tunes it over its space,
// compiles it (GPU) or prepares it (simulator), caches the result per compile-time arguments,
// and launches it with the call's arguments.
#pragma once

#include <array>
#include <iterator>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <typeinfo>

#include "tessel/ir/ir.hpp"
#include "tessel/jit/arguments.hpp"
#include "tessel/jit/kernel_core.hpp"
#include "tessel/lang/script.hpp"
#include "tessel/lang/space.hpp"
#include "tessel/runtime/device.hpp"

namespace tessel {

namespace detail {

std::string kernel_name_of(const std::type_info& t);

template <class F> struct body_traits;
template <class C, class... P> struct body_traits<void (C::*)(P...)> { using params = std::tuple<P...>; };

// A script may name its parameters for the IR and the generated code:
//   static constexpr const char* param_names[] = {"m_size", "n_size", ...};
template <class S> std::string param_name(int index) {
  if constexpr (requires { S::param_names[0]; }) {
    if (index < int(std::size(S::param_names))) return S::param_names[index];
  }
  return fmt::format("arg{}", index);
}

// A script may tune some run-time sizes for each value rather than per power-of-two bucket (a model's
// dimensions, which are few and fixed, where the batch varies):
//   static constexpr const char* exact_sizes[] = {"n", "k"};
template <class S> std::vector<std::string> exact_size_names() {
  if constexpr (requires { S::exact_sizes[0]; })
    return {std::begin(S::exact_sizes), std::end(S::exact_sizes)};
  else
    return {};
}

template <class P> P make_param(const HostArg& a, std::vector<ir::Var>& params, const std::string& name) {
  if constexpr (std::is_same_v<P, int>)
    return int(a.i);
  else if constexpr (std::is_same_v<P, bool>)
    return a.i != 0;
  else {
    const bool pointer = param_traits<P>::spec().kind == ParamSpec::Kind::Pointer;
    ir::Var v = ir::make_var(ir::Type{param_traits<P>::spec().dtype, pointer}, name);
    params.push_back(v);
    return P::bind(v);
  }
}

// Finishes a trace: checks the launch attributes and builds the kernel node.
ir::Kernel finish_trace(Builder& b, Attrs& attrs, const std::string& name, std::vector<ir::Var> params);

}  // namespace detail

template <class S> class Kernel {
  using Params = typename detail::body_traits<decltype(&S::operator())>::params;
  static constexpr size_t N = std::tuple_size_v<Params>;

 public:
  explicit Kernel(Device device = Device::default_device(), KernelOptions options = {})
      : core_(detail::kernel_name_of(typeid(S)), signature(), trace_fn(nullptr), space(), device, std::move(options)) {}
  // A kernel with the hyperparameters `script` holds: its members are the configuration, and the
  // space is not used (KernelOptions::configuration must then be empty).
  explicit Kernel(const S& script, Device device = Device::default_device(),
                  KernelOptions options = {}) requires std::is_copy_constructible_v<S>
      : core_(detail::kernel_name_of(typeid(S)), signature(), trace_fn(std::make_shared<const S>(script)), Space(),
              device, without_configuration(std::move(options))) {}

  template <class... A> void operator()(const A&... args) { core_.launch(pack(args...), nullptr); }
  // Launches on a CUDA stream (a CUstream; ignored by the simulator).
  template <class... A> void launch_on(void* stream, const A&... args) { core_.launch(pack(args...), stream); }
  // Launches with arguments built at run time (the Python module's calls), checked as a C++ call's.
  void launch_args(std::span<const HostArg> args, void* stream) {
    if (args.size() != N)
      throw Error(
          fmt::format("kernel {} takes {} arguments, {} given", detail::kernel_name_of(typeid(S)), N, args.size()));
    core_.launch(args, stream);
  }
  // Its parameters: their names and what each takes.
  static detail::KernelSignature signature() { return signature(std::make_index_sequence<N>{}); }

  template <class... A> ir::Kernel traced(const A&... args) { return core_.traced(pack(args...)); }
  template <class... A> ir::Kernel lowered(const A&... args) { return core_.lowered(pack(args...)); }
  template <class... A> std::string cuda_source(const A&... args) { return core_.cuda_module(pack(args...)).source; }
  // The CUDA C++ with its headers; `.standalone_source()` is one translation unit for nvcc.
  template <class... A> codegen::CudaModule cuda_module(const A&... args) { return core_.cuda_module(pack(args...)); }
  template <class... A> std::vector<char> cubin(const A&... args) { return core_.cubin(pack(args...)); }
  // The variant these arguments select, compiled, for an ahead-of-time launcher class `name`
  // (tessel/aot/exported_kernel.hpp).
  template <class... A> aot::ExportedKernel exported(const std::string& name, const A&... args) {
    return core_.exported(pack(args...), name);
  }
  // Builds every candidate of the space for `gpu` without running any; the kernel's target must
  // be the GPU's (`KernelOptions{.arch}`).
  template <class... A> std::vector<CandidateFit> fit_space(const analysis::GpuSpec& gpu, const A&... args) const {
    return core_.fit_space(pack(args...), gpu);
  }
  const CompileStats& stats() const { return core_.stats(); }
  const Device& device() const { return core_.device(); }
  // The value of the kernel's `multiprocessors` on its device: the GPU's multiprocessor count, or the
  // simulated one (sim::Options::multiprocessors); what a host check of a persistent grid computes with.
  int multiprocessors() const { return core_.multiprocessors(); }
  // The hyperparameter space: S::space(), or one configuration without hyperparameters.
  static Space space() {
    if constexpr (requires { S::space(); })
      return S::space();
    else
      return Space();
  }

 private:
  template <size_t... I> static detail::KernelSignature signature(std::index_sequence<I...>) {
    return detail::KernelSignature(detail::kernel_name_of(typeid(S)),
                                   {detail::param_traits<std::tuple_element_t<I, Params>>::spec()...},
                                   {detail::param_name<S>(int(I))...}, detail::exact_size_names<S>());
  }
  // The call's arguments, on the stack: a call allocates nothing.
  template <class... A> static std::array<HostArg, N> pack(const A&... args) {
    static_assert(sizeof...(A) == N,
                  "a kernel is called with one argument for each parameter of its script's operator() (the "
                  "instantiation below names the script and the arguments given)");
    return {detail::host_arg(args)...};
  }
  // Traces a copy of `prototype`, or of a default script, with the candidate's values set.
  static detail::TraceFn trace_fn(std::shared_ptr<const S> prototype) {
    return [prototype](std::span<const HostArg> args, const Space::Candidate& config) {
      return trace(prototype.get(), args, config, std::make_index_sequence<N>{});
    };
  }
  static KernelOptions without_configuration(KernelOptions options) {
    if (!options.configuration.empty())
      throw Error(
          fmt::format("kernel {}: built from a script object, whose members are the configuration, and given "
                      "KernelOptions::configuration \"{}\" too; set the members on the object instead",
                      detail::kernel_name_of(typeid(S)), options.configuration));
    return options;
  }
  template <size_t... I> static ir::Kernel trace(const S* prototype, std::span<const HostArg> args,
                                                 const Space::Candidate& config, std::index_sequence<I...>) {
    std::optional<S> holder;
    if constexpr (std::is_copy_constructible_v<S>)
      if (prototype) holder.emplace(*prototype);
    if (!holder) holder.emplace();
    S& script = *holder;
    for (const Space::Setting& s : config) s.apply(&script);
    Builder b(&script.attrs);
    std::vector<ir::Var> params;
    // Braced initialization evaluates in order, so parameters are numbered left to right.
    Params values{
        detail::make_param<std::tuple_element_t<I, Params>>(args[I], params, detail::param_name<S>(int(I)))...};
    std::apply([&](auto&&... p) { script(std::move(p)...); }, std::move(values));
    b.throw_deferred();
    return detail::finish_trace(b, script.attrs, detail::kernel_name_of(typeid(S)), std::move(params));
  }

  detail::KernelCore core_;
};

}  // namespace tessel
