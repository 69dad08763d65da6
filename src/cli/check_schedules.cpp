#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessel/cli/check.hpp"
#include "tessel/error.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel::cli {

bool check_under_schedules(const KernelEntry& e, const Sizes& sizes, int seeds, const std::string& configuration,
                           const std::string& indent, const std::string& arch) {
  const std::string target = e.target_for(arch);
  // Lines are printed as their schedules end. An error that keeps the kernel from running (a
  // refusal while tracing, a failed requirement, no candidate that can run) is held while every
  // schedule gives the same one, and then thrown once: it is not the schedules'. Errors are the same
  // when their first lines are (a tuning failure's second names its log, a file of each attempt's
  // own). What a run reports is each schedule's result.
  const auto lead = [](std::string_view message) { return message.substr(0, message.find('\n')); };
  std::optional<Error> first_report;
  std::vector<std::string> held;
  bool all_alike = true, all_pass = true;
  const std::vector<sim::Options> schedules = sim::adversarial_schedules(seeds);
  size_t width = 0;  // the names' column
  for (const sim::Options& schedule : schedules) width = std::max(width, sim::schedule_name(schedule).size());
  for (const sim::Options& schedule : schedules) {
    const std::string name = sim::schedule_name(schedule);
    std::string line;
    try {
      KernelOptions options;
      options.sim = schedule;
      options.configuration = configuration;
      options.arch = target;
      const RunResult r = e.run(Device::simulator(), sizes, options);
      all_pass &= r.ok;
      line = fmt::format("{}{:<{}} {}", indent, name, width, r.summary);
    } catch (const Error& error) {
      all_pass = false;
      line = fmt::format("{}{:<{}} error: {}", indent, name, width, error.what());
      const bool ran = dynamic_cast<const sim::RunReport*>(&error) != nullptr;
      if (!ran && all_alike && (!first_report || lead(first_report->what()) == lead(error.what()))) {
        if (!first_report) first_report = error;
        held.push_back(line);
        continue;
      }
    }
    for (const std::string& h : held) fmt::print("{}\n", h);
    held.clear();
    all_alike = false;
    fmt::print("{}\n", line);
  }
  if (all_alike && first_report) throw *first_report;
  return all_pass;
}

int check_all_candidates(const KernelEntry& e, const Sizes& sizes, int seeds, const std::string& arch) {
  const std::vector<std::string> configurations = e.configurations();
  std::vector<size_t> failed, stopped;
  for (size_t i = 0; i < configurations.size(); ++i) {
    fmt::print("[{}/{}] {}\n", i + 1, configurations.size(), configurations[i]);
    try {
      if (!check_under_schedules(e, sizes, seeds, configurations[i], "  ", arch)) failed.push_back(i + 1);
    } catch (const Error& error) {
      fmt::print("  error: {}\n", error.what());
      stopped.push_back(i + 1);
    }
  }
  if (failed.empty() && stopped.empty()) {
    fmt::print("{}: all {} candidates pass\n", e.name, configurations.size());
    return 0;
  }
  const auto numbers = [](const std::vector<size_t>& v) {
    return v.empty() ? std::string("none") : fmt::format("{}", fmt::join(v, ", "));
  };
  fmt::print("{}: {} of {} candidates pass; failed: {}; stopped by an error: {}\n", e.name,
             configurations.size() - failed.size() - stopped.size(), configurations.size(), numbers(failed),
             numbers(stopped));
  return 1;
}

}  // namespace tessel::cli
