// The kernels of one registry as Python sees them: the built-in examples, or a user's shared
// library of kernels (a C++ file with a TESSEL_KERNELS block, compiled by tessel.load).
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

#include "tessel/cli/registry.hpp"

namespace tessel::python {

// One registered kernel for calls from Python: a kernel object per device, built on the first call
// there, which keeps its compiled variants, as a C++ tessel::Kernel does.
class KernelFunction {
 public:
  KernelFunction(const cli::KernelEntry& entry, KernelOptions options);

  // Launches with `args` on the GPU when the arrays are in GPU memory, on `stream` (a CUstream),
  // else on PyTorch's current stream of the first CUDA tensor; on the simulator when they are in
  // host memory.
  void call(nanobind::handle args, std::optional<uintptr_t> stream);
  const std::string& name() const { return entry_->name; }
  const detail::KernelSignature& signature() const { return signature_; }

 private:
  const cli::KernelEntry::Launch& launcher(const Device& device);

  const cli::KernelEntry* entry_;
  detail::KernelSignature signature_;
  KernelOptions options_;
  std::optional<cli::KernelEntry::Launch> on_simulator_, on_gpu_;
};

class KernelLibrary {
 public:
  // The built-in examples (`tessel list`).
  static KernelLibrary examples();
  // A shared library that defines tessel_kernels() (TESSEL_KERNELS); it stays loaded.
  static KernelLibrary open(const std::string& path);

  std::vector<std::string> names() const;
  const cli::KernelEntry& entry(const std::string& name) const { return registry_->find(name); }
  KernelFunction kernel(const std::string& name, const std::string& configuration, const std::string& arch) const;
  // Runs the kernel's registered host check on random inputs, as `tessel check` does: on the
  // simulator under each schedule of sim::adversarial_schedules(seeds), on the GPU once. Returns
  // whether every run matched, and a line per run ("lazy: axpy n=777: PASS" on the simulator).
  std::pair<bool, std::string> check(const std::string& name, const std::string& device,
                                     const std::vector<int64_t>& sizes, int seeds) const;
  const std::string& origin() const { return origin_; }

 private:
  KernelLibrary(const cli::Registry* registry, std::string origin) : registry_(registry), origin_(std::move(origin)) {}

  const cli::Registry* registry_;
  std::string origin_;
};

}  // namespace tessel::python
