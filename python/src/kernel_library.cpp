#include "kernel_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "call_arguments.hpp"
#include "examples.hpp"
#include "tessel/sim/simulator.hpp"

namespace nb = nanobind;

namespace tessel::python {

KernelFunction::KernelFunction(const cli::KernelEntry& entry, KernelOptions options)
    : entry_(&entry), signature_(entry.signature()), options_(std::move(options)) {}

const cli::KernelEntry::Launch& KernelFunction::launcher(const Device& device) {
  std::optional<cli::KernelEntry::Launch>& slot = device.is_gpu() ? on_gpu_ : on_simulator_;
  if (!slot) slot = entry_->launcher(device, options_);
  return *slot;
}

void KernelFunction::call(nb::handle args, std::optional<uintptr_t> stream) {
  const CallArguments arguments(signature_, args);
  const Device device = arguments.memory() == Memory::Gpu    ? Device::gpu()
                        : arguments.memory() == Memory::Host ? Device::simulator()
                                                             : Device::default_device();
  const cli::KernelEntry::Launch& launch = launcher(device);
  void* const on = reinterpret_cast<void*>(stream ? *stream : arguments.default_stream());
  // The simulator may run for seconds and a first call compiles: other Python threads go on.
  nb::gil_scoped_release unlocked;
  launch(arguments.host_args(), on);
}

KernelLibrary KernelLibrary::examples() { return KernelLibrary(&examples::registry(), "the built-in examples"); }

KernelLibrary KernelLibrary::open(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error(fmt::format("cannot load the kernel library {}: {}", path, dlerror()));
  using Kernels = const cli::Registry* (*)();
  auto kernels = reinterpret_cast<Kernels>(dlsym(handle, "tessel_kernels"));
  if (!kernels)
    throw Error(
        fmt::format("{} defines no tessel_kernels(): register its kernels in a TESSEL_KERNELS block "
                    "(tessel/cli/registry.hpp)",
                    path));
  return KernelLibrary(kernels(), path);
}

std::vector<std::string> KernelLibrary::names() const {
  std::vector<std::string> out;
  for (const cli::KernelEntry& e : registry_->entries()) out.push_back(e.name);
  return out;
}

KernelFunction KernelLibrary::kernel(const std::string& name, const std::string& configuration,
                                     const std::string& arch) const {
  // A configuration that no candidate has is refused here, with the message the first call would
  // give, rather than at that call.
  const cli::KernelEntry& e = entry(name);
  if (!configuration.empty() && e.check_configuration) e.check_configuration(configuration);
  KernelOptions options;
  options.arch = arch;
  options.configuration = configuration;
  return KernelFunction(e, std::move(options));
}

std::pair<bool, std::string> KernelLibrary::check(const std::string& name, const std::string& device,
                                                  const std::vector<int64_t>& sizes, int seeds) const {
  const cli::KernelEntry& e = entry(name);
  if (!e.runnable()) throw Error(fmt::format("kernel {} has no host check registered", name));
  if (seeds < 0) throw Error(fmt::format("check: seeds is {}; it counts seeded schedules, 0 or more", seeds));
  const Device d = Device::named(device);
  const cli::Sizes s = e.sizes_for(sizes);
  nb::gil_scoped_release unlocked;
  // A report of a run (a race, a deadlock, a fault) is its result, as `tessel check` prints it.
  const auto run = [&](const KernelOptions& options) -> std::pair<bool, std::string> {
    try {
      const cli::RunResult r = e.run(d, s, options);
      return {r.ok, r.summary};
    } catch (const Error& report) {
      return {false, report.what()};
    }
  };
  if (d.is_gpu()) return run(KernelOptions{});
  bool all = true;
  std::vector<std::string> lines;
  for (const sim::Options& schedule : sim::adversarial_schedules(seeds)) {
    const auto [ok, summary] = run(KernelOptions{.sim = schedule});
    all &= ok;
    lines.push_back(fmt::format("{}: {}", sim::schedule_name(schedule), summary));
  }
  return {all, fmt::format("{}", fmt::join(lines, "\n"))};
}

}  // namespace tessel::python
