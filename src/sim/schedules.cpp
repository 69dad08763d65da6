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
  switch (schedule.completion_order()) {
    case CompletionOrder::Eager: return "eager";
    case CompletionOrder::Lazy: return "lazy";
    case CompletionOrder::Seeded:
      return schedule.resident_groups > 1
                 ? fmt::format("seed {}, {} groups at once", schedule.seed, schedule.resident_groups)
                 : fmt::format("seed {}", schedule.seed);
  }
  return "";
}

}  // namespace tessel::sim
