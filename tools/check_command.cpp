// `tessel check <example> [sizes] [--seeds N]`: runs an example on the simulator, with race
// detection, under sim::adversarial_schedules (eager, lazy and N seeded ones), each checked
// against the host reference, and stops at the first report.
#include <fmt/format.h>

#include "commands.hpp"

namespace tessel::tools {

Command add_check_command(CLI::App& app) {
  auto* check = app.add_subcommand("check", "run an example on the simulator under adversarial schedules, with race "
                                            "detection, and stop at the first report");
  auto example = std::make_shared<std::string>();
  auto sizes = std::make_shared<std::vector<int64_t>>();
  auto seeds = std::make_shared<std::string>("3");
  check->add_option("example", *example, "an example (see `tessel list`)")->required();
  check->add_option("sizes", *sizes, "problem sizes (see `tessel list`)");
  check->add_option("--seeds", *seeds, "seeded schedules besides eager and lazy (default: 3)");
  return Command{check, [=] {
                   const examples::Example& e = examples::find_example(*example);
                   const std::vector<int64_t> s = sizes_for(e, *sizes);
                   for (const sim::Options& schedule : sim::adversarial_schedules(parse_count("--seeds", *seeds))) {
                     const examples::RunResult r = e.run(Device::simulator(), s, KernelOptions{.sim = schedule});
                     fmt::print("{:<8} {}\n", sim::schedule_name(schedule), r.summary);
                     if (!r.ok) return 1;
                   }
                   return 0;
                 }};
}

}  // namespace tessel::tools
