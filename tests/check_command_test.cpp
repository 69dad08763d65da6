// `tessel check`: every example in the tree passes it (race detection on, eager, lazy and seeded
// schedules, each against its host reference), and a broken one fails with its report.
#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"

namespace tessel {
namespace {

using testing::Cli;
using testing::tessel;

TEST(CheckCommand, EveryExamplePassesUnderEveryScheduleWithRaceDetection) {
  for (const examples::Example& e : examples::all_examples()) {
    if (e.name == "broken_sync") continue;
    const Cli r = tessel("check " + e.name + " --seeds 2");
    EXPECT_EQ(r.status, 0) << e.name << ":\n" << r.output;
    EXPECT_NE(r.output.find("seed 2"), std::string::npos) << r.output;
  }
}

TEST(CheckCommand, ABrokenExampleFailsWithItsReport) {
  const Cli r = tessel("check broken_sync");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("broken_sync.cpp:20: deadlock in block (0, 0, 0) of kernel BrokenSync"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tessel
