// Subcommands of the tessel command that live in their own files: each registers its options on
// the app and returns how to run it once the command line is parsed.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/cli/registry.hpp"

namespace tessel::cli {

struct Command {
  CLI::App* app = nullptr;  // the subcommand: true when it was given
  std::function<int()> run;
};

Command add_tiles_command(CLI::App& app);                           // tiles_command.cpp
Command add_roofline_command(CLI::App& app);                        // roofline_command.cpp
Command add_cache_command(CLI::App& app);                           // cache_command.cpp
Command add_space_command(CLI::App& app, const Registry& kernels);  // space_command.cpp
Command add_check_command(CLI::App& app, const Registry& kernels);  // check_command.cpp
Command add_aot_command(CLI::App& app, const Registry& kernels);    // aot_command.cpp

// Option values are taken as text and parsed here, so that bad input is a tessel::Error (one
// line, exit code 2) like every other user error of the command (command_args.cpp).
// A table key ("a100") or "device": the live GPU.
analysis::GpuSpec resolve_gpu(const std::string& name);
int parse_count(std::string_view option, const std::string& text);        // a positive integer
double parse_positive(std::string_view option, const std::string& text);  // positive and finite

}  // namespace tessel::cli
