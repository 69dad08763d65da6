// `tessel check <example> [sizes] [--seeds N]`: runs an example on the simulator, with race
// detection, under the eager and lazy completion orders and N seeded ones, each checked against
// the host reference, and stops at the first report.
#include <fmt/format.h>

#include "commands.hpp"

namespace tessel::tools {

namespace {

struct Schedule {
  std::string name;
  sim::Options options;
};

std::vector<Schedule> schedules(int seeds) {
  std::vector<Schedule> all = {{"eager", {.completion = sim::CompletionOrder::Eager}},
                               {"lazy", {.completion = sim::CompletionOrder::Lazy}}};
  for (int seed = 1; seed <= seeds; ++seed)
    all.push_back({fmt::format("seed {}", seed), {.seed = uint64_t(seed), .completion = sim::CompletionOrder::Seeded}});
  return all;
}

}  // namespace

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
                   for (const Schedule& schedule : schedules(parse_count("--seeds", *seeds))) {
                     KernelOptions options;
                     options.sim = schedule.options;
                     const examples::RunResult r = e.run(Device::simulator(), s, options);
                     fmt::print("{:<8} {}\n", schedule.name, r.summary);
                     if (!r.ok) return 1;
                   }
                   return 0;
                 }};
}

}  // namespace tessel::tools
