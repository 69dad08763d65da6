// `tessel space`: every candidate of a kernel's autotune space built for a GPU that need not be
// here, with its resources and whether it fits (docs/tuning.md).
#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::cli {

namespace {

struct SpaceArgs {
  std::string kernel, gpu;
  std::vector<int64_t> sizes;
};

// The GPU here when there is one, else the H200 the examples are tuned for.
analysis::GpuSpec gpu_of(const std::string& name) {
  if (!name.empty()) return resolve_gpu(name);
  return runtime::CudaDriver::get().available() ? resolve_gpu("device") : analysis::gpu_spec("h200");
}

std::string verdict(const CandidateFit& f) {
  if (!f.feasible) return "dropped: " + f.reason;
  return f.reason.empty() ? "feasible" : "feasible; " + f.reason;
}

int run(const SpaceArgs& args, const Registry& kernels) {
  const KernelEntry& e = kernels.find(args.kernel);
  const std::vector<int64_t> sizes = e.sizes_for(args.sizes);
  const analysis::GpuSpec gpu = gpu_of(args.gpu);
  e.target_for(std::string(ir::arch_name(gpu.target())));  // a target the kernel lacks is refused by name
  std::vector<std::string> named_sizes;
  for (size_t i = 0; i < sizes.size(); ++i) named_sizes.push_back(fmt::format("{}={}", e.size_names[i], sizes[i]));
  fmt::print("{} at {} on {} ({}; {} bytes of shared memory and {} registers per block)\n", e.name,
             fmt::join(named_sizes, " "), gpu.full_name(), ir::arch_name(gpu.target()), gpu.shared_per_block_optin,
             gpu.registers_per_block);
  for (const std::string& n : gpu.notes) fmt::print("  note: {}\n", n);
  for (const std::string& o : e.opt_ins())
    fmt::print("  opt-in, left out of tuning and set by a configuration (--config): {}\n", o);
  std::fflush(stdout);  // before the build's progress on stderr

  const std::vector<CandidateFit> fits = e.fit_space(sizes, gpu);
  size_t width = std::string_view("hyperparameters").size();
  for (const CandidateFit& f : fits) width = std::max(width, f.hyperparameters.size());
  const auto known = [](int64_t value, int64_t unknown) {
    return value == unknown ? std::string("-") : fmt::format("{}", value);
  };
  fmt::print("\n{:<{}}  {:>7}  {:>12}  {:>9}  {:>11}  {}\n", "hyperparameters", width, "threads", "shared bytes",
             "registers", "spill bytes", "verdict");
  int feasible = 0;
  for (const CandidateFit& f : fits) {
    feasible += f.feasible;
    fmt::print("{:<{}}  {:>7}  {:>12}  {:>9}  {:>11}  {}\n", f.hyperparameters.empty() ? "(none)" : f.hyperparameters,
               width, known(f.threads, 0), known(f.shared_bytes, -1), known(f.registers, -1),
               f.registers < 0 ? "-" : fmt::format("{}", f.spill_bytes), verdict(f));
  }
  fmt::print("\n{} feasible of {} candidate{} on {}\n", feasible, fits.size(), fits.size() == 1 ? "" : "s", gpu.name);
  return feasible > 0 ? 0 : 1;
}

}  // namespace

Command add_space_command(CLI::App& app, const Registry& kernels) {
  auto args = std::make_shared<SpaceArgs>();
  CLI::App* sub = app.add_subcommand(
      "space", "build every candidate of a kernel's autotune space for a GPU, without one: what fits, and why not");
  sub->add_option("kernel", args->kernel, "a kernel (see `list`)")->required();
  sub->add_option("sizes", args->sizes, "problem sizes (see `list`)");
  sub->add_option("--gpu", args->gpu, "a100, h100, h200, b200, or device (default: the GPU here, else h200)")
      ->type_name("GPU");
  return {sub, [args, &kernels] { return run(*args, kernels); }};
}

}  // namespace tessel::cli
