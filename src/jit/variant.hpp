// One configuration of a kernel for one set of compile-time arguments: lowered, and on a GPU
// compiled and loaded. Shared by the files of KernelCore.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "tensor_arguments.hpp"
#include "tessel/jit/kernel_core.hpp"
#include "tessel/runtime/kernel_compiler.hpp"
#include "tessel/runtime/loaded_kernel.hpp"
#include "tessel/tuning/tuner.hpp"

namespace tessel::detail {

struct KernelCore::Variant {
  ir::Kernel kernel;
  std::string hyperparameters;
  runtime::KernelBinary binary;
  CompileStats stats;
  std::unique_ptr<runtime::LoadedKernel> loaded;  // GPU only, once chosen or timed
  std::vector<ViewOfParameter> views;             // what a launch checks against the tensors a call passes
  bool spills_reported = false, compiler_warnings_reported = false;
  // The blocks that print statements print from (PrintTensor, PrintShared, PrintValues), with their
  // lines: a launch whose grid lacks one says so once.
  std::vector<std::pair<std::array<int, 3>, SourceLoc>> printing_blocks;
  // Whether the kernel waits for prior grids (grid_dependency.wait()): it is then launched as a
  // programmatic dependent of the kernel before it on its stream.
  bool dependent_launch = false;
  mutable bool absent_printers_reported = false;
  // The arguments read by the requirement this call does not meet (KernelCore::build): the
  // candidate is ruled out, and calls with other values of them are told apart.
  std::vector<size_t> unmet_requirement_arguments;
  std::optional<Error> unmet_requirement;  // that requirement's error, as a launch reports it

  // Records a compiled binary and what compiling it cost.
  void set_binary(runtime::KernelBinary b) {
    binary = std::move(b);
    stats.codegen_ms = binary.codegen_ms;
    stats.compile_ms = binary.compile_ms;
    stats.from_cache = binary.from_cache;
    stats.registers = binary.resources.registers;
    stats.spill_bytes = binary.resources.spill_store_bytes + binary.resources.spill_load_bytes;
  }

  // "name [block_n=128, stages=3]", or the name alone for a kernel without hyperparameters.
  std::string configured(const std::string& kernel_name) const {
    return hyperparameters.empty() ? kernel_name : fmt::format("{} [{}]", kernel_name, hyperparameters);
  }

  // A configuration in use that spills registers runs slowly for no visible reason: says so once on
  // stderr, or refuses it when TESSEL_FAIL_ON_SPILL is set.
  void report_spills(const std::string& kernel_name) {
    const runtime::ResourceUsage& r = binary.resources;
    if (!r.spills() || spills_reported) return;
    spills_reported = true;
    const std::string what =
        fmt::format("kernel {} for {} spills registers ({} bytes spill stores, {} bytes spill loads)",
                    configured(kernel_name), stats.arch, r.spill_store_bytes, r.spill_load_bytes);
    if (tuning::TunerSettings::from_environment().fail_on_spill)
      throw Error(what +
                  " and TESSEL_FAIL_ON_SPILL=1; hold fewer values per thread (smaller register tiles, more "
                  "warps)");
    fmt::print(stderr,
               "tessel: warning: {}; holding fewer values per thread (smaller register tiles, more warps) avoids "
               "it, and TESSEL_FAIL_ON_SPILL=1 makes it an error\n",
               what);
  }

  // What ptxas warned of (a wgmma serialized, which costs much of its speed): said once on stderr,
  // each line under the kernel's name.
  void report_compiler_warnings(const std::string& kernel_name) {
    if (binary.warnings.empty() || compiler_warnings_reported) return;
    compiler_warnings_reported = true;
    std::string lines;
    for (size_t start = 0; start < binary.warnings.size();) {
      size_t end = binary.warnings.find('\n', start);
      if (end == std::string::npos) end = binary.warnings.size();
      lines += fmt::format("tessel: warning: kernel {} for {}: {}\n", configured(kernel_name), stats.arch,
                           binary.warnings.substr(start, end - start));
      start = end + 1;
    }
    fmt::print(stderr, "{}", lines);
  }

  // A print from a block the grid does not have prints nothing: said once, since the grid may lack
  // the block only at some sizes.
  void report_absent_printers(const std::string& kernel_name, const std::array<unsigned, 3>& grid) const {
    if (absent_printers_reported) return;
    for (const auto& [block, loc] : printing_blocks)
      if (unsigned(block[0]) >= grid[0] || unsigned(block[1]) >= grid[1] || unsigned(block[2]) >= grid[2]) {
        absent_printers_reported = true;
        fmt::print(stderr,
                   "{}: tessel: warning: kernel {} prints from block ({}, {}, {}), but this launch's grid is {} x {} "
                   "x {} blocks: nothing is printed\n",
                   loc.str(), kernel_name, block[0], block[1], block[2], grid[0], grid[1], grid[2]);
      }
  }

  // What building a candidate gave, for the tuner: `v` as far as it got (null when it did not
  // lower) and why it cannot run, if it cannot.
  static tuning::BuiltCandidate outcome(const Variant* v, const std::string& infeasible) {
    tuning::BuiltCandidate b;
    b.infeasible = infeasible;
    if (!v) return b;
    const runtime::ResourceUsage& r = v->binary.resources;
    b.registers = r.registers;
    b.spills = r.spills();
    b.spill_report =
        fmt::format("{} bytes spill stores, {} bytes spill loads", r.spill_store_bytes, r.spill_load_bytes);
    b.compile_ms = v->binary.compile_ms;
    return b;
  }
};

}  // namespace tessel::detail
