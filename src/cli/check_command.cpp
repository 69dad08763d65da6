// `check <kernel> [sizes] [--seeds N] [--arch A] [--config C | --all-candidates]`: runs a registered kernel
// on the simulator, with race detection, under sim::adversarial_schedules (eager, lazy and N
// seeded ones), each checked against the host reference and reported; it fails if any does. By
// default the kernel runs as a call would (its first feasible candidate); --config runs the
// given hyperparameters and --all-candidates every candidate of its space in turn.
#include <fmt/format.h>

#include "commands.hpp"
#include "tessel/cli/check.hpp"

namespace tessel::cli {

Command add_check_command(CLI::App& app, const Registry& kernels) {
  auto* check = app.add_subcommand("check",
                                   "run a kernel on the simulator under adversarial schedules, with race "
                                   "detection, and report each");
  auto kernel = std::make_shared<std::string>();
  auto sizes = std::make_shared<std::vector<int64_t>>();
  auto seeds = std::make_shared<std::string>("3");
  auto configuration = std::make_shared<std::string>();
  auto all_candidates = std::make_shared<bool>(false);
  auto arch = std::make_shared<std::string>();
  check->add_option("kernel", *kernel, "a kernel (see `list`)")->required();
  check->add_option("sizes", *sizes, "problem sizes (see `list`)");
  check->add_option("--seeds", *seeds, "seeded schedules besides eager and lazy (default: 3)");
  auto* config = check->add_option("--config", *configuration,
                                   "hyperparameters to check, as \"block_n=128, stages=3\" (default: the first "
                                   "feasible candidate)");
  check->add_option("--arch", *arch,
                    "the target whose code the simulator runs: sm_80, sm_90a or sm_100a (default: the kernel's "
                    "simulated target)");
  check->add_flag("--all-candidates", *all_candidates, "check every candidate of the kernel's space in turn")
      ->excludes(config);
  return Command{check, [=, &kernels] {
                   const KernelEntry& e = kernels.find(*kernel);
                   const std::vector<int64_t> s = e.sizes_for(*sizes);
                   const int n = parse_count("--seeds", *seeds);
                   if (!*all_candidates) return check_under_schedules(e, s, n, *configuration, "", *arch) ? 0 : 1;
                   return check_all_candidates(e, s, n, *arch);
                 }};
}

}  // namespace tessel::cli
