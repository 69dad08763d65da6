// The adversarial schedules of `tessel check` and of the test suite.
#include <fmt/format.h>

#include "tessel/sim/simulator.hpp"

namespace tessel::sim {

std::vector<Options> adversarial_schedules(int seeds) {
  std::vector<Options> all = {{.completion = CompletionOrder::Eager}, {.completion = CompletionOrder::Lazy}};
  for (int seed = 1; seed <= seeds; ++seed)
    all.push_back({.seed = uint64_t(seed), .completion = CompletionOrder::Seeded});
  if (seeds > 0) all.push_back({.seed = 1, .completion = CompletionOrder::Seeded, .resident_groups = 4});
  return all;
}

std::string schedule_name(const Options& schedule) {
  std::string name;
  switch (schedule.completion_order()) {
    case CompletionOrder::Eager: name = "eager"; break;
    case CompletionOrder::Lazy: name = "lazy"; break;
    case CompletionOrder::Seeded: name = fmt::format("seed {}", schedule.seed); break;
  }
  // Eager and lazy completions still interleave the warps by a seed of their own.
  if (schedule.completion_order() != CompletionOrder::Seeded && schedule.seed != 0)
    name += fmt::format(", warps interleaved by seed {}", schedule.seed);
  if (schedule.resident_groups > 1) name += fmt::format(", {} groups at once", schedule.resident_groups);
  return name;
}

}  // namespace tessel::sim
