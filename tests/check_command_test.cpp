// `tessel check`: every example in the tree passes it (race detection on, eager, lazy and seeded
// schedules, each against its host reference), and a broken one fails with its report.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "expect_error.hpp"
#include "tessel/cli/check.hpp"

namespace tessel {
namespace {

using testing::Cli;
using testing::error_of_call;
using testing::tessel;

// A simulated `tessel run` is one schedule; it names it and points to the check.
TEST(CheckCommand, ASimulatedRunNamesItsScheduleAndPointsToTheCheck) {
  Cli r = tessel("run vector_add 1000 --device sim");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\none schedule (lazy completion, warps in turn); `tessel check vector_add 1000` runs the "
                          "eager, lazy and seeded ones\n"),
            std::string::npos)
      << r.output;
  r = tessel("run vector_add 1000 --device sim --seed 7");
  EXPECT_NE(r.output.find("\none schedule (seeded completion, warps interleaved by seed 7); "), std::string::npos)
      << r.output;
  r = tessel("run vector_add 1000 --device sim --seed -1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--seed: a seed is a non-negative integer, got -1"), std::string::npos) << r.output;
}

TEST(CheckCommandSweep, EveryExamplePassesUnderEveryScheduleWithRaceDetection) {
  for (const cli::KernelEntry& e : examples::registry().entries()) {
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

// A kernel whose lazy schedule alone fails is reported schedule by schedule, as is one whose run
// fails alike under every schedule; an error that keeps it from running under every schedule is
// thrown once.
TEST(CheckCommand, EachScheduleIsReportedAndAReportOfEveryScheduleOnce) {
  cli::KernelEntry e;
  e.name = "flaky";
  e.runner = [](const Device&, const cli::Sizes&, const KernelOptions& o) -> cli::RunResult {
    if (o.sim.completion_order() == sim::CompletionOrder::Lazy) throw Error("k.cpp:3: read in flight");
    return {true, 0, "flaky: PASS", {}};
  };
  ::testing::internal::CaptureStdout();
  const bool passed = cli::check_under_schedules(e, {}, 1, "", "  ");
  EXPECT_FALSE(passed);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "  eager                    flaky: PASS\n  lazy                     error: k.cpp:3: read in flight\n  seed "
            "1                   flaky: PASS\n"
            "  seed 1, 4 groups at once flaky: PASS\n");
  e.runner = [](const Device&, const cli::Sizes&, const KernelOptions&) -> cli::RunResult {
    throw sim::RunReport(Error("k.cpp:5: deadlock"));
  };
  ::testing::internal::CaptureStdout();
  EXPECT_FALSE(cli::check_under_schedules(e, {}, 1, "", "  "));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "  eager                    error: k.cpp:5: deadlock\n  lazy                     error: k.cpp:5: "
            "deadlock\n  seed 1                   error: k.cpp:5: "
            "deadlock\n  seed 1, 4 groups at once error: k.cpp:5: deadlock\n");
  e.runner = [](const Device&, const cli::Sizes&, const KernelOptions&) -> cli::RunResult {
    throw Error("k.cpp:6: kernel K: n must be a multiple of 2 (this launch has n = 3)");
  };
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(error_of_call([&] { cli::check_under_schedules(e, {}, 1, ""); }),
            "k.cpp:6: kernel K: n must be a multiple of 2 (this launch has n = 3)");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  // A tuning failure names a log of its own on its second line: it is the same error all the same.
  int attempt = 0;
  e.runner = [&](const Device&, const cli::Sizes&, const KernelOptions&) -> cli::RunResult {
    throw Error(
        fmt::format("K: none of the 2 candidates can run\nevery candidate's outcome is in k-{}.log", ++attempt));
  };
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(error_of_call([&] { cli::check_under_schedules(e, {}, 1, ""); }),
            "K: none of the 2 candidates can run\nevery candidate's outcome is in k-1.log");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

// A kernel that deadlocks under every schedule fails the check (status 1), schedule by schedule.
TEST(CheckCommand, AKernelThatFailsUnderEveryScheduleFailsTheCheckOnEachLine) {
  const Cli r = tessel("check broken_sync --seeds 1");
  EXPECT_EQ(r.status, 1) << r.output;
  for (const char* schedule : {"eager", "lazy", "seed 1"})
    EXPECT_NE(r.output.find(fmt::format("{:<24} error: ", schedule)), std::string::npos) << r.output;
}

TEST(CheckCommand, AllCandidatesChecksEachCandidateOfTheSpaceUnderEverySchedule) {
  const Cli r = tessel("check blackwell_v0 136 200 40 --all-candidates --seeds 1");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::vector<std::string> configurations = examples::find_example("blackwell_v0").configurations();
  ASSERT_EQ(configurations.size(), 9u);
  for (size_t i = 0; i < configurations.size(); ++i)
    EXPECT_NE(r.output.find(fmt::format("[{}/9] {}\n  eager                    blackwell_v0 136x200x40: PASS", i + 1,
                                        configurations[i])),
              std::string::npos)
        << r.output;
  EXPECT_NE(r.output.find("blackwell_v0: all 9 candidates pass\n"), std::string::npos) << r.output;
}

// A candidate that cannot run, or fails, does not keep the others from being checked.
TEST(CheckCommand, AllCandidatesChecksTheCandidatesAfterOneThatCannotRunOrFails) {
  cli::KernelEntry e;
  e.name = "three";
  e.configurations = [] { return std::vector<std::string>{"block=1", "block=2", "block=3"}; };
  e.runner = [](const Device&, const cli::Sizes&, const KernelOptions& o) -> cli::RunResult {
    if (o.configuration == "block=1") throw Error("k.cpp:4: kernel Three: n must be a multiple of 2");
    if (o.configuration == "block=2" && o.sim.completion_order() == sim::CompletionOrder::Lazy)
      return {false, 0, "three: 1 of 8 wrong", {}};
    return {true, 0, "three: PASS", {}};
  };
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli::check_all_candidates(e, {}, 1), 1);
  const std::string output = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(output.find("[1/3] block=1\n  error: k.cpp:4: kernel Three: n must be a multiple of 2\n[2/3] block=2\n"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("  lazy                     three: 1 of 8 wrong\n"), std::string::npos) << output;
  EXPECT_NE(output.find("[3/3] block=3\n  eager                    three: PASS\n"), std::string::npos) << output;
  EXPECT_NE(output.find("three: 1 of 3 candidates pass; failed: 2; stopped by an error: 1\n"), std::string::npos)
      << output;
}

TEST(CheckCommand, ConfigChecksTheGivenHyperparameters) {
  const Cli r = tessel(
      "check blackwell_v4 136 600 40 --config \"block_n=128, block_k=32, stages=3, swizzle_size=4\" "
      "--seeds 1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("seed 1                   blackwell_v4 136x600x40: PASS"), std::string::npos) << r.output;
}

TEST(CheckCommand, AConfigurationTheSpaceDoesNotHaveIsAnErrorNamingWhatItHas) {
  const std::pair<std::string, std::string> cases[] = {
      {"--config \"block_n=128, warps=8\"",
       "error: kernel BlackwellMatmulV0: configuration \"block_n=128, warps=8\": the space has no hyperparameter "
       "'warps'; it has block_m, block_n, block_k\n"},
      {"--config \"block_k=48\"",
       "error: kernel BlackwellMatmulV0: configuration \"block_k=48\": no candidate of the space has these values "
       "(block_k takes 16, 32, 64)\n"},
      {"--config \"block_k=16, block_k=32\"",
       "error: kernel BlackwellMatmulV0: configuration \"block_k=16, block_k=32\": 'block_k' is given twice; give "
       "each hyperparameter once\n"},
      {"--config \"block_k:48\"",
       "error: kernel BlackwellMatmulV0: configuration \"block_k:48\": 'block_k:48' is not name=value; write the "
       "hyperparameters as \"block_n=128, stages=3\"\n"},
      {"--config \"block_k=16\" --all-candidates", "error: --config excludes --all-candidates (see tessel --help)\n"},
  };
  for (const auto& [options, message] : cases) {
    const Cli r = tessel("check blackwell_v0 " + options);
    EXPECT_EQ(r.status, 2) << options;
    EXPECT_EQ(r.output, message) << options;
  }
}

}  // namespace
}  // namespace tessel
