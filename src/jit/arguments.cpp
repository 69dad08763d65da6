#include "tessel/jit/arguments.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tessel/error.hpp"

namespace tessel {

std::string HostArg::described() const {
  switch (kind) {
    case Kind::Int: return is_bool ? "a bool" : "an integer";
    case Kind::Float: return "a floating-point value";
    case Kind::Pointer: return void_pointer ? "a void pointer" : fmt::format("a pointer to {}", dtype_name(pointee));
  }
  return "?";
}

}  // namespace tessel

namespace tessel::detail {

namespace {

std::string describe_param(const ParamSpec& p) {
  switch (p.kind) {
    case ParamSpec::Kind::CompileInt: return "a compile-time int";
    case ParamSpec::Kind::CompileBool: return "a compile-time bool";
    case ParamSpec::Kind::Scalar: return fmt::format("a run-time {}", dtype_name(p.dtype));
    case ParamSpec::Kind::Pointer: return fmt::format("a pointer to {}", dtype_name(p.dtype));
  }
  return "?";
}

bool compile_time(const ParamSpec& p) {
  return p.kind == ParamSpec::Kind::CompileInt || p.kind == ParamSpec::Kind::CompileBool;
}

// Whether the integer type `t` has the value `v`. A host integer comes as 64 bits, whose sign a
// uint64_t above 2^63 has lost: the 64-bit types take every such value as its bits.
bool holds(DType t, int64_t v) {
  const int bits = dtype_bits(t);
  if (bits >= 64) return true;
  if (!is_signed(t)) return v >= 0 && v < (int64_t(1) << bits);
  return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
}

bool integer_size(const ParamSpec& p) { return p.kind == ParamSpec::Kind::Scalar && !is_float(p.dtype); }

// Run-time sizes share a tuning result within a power-of-two bucket: 3000 and 4096 tune once.
int64_t size_bucket(int64_t v) {
  if (v <= 1) return v;
  int64_t b = 1;
  while (b < v) b <<= 1;
  return b;
}

// The facts a variant is specialized on: the largest of 16, 8 (integers only) and the element's
// size (pointers) or 1 (integers) that divides the argument. Few classes keep the variants few.
int64_t divisor_fact(const ParamSpec& p, const HostArg& a) {
  if (p.kind == ParamSpec::Kind::Pointer)
    return reinterpret_cast<uintptr_t>(a.p) % 16 == 0 ? 16 : element_alignment(p.dtype);
  if (!integer_size(p) || p.dtype == DType::Bool) return 1;
  return a.i % 16 == 0 ? 16 : a.i % 8 == 0 ? 8 : 1;
}

}  // namespace

KernelSignature::KernelSignature(std::string kernel, std::vector<ParamSpec> params, std::vector<std::string> names,
                                 const std::vector<std::string>& exact_sizes)
    : kernel_(std::move(kernel)), params_(std::move(params)), names_(std::move(names)), exact_(params_.size()) {
  for (const std::string& name : exact_sizes) {
    const auto at = std::find(names_.begin(), names_.end(), name);
    const size_t i = size_t(at - names_.begin());
    if (at == names_.end() || !integer_size(params_[i])) {
      std::vector<std::string> sizes;
      for (size_t j = 0; j < params_.size(); ++j)
        if (integer_size(params_[j])) sizes.push_back(names_[j]);
      throw Error(
          fmt::format("kernel {}: exact_sizes names '{}', which is not one of its run-time integer "
                      "parameters ({})",
                      kernel_, name, sizes.empty() ? "it has none" : fmt::format("{}", fmt::join(sizes, ", "))));
    }
    exact_[i] = true;
  }
}

void KernelSignature::check(std::span<const HostArg> args) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& p = params_[i];
    const HostArg& a = args[i];
    auto fail = [&] {
      throw Error(fmt::format("kernel {}, parameter {} (argument {}): expected {}, got {}", kernel_, names_[i], i,
                              describe_param(p), a.described()));
    };
    switch (p.kind) {
      case ParamSpec::Kind::CompileInt:
        if (a.kind != HostArg::Kind::Int) fail();
        if (a.i < INT32_MIN || a.i > INT32_MAX)
          throw Error(
              fmt::format("kernel {}, parameter {} (argument {}): {} does not fit in the C++ int it is "
                          "compiled with",
                          kernel_, names_[i], i, a.i));
        break;
      case ParamSpec::Kind::CompileBool:
        if (a.kind != HostArg::Kind::Int) fail();
        break;
      case ParamSpec::Kind::Scalar:
        if (a.kind == HostArg::Kind::Pointer || (a.kind == HostArg::Kind::Float && !is_float(p.dtype))) fail();
        if (a.kind == HostArg::Kind::Int && !is_float(p.dtype) && p.dtype != DType::Bool && !holds(p.dtype, a.i))
          throw Error(fmt::format("kernel {}, parameter {} (argument {}): {} does not fit in {}", kernel_, names_[i], i,
                                  a.i, dtype_name(p.dtype)));
        // A finite value beyond f32's range would become an infinity; infinities and NaNs pass as given.
        if (p.dtype == DType::F32 && a.kind == HostArg::Kind::Float && std::isfinite(a.f) &&
            std::fabs(a.f) > double(std::numeric_limits<float>::max()))
          throw Error(fmt::format("kernel {}, parameter {} (argument {}): {} is beyond the range of f32", kernel_,
                                  names_[i], i, a.f));
        break;
      case ParamSpec::Kind::Pointer:
        // Packed elements have no host type of their own: their bytes come as uint8_t.
        if (a.kind == HostArg::Kind::Pointer && is_packed(p.dtype) && !a.void_pointer && a.pointee != DType::U8)
          throw Error(
              fmt::format("kernel {}, parameter {} (argument {}): expected {}, got {}; packed "
                          "elements have no host type of their own and come as their bytes: pass uint8_t "
                          "(Buffer<uint8_t>, a uint8 array from Python), or take the parameter as "
                          "Ptr<uint32_t> and bitcast its words to {} in the kernel",
                          kernel_, names_[i], i, describe_param(p), a.described(), dtype_name(p.dtype)));
        // A tf32 element is an f32 as the tensor cores read it: f32 data is tf32 data.
        if (a.kind != HostArg::Kind::Pointer ||
            (!a.void_pointer && a.pointee != p.dtype && !(is_packed(p.dtype) && a.pointee == DType::U8) &&
             !(p.dtype == DType::TF32 && a.pointee == DType::F32)))
          fail();
        if (!a.row_major)
          throw Error(
              fmt::format("kernel {}, parameter {} (argument {}): the tensor is not contiguous (its strides "
                          "are not row-major for its shape), and a pointer parameter reads its elements in "
                          "row-major order; pass a contiguous copy",
                          kernel_, names_[i], i));
        break;
    }
  }
}

void KernelSignature::check_pointers(std::span<const HostArg> args) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].kind != ParamSpec::Kind::Pointer) continue;
    const DType element = params_[i].dtype;
    const void* p = args[i].p;
    // Built only for a message: every launch checks, and a launch allocates nothing.
    const auto parameter = [&] { return fmt::format("kernel {}, parameter {} (argument {})", kernel_, names_[i], i); };
    if (!p)
      throw Error(
          fmt::format("{}: the pointer is null; pass device memory (a tessel::Buffer, or an allocation of "
                      "the device the kernel runs on)",
                      parameter()));
    if (reinterpret_cast<uintptr_t>(p) % uintptr_t(element_alignment(element)) != 0)
      throw Error(
          fmt::format("{}: the pointer {} is not aligned to its element type {} ({} bytes); pass the address "
                      "of a whole {} element",
                      parameter(), p, dtype_name(element), element_alignment(element), dtype_name(element)));
  }
}

void KernelSignature::variant_key(std::span<const HostArg> args, bool size_buckets, std::vector<int64_t>& out) const {
  out.clear();
  for (size_t i = 0; i < params_.size(); ++i)
    if (compile_time(params_[i]))
      out.push_back(args[i].i);
    else if (size_buckets && integer_size(params_[i]))
      out.push_back(exact_[i] ? args[i].i : size_bucket(args[i].i));
  divisors(args, out);
}

void KernelSignature::divisors(std::span<const HostArg> args, std::vector<int64_t>& out) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (!compile_time(params_[i])) out.push_back(divisor_fact(params_[i], args[i]));
}

std::string KernelSignature::specialization(std::span<const HostArg> args) const {
  std::map<int64_t, std::vector<std::string>> aligned, multiples;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (compile_time(params_[i])) continue;
    const int64_t d = divisor_fact(params_[i], args[i]);
    if (params_[i].kind == ParamSpec::Kind::Pointer) {
      if (d > element_alignment(params_[i].dtype)) aligned[d].push_back(names_[i]);
    } else if (d > 1) {
      multiples[d].push_back(names_[i]);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [d, names] : aligned) parts.push_back(fmt::format("{}: {}-byte aligned", fmt::join(names, ", "), d));
  for (const auto& [d, names] : multiples)
    parts.push_back(
        fmt::format("{}: {} of {}", fmt::join(names, ", "), names.size() == 1 ? "multiple" : "multiples", d));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string KernelSignature::compile_args(std::span<const HostArg> args) const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < params_.size(); ++i)
    if (compile_time(params_[i])) parts.push_back(fmt::format("{}={}", names_[i], args[i].i));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string KernelSignature::size_buckets(std::span<const HostArg> args) const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < params_.size(); ++i)
    if (exact_[i])
      parts.push_back(fmt::format("{}={}", names_[i], args[i].i));
    else if (integer_size(params_[i]))
      parts.push_back(fmt::format("{}<={}", names_[i], size_bucket(args[i].i)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void KernelSignature::run_time_values(std::span<const HostArg> args, std::span<ir::Scalar> out) const {
  size_t n = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& spec = params_[i];
    if (compile_time(spec)) continue;
    TESSEL_CHECK(n < out.size(), "kernel {}: more run-time arguments than its {} parameters", kernel_, out.size());
    const HostArg& a = args[i];
    ir::Scalar& s = out[n++];
    s.i = 0;
    if (spec.kind == ParamSpec::Kind::Pointer)
      s.i = int64_t(reinterpret_cast<uintptr_t>(a.p));
    else if (is_float(spec.dtype))
      s.f = a.kind == HostArg::Kind::Float ? a.f : double(a.i);
    else
      s.i = a.i;
  }
  TESSEL_CHECK(n == out.size(), "kernel {}: {} run-time arguments for {} parameters", kernel_, n, out.size());
}

bool is_row_major(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  // An empty tensor holds no element to misplace, whatever strides its framework gives it.
  if (std::ranges::find(shape, 0) != shape.end()) return true;
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

bool KernelSignature::make_exact(size_t argument) {
  if (!integer_size(params_[argument]) || exact_[argument]) return false;
  exact_[argument] = true;
  return true;
}

size_t KernelSignature::argument_of(size_t index) const {
  size_t run_time = 0;
  for (size_t i = 0; i < params_.size(); ++i)
    if (!compile_time(params_[i]) && run_time++ == index) return i;
  TESSEL_CHECK(false, "kernel {} has no run-time parameter {}", kernel_, index);
}

std::vector<const void*> KernelSignature::pointers(std::span<const HostArg> args) const {
  std::vector<const void*> out;
  for (const HostArg& a : args)
    if (a.kind == HostArg::Kind::Pointer) out.push_back(a.p);
  return out;
}

}  // namespace tessel::detail
