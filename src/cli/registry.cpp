#include "tessel/cli/registry.hpp"

#include <algorithm>

namespace tessel::cli {

RunResult KernelEntry::run(const Device& device, const Sizes& sizes, KernelOptions options) const {
  if (!runner)
    throw Error(
        fmt::format("{} has no host reference, so it cannot be run and checked; register it with a check "
                    "function (tessel/cli/registry.hpp)",
                    name));
  if (options.arch.empty() && !device.is_gpu()) options.arch = simulated_target();
  return runner(device, sizes, options);
}

std::string KernelEntry::simulated_target() const {
  for (const std::string& t : targets)
    if (t == "sm_90a") return t;
  return targets.front();
}

std::string KernelEntry::target_for(const std::string& arch) const {
  if (arch.empty()) return simulated_target();
  if (std::find(targets.begin(), targets.end(), arch) == targets.end())
    throw Error(fmt::format("kernel {} is registered for {} only, not {} (KernelInfo::targets)", name,
                            fmt::join(targets, " and "), arch));
  return arch;
}

Sizes KernelEntry::sizes_for(const Sizes& given) const {
  if (given.empty()) return default_sizes;
  if (given.size() != size_names.size())
    throw Error(fmt::format("{} takes {} sizes ({}), {} given", name, size_names.size(), fmt::join(size_names, ", "),
                            given.size()));
  for (size_t i = 0; i < given.size(); ++i)
    if (given[i] < (i < smallest_sizes.size() ? smallest_sizes[i] : 1) || given[i] > (int64_t(1) << 30))
      throw Error(fmt::format("{}: size {} = {} is out of range", name, size_names[i], given[i]));
  return given;
}

KernelEntry& Registry::add(KernelEntry e) {
  if (e.name.empty()) throw Error("a registered kernel needs a name");
  if (e.targets.empty()) throw Error(fmt::format("kernel {} is registered with no targets", e.name));
  if (e.size_names.size() != e.default_sizes.size())
    throw Error(fmt::format("kernel {} is registered with {} size names and {} default sizes", e.name,
                            e.size_names.size(), e.default_sizes.size()));
  for (const KernelEntry& other : entries_)
    if (other.name == e.name) throw Error(fmt::format("a kernel named {} is registered twice", e.name));
  return entries_.emplace_back(std::move(e));
}

const KernelEntry& Registry::find(const std::string& name) const {
  std::vector<std::string> names;
  for (const KernelEntry& e : entries_) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw Error(fmt::format("unknown kernel '{}'; the registered kernels are: {}", name, fmt::join(names, ", ")));
}

}  // namespace tessel::cli
