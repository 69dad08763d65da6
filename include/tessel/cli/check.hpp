// The check of a registered kernel under the simulator's adversarial schedules, as the `check`
// command runs it (docs/simulator.md): each schedule's result or report on a line of its own.
#pragma once

#include <string>

#include "tessel/cli/registry.hpp"

namespace tessel::cli {

// Runs `e` on the simulator with race detection under sim::adversarial_schedules(seeds), each run
// against its host reference, and prints each schedule's summary or report after `indent`; false
// if any failed. One schedule's report can say more than another's (a deadlock under one, the
// unordered read behind it under another), so every schedule runs. A report that every schedule
// gives alike (a configuration the space lacks, a deadlock no order avoids) is thrown once instead.
bool check_under_schedules(const KernelEntry& e, const Sizes& sizes, int seeds, const std::string& configuration,
                           const std::string& indent = "", const std::string& arch = "");

// The same for every candidate of `e`'s space in turn, each whatever the others gave (one that
// cannot run at these sizes, an unmet requirement or too much shared memory, is an error that stops
// it alone), then a summary: 0 when every candidate passes, else 1.
int check_all_candidates(const KernelEntry& e, const Sizes& sizes, int seeds, const std::string& arch = "");

}  // namespace tessel::cli
