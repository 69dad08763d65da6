// The arguments of a kernel call as the host sees them, the parameters of a kernel's operator(),
// and what the one makes of the other: checks, the key of the variant a call runs, and the
// run-time values a launch passes on.
#pragma once

#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/dtype.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/lang/values.hpp"

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
  // A pointer that came with its extent (a tessel::Tensor or Buffer): the elements a kernel may
  // reach from it, and whether they are on the GPU. -1: a raw pointer, of which nothing is known.
  int64_t span = -1;
  bool on_gpu = false;
  // False for a tensor whose strides are not those of a contiguous row-major tensor of its shape:
  // a pointer parameter would read its elements in the wrong order.
  bool row_major = true;
  std::string described() const;  // "an integer", "a pointer to f32": the C++ value, for messages
};

namespace detail {

// What kind of value each parameter of operator() takes.
struct ParamSpec {
  enum class Kind { CompileInt, CompileBool, Scalar, Pointer } kind;
  DType dtype = DType::I32;  // scalar type, or pointee type of a pointer
};

// The parameters of a kernel's operator(), and what they make of a call's arguments.
class KernelSignature {
 public:
  // `exact_sizes` names the run-time integers tuned for each value rather than per bucket; throws
  // tessel::Error when one names no such parameter.
  KernelSignature(std::string kernel, std::vector<ParamSpec> params, std::vector<std::string> names,
                  const std::vector<std::string>& exact_sizes = {});

  // Throws tessel::Error when an argument does not fit its parameter.
  void check(std::span<const HostArg> args) const;
  // Throws tessel::Error, naming the parameter, when a pointer argument (already checked) is null
  // or not aligned to its element type: a launch must not run with it, on any device.
  void check_pointers(std::span<const HostArg> args) const;
  // What tells apart the variants that calls run, into `out` (reused, so a call allocates
  // nothing): the compile-time arguments, and with `size_buckets` the bucket of each run-time
  // integer (its value where it is an exact size), as sizes in one bucket share a tuning result.
  void variant_key(std::span<const HostArg> args, bool size_buckets, std::vector<int64_t>& out) const;
  // "k=4096": the compile-time arguments.
  std::string compile_args(std::span<const HostArg> args) const;
  // What a variant is specialized on (docs/specialization.md), for each run-time parameter in
  // order: a power of two that divides the argument (a pointer's address, in bytes). A pointer is
  // known 16-byte aligned or only aligned to its element; an integer a multiple of 16, of 8, or
  // nothing. Appended to `out`.
  void divisors(std::span<const HostArg> args, std::vector<int64_t>& out) const;
  // "a, b, c: 16-byte aligned; m, n: multiples of 16": the same facts in words ("" when none).
  std::string specialization(std::span<const HostArg> args) const;
  // "m<=4096, n=14336": the buckets of the run-time integers, and the exact sizes' values.
  std::string size_buckets(std::span<const HostArg> args) const;
  // The run-time arguments as the values of the kernel's parameters, in order; `out` holds one
  // per run-time parameter.
  void run_time_values(std::span<const HostArg> args, std::span<ir::Scalar> out) const;
  // The argument that gives the kernel's run-time parameter `index` (compile-time parameters
  // have none).
  size_t argument_of(size_t index) const;
  // From now on the integer `argument` is tuned for each value, as an exact size is: a requirement
  // that reads it has ruled out a candidate, so calls with other values may need another. Whether
  // that changed anything (a float, or an integer already exact, stays as it is).
  bool make_exact(size_t argument);
  // The pointer arguments, for saving what they point to.
  std::vector<const void*> pointers(std::span<const HostArg> args) const;

  const std::string& kernel() const { return kernel_; }
  const std::vector<ParamSpec>& params() const { return params_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string kernel_;
  std::vector<ParamSpec> params_;
  std::vector<std::string> names_;
  std::vector<bool> exact_;  // per parameter: an integer tuned for each value
};

template <class P> struct param_traits;
template <> struct param_traits<int> {
  static ParamSpec spec() { return {ParamSpec::Kind::CompileInt}; }
};
template <> struct param_traits<bool> {
  static ParamSpec spec() { return {ParamSpec::Kind::CompileBool, DType::Bool}; }
};
template <class T> struct param_traits<Var<T>> {
  static ParamSpec spec() { return {ParamSpec::Kind::Scalar, dtype_v<T>}; }
};
template <class T> struct param_traits<Ptr<T>> {
  static ParamSpec spec() { return {ParamSpec::Kind::Pointer, dtype_v<T>}; }
};

// Whether `strides` (in elements) are those of a contiguous row-major tensor of `shape`; the stride
// of an extent-1 dimension does not matter.
bool is_row_major(std::span<const int64_t> shape, std::span<const int64_t> strides);

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
    if constexpr (std::is_void_v<E>)
      a.void_pointer = true;
    else
      a.pointee = dtype_v<E>;
  } else if constexpr (requires {
                         x.data();
                         x.device();
                         x.span();
                       }) {
    a = host_arg(x.data());
    a.span = x.span();
    a.on_gpu = x.device().is_gpu();
    if constexpr (requires { x.strides(); }) a.row_major = is_row_major(x.shape(), x.strides());
  } else {
    static_assert(sizeof(T) == 0, "kernel arguments are integers, floats, pointers, tessel::Buffer or tessel::Tensor");
  }
  return a;
}

}  // namespace detail
}  // namespace tessel
