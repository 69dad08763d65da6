// The command line over a registry of kernels (tessel/cli/main.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "tessel/cli/main.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/passes/pipeline.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel::cli {

namespace {

// A simulated run is one schedule, which proves little about a kernel with asynchronous work:
// says which one it was, and that `check` is the check.
std::string schedule_note(const std::string& program, const KernelEntry& e, const std::vector<int64_t>& sizes,
                          const sim::Options& o) {
  const std::string warps = o.seed == 0 ? "warps in turn" : fmt::format("warps interleaved by seed {}", o.seed);
  std::string order;
  switch (o.completion_order()) {
    case sim::CompletionOrder::Eager: order = "eager"; break;
    case sim::CompletionOrder::Lazy: order = "lazy"; break;
    case sim::CompletionOrder::Seeded: order = "seeded"; break;
  }
  const std::string check = sizes.empty() ? fmt::format("{} check {}", program, e.name)
                                          : fmt::format("{} check {} {}", program, e.name, fmt::join(sizes, " "));
  return fmt::format("one schedule ({} completion, {}); `{}` runs the eager, lazy and seeded ones", order, warps,
                     check);
}

int run_kernel(const std::string& program, const Registry& kernels, const std::string& name, const std::string& device,
               const std::vector<int64_t>& given, bool verbose, const std::string& configuration,
               const std::string& arch, const sim::Options& simulator) {
  const KernelEntry& e = kernels.find(name);
  const Device dev = device.empty() ? Device::default_device() : Device::named(device);
  const auto sizes = e.sizes_for(given);
  KernelOptions opt;
  opt.sim = simulator;
  opt.verbose = verbose;
  opt.configuration = configuration;
  if (!arch.empty()) opt.arch = e.target_for(arch);
  fmt::print("{} on {}\n", e.description, dev.name());
  const RunResult r = e.run(dev, sizes, opt);
  fmt::print("{}\n", r.summary);
  if (!dev.is_gpu()) fmt::print("{}\n", schedule_note(program, e, sizes, simulator));
  if (verbose) {
    const CompileStats& s = r.stats;
    fmt::print("  hyperparameters: {} ({}{})\n  target: {}\n  trace {:.2f} ms, passes {:.2f} ms",
               s.hyperparameters.empty() ? "(none)" : s.hyperparameters, selection_name(s.selection),
               s.candidates > 1 ? fmt::format(", {} candidates", s.candidates) : "", s.arch, s.trace_ms, s.lower_ms);
    if (dev.is_gpu()) {
      fmt::print(", codegen {:.2f} ms, {} {:.2f} ms, module load {:.2f} ms\n", s.codegen_ms,
                 s.from_cache ? "cubin from cache" : "cold NVRTC compile", s.compile_ms, s.load_ms);
      // A second kernel object in this process finds the cubin in the disk cache.
      const RunResult warm = e.run(dev, sizes, opt);
      fmt::print("  warm start (cache hit: {}): cache load {:.2f} ms + module load {:.2f} ms = {:.2f} ms\n",
                 warm.stats.from_cache ? "yes" : "no", warm.stats.compile_ms, warm.stats.load_ms,
                 warm.stats.compile_ms + warm.stats.load_ms);
    } else {
      fmt::print("\n");
    }
  }
  return r.ok ? 0 : 1;
}

int print_ir(const Registry& kernels, const std::string& name, const std::vector<int64_t>& given, bool all,
             const std::string& configuration) {
  const KernelEntry& e = kernels.find(name);
  const auto sizes = e.sizes_for(given);
  if (!all) {
    fmt::print("{}", ir::print(*e.ir(sizes, true, configuration)));
    return 0;
  }
  ir::Kernel k = e.ir(sizes, false, configuration);
  fmt::print("// traced\n{}", ir::print(*k));
  const passes::PassContext ctx{ir::parse_arch(e.simulated_target())};
  for (const passes::Pass& p : passes::pipeline()) {
    ir::Kernel next = p.run(k, ctx);
    if (next != k)
      fmt::print("\n// after {}\n{}", p.name, ir::print(*next));
    else
      fmt::print("\n// {}: no change\n", p.name);
    k = next;
  }
  return 0;
}

int doctor() {
  int problems = 0;
  fmt::print("tessel {}\n", TESSEL_VERSION);
  try {
    fmt::print("NVRTC: {}\n", runtime::nvrtc_version());
    const auto r = runtime::compile_to_cubin({"extern \"C\" __global__ void k() {}", "doctor", "sm_90a", {}, {}});
    fmt::print("NVRTC compile for sm_90a: ok ({} byte cubin, {:.1f} ms)\n", r.cubin.size(), r.milliseconds);
  } catch (const std::exception& ex) {
    fmt::print("NVRTC: FAILED: {}\n", ex.what());
    ++problems;
  }
  auto& d = runtime::CudaDriver::get();
  if (d.available()) {
    const auto info = d.device_info();
    fmt::print("driver: {}.{}\nGPU: {} (sm_{}{}, {} SMs, {:.1f} GiB, {} KiB shared memory per block)\n",
               info.driver_version / 1000, info.driver_version % 1000 / 10, info.name, info.cc_major, info.cc_minor,
               info.sm_count, double(info.total_memory) / (1 << 30), info.max_shared_per_block_optin / 1024);
  } else {
    fmt::print("GPU: none ({}); kernels run on the simulator\n", d.unavailable_reason());
  }
  fmt::print("default device: {}\n", Device::default_device().name());
  const auto dir = runtime::DiskCache::default_dir();
  fmt::print("cache: {} ({} entries)\n", dir.string(), runtime::DiskCache(dir).list().size());
  return problems == 0 ? 0 : 1;
}

}  // namespace

int run(int argc, char** argv, const Registry& kernels) {
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "tessel";
  CLI::App app{"tessel: a tile-level GPU kernel language embedded in C++", program};
  app.require_subcommand(1);

  std::string kernel, device, arch, configuration;  // arch: the kernel's simulated target unless given
  std::vector<int64_t> sizes;
  bool verbose = false, all = false, standalone = false;
  sim::Options simulator;

  auto* run = app.add_subcommand("run", "run a kernel and check it against its host reference");
  run->add_option("kernel", kernel, "a kernel (see `list`)")->required();
  run->add_option("sizes", sizes, "problem sizes (see `list`)");
  run->add_option("--device", device, "sim or gpu (default: gpu when present)");
  run->add_flag("--verbose", verbose, "report compile economics");
  run->add_option("--config", configuration,
                  "hyperparameters to run with, as \"block_n=128, stages=3\" (see `tessel space`); the others are "
                  "tuned");
  run->add_option("--arch", arch,
                  "the target to build for: sm_80, sm_90a or sm_100a (default: the GPU's, or the kernel's simulated "
                  "target on the simulator)");
  run->add_option("--seed", simulator.seed, "simulator interleaving seed (0: round-robin)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return text.starts_with('-') ? fmt::format("a seed is a non-negative integer, got {}", text) : "";
          },
          "SEED"));
  run->add_option("--order", simulator.completion,
                  "when the simulator's asynchronous engines complete their work: eager, lazy or seeded (default: "
                  "lazy with seed 0, seeded otherwise)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, sim::CompletionOrder>{{"eager", sim::CompletionOrder::Eager},
                                                      {"lazy", sim::CompletionOrder::Lazy},
                                                      {"seeded", sim::CompletionOrder::Seeded}}));
  run->add_option("--multiprocessors", simulator.multiprocessors,
                  fmt::format("the simulated device's multiprocessor count (default: {})", simulator.multiprocessors))
      ->check(CLI::Range(1, 1024));
  run->add_option("--resident-clusters", simulator.resident_clusters,
                  fmt::format("groups of blocks resident at once in a kernel that uses cluster launch control "
                              "(default: {})",
                              simulator.resident_clusters))
      ->check(CLI::Range(1, 1 << 20));
  run->add_option("--resident-groups", simulator.resident_groups,
                  "groups of blocks resident at once, their warps interleaved, in a kernel without cluster launch "
                  "control (default: 1, group after group)")
      ->check(CLI::Range(1, 1 << 20));
  bool no_race_check = false;
  run->add_flag("--no-race-check", no_race_check, "run the simulator without race detection");

  auto* irc = app.add_subcommand("ir", "print a kernel's IR");
  irc->add_option("kernel", kernel)->required();
  irc->add_option("sizes", sizes);
  irc->add_flag("--all", all, "print the IR as traced and after each pass");
  // ir, cuda and compile build the first candidate of the kernel's space, or of those --config fixes.
  const std::string pick =
      "hyperparameters to build with, as \"block_n=128, stages=3\" (see `tessel space`); the "
      "others take the first candidate that has these";
  irc->add_option("--config", configuration, pick);

  auto* cuda = app.add_subcommand("cuda", "print the CUDA C++ generated for a kernel");
  cuda->add_option("kernel", kernel)->required();
  cuda->add_option("sizes", sizes);
  cuda->add_option("--arch", arch, "sm_80, sm_90a or sm_100a (default: sm_90a, or the kernel's only target)");
  cuda->add_flag("--standalone", standalone,
                 "inline tessel's device header: one translation unit that nvcc compiles alone");
  cuda->add_option("--config", configuration, pick);

  auto* compile = app.add_subcommand("compile", "compile a kernel to a cubin through the disk cache");
  compile->add_option("kernel", kernel)->required();
  compile->add_option("sizes", sizes);
  compile->add_option("--arch", arch, "sm_80, sm_90a or sm_100a (default: sm_90a, or the kernel's only target)");
  std::string cubin_path;
  compile->add_option("--output", cubin_path, "also write the cubin to this file (for cuobjdump -sass, say)");
  compile->add_option("--config", configuration, pick);

  auto* list = app.add_subcommand("list", "list the kernels");
  auto* doc = app.add_subcommand("doctor", "check the toolkit, NVRTC, driver, GPU and cache");
  const Command tiles = add_tiles_command(app);
  const Command roofline = add_roofline_command(app);
  const Command cache = add_cache_command(app);
  const Command space = add_space_command(app, kernels);
  const Command check = add_check_command(app, kernels);
  const Command aot = add_aot_command(app, kernels);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == int(CLI::ExitCodes::Success)) return app.exit(e);  // --help
    fmt::print(stderr, "error: {} (see {} --help)\n", e.what(), program);
    return 2;
  }
  try {
    simulator.check_races = !no_race_check;
    if (*run) return run_kernel(program, kernels, kernel, device, sizes, verbose, configuration, arch, simulator);
    if (*irc) return print_ir(kernels, kernel, sizes, all, configuration);
    if (*cuda) {
      const KernelEntry& e = kernels.find(kernel);
      const codegen::CudaModule m = e.cuda_module(e.sizes_for(sizes), e.target_for(arch), configuration);
      fmt::print("{}", standalone ? m.standalone_source() : m.source);
      return 0;
    }
    if (*compile) {
      const KernelEntry& e = kernels.find(kernel);
      CompileStats s;
      arch = e.target_for(arch);
      const std::vector<char> cubin = e.compile(e.sizes_for(sizes), arch, configuration, &s);
      fmt::print(
          "{} for {}: {} byte cubin, {} in {:.2f} ms{}\n", e.name, arch, cubin.size(),
          s.from_cache ? "loaded from the cache" : "compiled by NVRTC", s.compile_ms,
          s.registers >= 0 ? fmt::format("; {} registers a thread, {} spill bytes", s.registers, s.spill_bytes) : "");
      if (!cubin_path.empty()) {
        std::ofstream out(cubin_path, std::ios::binary);
        out.write(cubin.data(), std::streamsize(cubin.size()));
        if (!out) throw Error(fmt::format("--output {}: cannot write the cubin there", cubin_path));
        fmt::print("wrote {}\n", cubin_path);
      }
      return 0;
    }
    if (*list) {
      size_t width = 0;
      for (const KernelEntry& e : kernels.entries()) width = std::max(width, e.name.size());
      for (const KernelEntry& e : kernels.entries())
        fmt::print("{:<{}} sizes [{}] (default {})  {}\n", e.name, width, fmt::join(e.size_names, " "),
                   fmt::join(e.default_sizes, " "), e.description);
      return 0;
    }
    if (*doc) return doctor();
    if (*tiles.app) return tiles.run();
    if (*roofline.app) return roofline.run();
    if (*cache.app) return cache.run();
    if (*space.app) return space.run();
    if (*check.app) return check.run();
    if (*aot.app) return aot.run();
  } catch (const tessel::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace tessel::cli
