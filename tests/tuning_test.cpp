// The autotuner's logic with fake build and timing steps: spaces and constraints, pruning,
// failures that do not stop the others, spills, the all-failed error, and ptxas's report.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tuning/tuner.hpp"

namespace tessel {
namespace {

using tuning::CandidateOutcome;

struct Tile : Script {
  int block_m = 64, block_n = 64, stages = 2;
  static Space space() {
    return (tune("block_m, block_n", {&Tile::block_m, &Tile::block_n}, {{64, 64}, {128, 64}, {64, 128}, {128, 128}}) *
            tune("stages", &Tile::stages, {2, 3, 4}))
        .where<Tile>([](const Tile& t) { return t.block_m * t.block_n * t.stages <= 128 * 64 * 3; });
  }
  void operator()(Int32 n) {}
};

TEST(Spaces, ProductAndWhereEnumerateInOrder) {
  const Space s = Tile::space();
  // 12 combinations; the constraint drops 128x128 with every stage count and 128x64 / 64x128 at 4 stages.
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(Space::describe(s.candidates()[0]), "block_m=64, block_n=64, stages=2");
  EXPECT_EQ(Space::describe(s.candidates()[6]), "block_m=64, block_n=128, stages=3");
}

TEST(Spaces, AConstraintThatRemovesEverythingIsAnError) {
  const int line = __LINE__ + 2;
  try {
    (void)tune("stages", &Tile::stages, {2, 3}).where<Tile>([](const Tile&) { return false; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}:{}: where: the constraint removes every one of the 2 candidates of "
                          "the space",
                          __FILE__, line));
  }
}

TEST(Spaces, AConfigurationKeepsTheCandidatesWithItsValues) {
  const Space s = Tile::space();
  const Space stages3 = s.configured("stages=3", "Tile");
  ASSERT_EQ(stages3.size(), 3u);
  for (const Space::Candidate& c : stages3.candidates()) EXPECT_TRUE(Space::describe(c).ends_with("stages=3"));
  const Space one = s.configured(" block_n = 128,block_m=64, stages=3 ", "Tile");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(Space::describe(one.candidates()[0]), "block_m=64, block_n=128, stages=3");
}

// An opt-in stays at the script's value in every candidate the tuner times; a configuration that
// names it sets it on each candidate it keeps.
struct Dependent : Script {
  int block = 64, early = 0;
  static Space space() {
    return tune("block", &Dependent::block, {64, 128}) * opt_in("early", &Dependent::early, {0, 1});
  }
  void operator()(Int32 n) {}
};

TEST(Spaces, AnOptInIsSetOnlyByAConfiguration) {
  const Space s = Dependent::space();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(Space::describe(s.candidates()[1]), "block=128");
  const Space early = s.configured("early=1", "Dependent");
  ASSERT_EQ(early.size(), 2u);
  EXPECT_EQ(Space::describe(early.candidates()[0]), "block=64, early=1");
  Dependent script;
  for (const Space::Setting& setting : early.candidates()[1]) setting.apply(&script);
  EXPECT_EQ(script.block, 128);
  EXPECT_EQ(script.early, 1);
  EXPECT_EQ(Space::describe(s.configured("block=64, early=0", "Dependent").candidates().at(0)), "block=64, early=0");
  EXPECT_EQ(Space::describe(early.configured("early=0", "Dependent").candidates().at(1)), "block=128, early=0");
  EXPECT_EQ(
      Space::describe(opt_in("early", &Dependent::early, {0, 1}).configured("early=1", "Dependent").candidates().at(0)),
      "early=1");
  EXPECT_EQ(tessel::testing::error_of_call([&] { (void)s.configured("early=2", "Dependent"); }),
            "kernel Dependent: configuration \"early=2\": early takes 0, 1");
  EXPECT_EQ(tessel::testing::error_of_call([&] { (void)s.configured("early=1, early=0", "Dependent"); }),
            "kernel Dependent: configuration \"early=1, early=0\": 'early' is given twice; give each hyperparameter "
            "once");
  EXPECT_EQ(tessel::testing::error_of_call([&] { (void)s.configured("late=1", "Dependent"); }),
            "kernel Dependent: configuration \"late=1\": the space has no hyperparameter 'late'; it has block, early");
  EXPECT_EQ(tessel::testing::error_of_call([&] { (void)(s * opt_in("early", &Dependent::early, {1})); }),
            "hyperparameter 'early' is tuned twice in one space; tune each member once");
}

std::string configuration_error(const std::string& configuration) {
  try {
    (void)Tile::space().configured(configuration, "Tile");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The candidates of a temporary space are a value: a range-for over them outlives the space.
static_assert(std::is_same_v<decltype(Space().candidates()), std::vector<Space::Candidate>>);
static_assert(
    std::is_same_v<decltype(std::declval<const Space&>().candidates()), const std::vector<Space::Candidate>&>);

// Each block fills its `block` elements of the output with the value of `block`.
struct FillWithBlock : Script {
  int block = 64;
  static Space space() { return tune("block", &FillWithBlock::block, {64, 128}); }
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = 1;
    store_global(global_view(out, {n}), register_tensor<int32_t>({block}, block), {blockIdx.x * block});
  }
};

TEST(Spaces, AScriptObjectIsTheConfigurationOfItsKernel) {
  FillWithBlock script;
  script.block = 32;  // a value the space does not have
  Kernel<FillWithBlock> kernel(script, Device::simulator());
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(100, -1));
  kernel(100, out);
  for (int32_t v : out.download()) EXPECT_EQ(v, 32);
  EXPECT_EQ(kernel.stats().selection, Selection::Only);
  try {
    Kernel<FillWithBlock> both(script, Device::simulator(), KernelOptions{.configuration = "block=64"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel FillWithBlock: built from a script object, whose members are the configuration, and given "
              "KernelOptions::configuration \"block=64\" too; set the members on the object instead");
  }
}

TEST(Spaces, AConfigurationTheSpaceCannotMeetIsAnErrorSayingWhatItHas) {
  EXPECT_EQ(configuration_error("stages=3, warps=4"),
            "kernel Tile: configuration \"stages=3, warps=4\": the space has no hyperparameter 'warps'; it has "
            "block_m, block_n, stages");
  // 128 x 128 is in no candidate: the constraint dropped it.
  EXPECT_EQ(configuration_error("block_m=128, block_n=128"),
            "kernel Tile: configuration \"block_m=128, block_n=128\": no candidate of the space has these values "
            "(block_m takes 64, 128; block_n takes 64, 128)");
  EXPECT_EQ(configuration_error("stages=x"),
            "kernel Tile: configuration \"stages=x\": 'stages=x' is not name=value; "
            "write the hyperparameters as \"block_n=128, stages=3\"");
  EXPECT_EQ(configuration_error("block_m=64,"),
            "kernel Tile: configuration \"block_m=64,\": '' is not name=value; "
            "write the hyperparameters as \"block_n=128, stages=3\"");
  try {
    (void)Space().configured("block=64", "Plain");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "kernel Plain: configuration \"block=64\": the kernel has no hyperparameters to set (its script has "
                 "no static space()); tune 'block' by giving it a space (docs/tuning.md), or build the Kernel from a "
                 "script object whose member holds the value");
  }
}

std::vector<std::string> names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(fmt::format("block={}", 32 << i));
  return out;
}

tuning::TunerSettings quiet(int workers = 4) {
  tuning::TunerSettings s;
  s.workers = workers;
  return s;
}

std::filesystem::path log_dir() { return std::filesystem::temp_directory_path() / "tessel-tuning-test-logs"; }

TEST(Tuner, PicksTheFastestAndRecordsWhyOthersWereDropped) {
  tuning::TuningSteps steps;
  steps.build = [](int i) {
    tuning::BuiltCandidate b;
    if (i == 1) b.infeasible = "needs 262144 bytes of shared memory per block; the device allows 232448";
    if (i == 2) throw Error("NVRTC failed to compile kernel 'k' for sm_90a:\nerror: boom");
    b.registers = 40 + i;
    return b;
  };
  const double times[] = {3.0, 0, 0, 1.5, 2.0, 0.75};
  steps.time = [&](int i) { return times[i]; };
  steps.time_once = steps.time;
  const tuning::TuneResult r = tuning::tune("k (n<=4096)", names(6), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 5);
  EXPECT_EQ(r.outcomes[1].status, CandidateOutcome::Status::Infeasible);
  EXPECT_EQ(r.outcomes[1].message, "needs 262144 bytes of shared memory per block; the device allows 232448");
  EXPECT_EQ(r.outcomes[2].status, CandidateOutcome::Status::Failed);
  EXPECT_EQ(r.outcomes[2].message, "NVRTC failed to compile kernel 'k' for sm_90a:\nerror: boom");
  EXPECT_EQ(r.outcomes[3].status, CandidateOutcome::Status::Timed);
  EXPECT_DOUBLE_EQ(r.outcomes[3].median_ms, 1.5);
  EXPECT_EQ(r.outcomes[4].registers, 44);
}

TEST(Tuner, EveryCandidateNearTheFastestFirstTimingIsTimedAgain) {
  // First timings within 10% of the fastest make candidates 0 to 3 finalists; in the final rounds
  // (one run each, ten rounds), 3 is the fastest by its median, although one of its runs was the
  // slowest of all. Candidate 4 is 30% slower at first and is not run again.
  const double first[] = {1.0, 1.02, 1.04, 1.06, 1.3};
  const double again[] = {1.1, 1.1, 1.1, 1.0, 0.5};
  std::array<int, 5> runs{};
  std::vector<int> order;
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [&](int i) { return first[i]; };
  steps.time_once = [&](int i) {
    order.push_back(i);
    return runs[size_t(i)]++ == 4 && i == 3 ? 9.0 : again[i];
  };
  const tuning::TuneResult r = tuning::tune("k", names(5), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 3);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(runs[size_t(i)], 10) << i;
  EXPECT_EQ(runs[4], 0);
  // The rounds alternate their direction.
  EXPECT_EQ(std::vector<int>(order.begin(), order.begin() + 8), (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0}));
  EXPECT_DOUBLE_EQ(r.outcomes[3].median_ms, 1.0);
  EXPECT_DOUBLE_EQ(r.outcomes[4].median_ms, 1.3);
}

TEST(Tuner, FinalistsWithinTwoPercentOfTheFastestRunTwentyRoundsMore) {
  // After the ten final rounds, 0 (1.00) leads 1 (1.01) by 1%, within the runs' spread: both run
  // twenty rounds more, in which 1 runs at 0.98, and 1 wins by the median of all its 30 runs.
  // 2 is 5% slower than 0 and is not run again.
  const double first[] = {1.0, 1.01, 1.05, 1.5};
  std::array<int, 4> runs{};
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [&](int i) { return first[i]; };
  steps.time_once = [&](int i) {
    const int run = runs[size_t(i)]++;
    return i == 1 && run >= 10 ? 0.98 : first[i];
  };
  const tuning::TuneResult r = tuning::tune("k", names(4), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 1);
  EXPECT_EQ(runs, (std::array<int, 4>{30, 30, 10, 0}));
  EXPECT_DOUBLE_EQ(r.outcomes[1].median_ms, 0.98);
  EXPECT_DOUBLE_EQ(r.outcomes[0].median_ms, 1.0);
}

TEST(Tuner, AFinalistThatFailsWhenTimedAgainIsOutAndNamed) {
  // 0 is the fastest at first and fails on its third run in the final rounds: it is out, with the
  // error, and 1 wins; 2 fails on its first final run, and 3 is not a finalist.
  const double first[] = {1.0, 1.05, 1.06, 1.5};
  std::array<int, 4> runs{};
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [&](int i) { return first[i]; };
  steps.time_once = [&](int i) -> double {
    const int run = runs[size_t(i)]++;
    if ((i == 0 && run == 2) || i == 2) throw Error(fmt::format("launch {} of candidate {} failed", run, i));
    return first[i];
  };
  const tuning::TuneResult r = tuning::tune("k", names(4), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 1);
  EXPECT_EQ(runs, (std::array<int, 4>{3, 10, 1, 0}));
  EXPECT_EQ(r.outcomes[0].status, CandidateOutcome::Status::Failed);
  EXPECT_EQ(r.outcomes[0].message, "failed when timed again: launch 2 of candidate 0 failed");
  EXPECT_EQ(r.outcomes[2].message, "failed when timed again: launch 0 of candidate 2 failed");
  EXPECT_EQ(r.outcomes[3].status, CandidateOutcome::Status::Timed);
}

TEST(Tuner, WhenEveryFinalistFailsWhenTimedAgainTheFastestOfTheOthersWins) {
  const double first[] = {1.0, 1.01, 1.02, 1.5, 1.4};
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [&](int i) { return first[i]; };
  steps.time_once = [&](int i) -> double { throw Error(fmt::format("candidate {} failed", i)); };
  const tuning::TuneResult r = tuning::tune("k", names(5), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 4);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.outcomes[size_t(i)].status, CandidateOutcome::Status::Failed) << i;
}

// After a fault or a run that never finishes, the GPU can run nothing more in the process: every
// later candidate would fail alike, or wait forever. Tuning stops at the candidate that caused it
// and names it; it starts no more builds.
TEST(Tuner, ACandidateThatFaultsOnTheGpuStopsTheTuningNamingIt) {
  // The builds after the first two wait until candidate 1 is timed, and then take a while each.
  std::atomic<int> builds = 0;
  std::atomic<bool> faulted = false;
  std::array<int, 40> timed{};
  tuning::TuningSteps steps;
  steps.build = [&](int i) {
    ++builds;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (i >= 2 && !faulted && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (i >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return tuning::BuiltCandidate{};
  };
  steps.time = [&](int i) -> double {
    ++timed[size_t(i)];
    faulted = faulted || i == 1;
    if (i == 1)
      throw runtime::CudaError(CUDA_ERROR_ILLEGAL_ADDRESS,
                               "CUDA driver call cuEventQuery failed for a timed run: CUDA_ERROR_ILLEGAL_ADDRESS: an "
                               "illegal memory access was encountered");
    return 1.0;
  };
  steps.time_once = steps.time;
  EXPECT_EQ(testing::error_of_call([&] { tuning::tune("k (n<=4096)", names(40), steps, quiet(1), log_dir()); }),
            "tuning k (n<=4096) stopped: candidate [block=64] failed on the GPU (CUDA driver call cuEventQuery failed "
            "for a timed run: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered), which can run "
            "nothing more in this process; run the candidate on the simulator or in debug mode (TESSEL_DEBUG=1), "
            "which name the line of a fault or a deadlock (docs/debugging.md)");
  EXPECT_EQ(timed[1], 1);
  for (size_t i = 2; i < timed.size(); ++i) EXPECT_EQ(timed[i], 0) << i;
  EXPECT_LE(builds, 4);
}

TEST(Tuner, AFinalistThatNeverFinishesStopsTheTuningNamingIt) {
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [](int i) { return 1.0 + 0.01 * i; };
  steps.time_once = [](int i) -> double {
    if (i == 2) throw runtime::CudaError(CUDA_ERROR_LAUNCH_TIMEOUT, "a timed run did not finish within 10 s");
    return 1.0 + 0.01 * i;
  };
  EXPECT_EQ(testing::error_of_call([&] { tuning::tune("k", names(4), steps, quiet(), log_dir()); }),
            "tuning k stopped: candidate [block=128] failed on the GPU (a timed run did not finish within 10 s: a "
            "deadlock, or a run longer than TESSEL_RUN_TIME_LIMIT allows), which can run nothing more in this "
            "process; run the candidate on the simulator or in debug mode (TESSEL_DEBUG=1), which name the line of a "
            "fault or a deadlock (docs/debugging.md)");
}

// A CUDA error that leaves the context usable (here, a launch the device refuses) fails only its
// candidate.
TEST(Tuner, ACudaErrorThatLeavesTheGpuUsableFailsOnlyItsCandidate) {
  tuning::TuningSteps steps;
  steps.build = [](int) { return tuning::BuiltCandidate{}; };
  steps.time = [](int i) -> double {
    if (i == 0)
      throw runtime::CudaError(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                               "CUDA driver call cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many "
                               "resources requested for launch");
    return 2.0 - 0.1 * i;
  };
  steps.time_once = steps.time;
  const tuning::TuneResult r = tuning::tune("k", names(3), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 2);
  EXPECT_EQ(r.outcomes[0].status, CandidateOutcome::Status::Failed);
}

TEST(Tuner, ATimeLimitThatIsNotAPositiveNumberIsRefused) {
  for (const char* value : {"0", "ten", "-3", "5s"}) {
    setenv("TESSEL_RUN_TIME_LIMIT", value, 1);
    EXPECT_EQ(testing::error_of_call([] { tuning::TunerSettings::from_environment(); }),
              fmt::format("TESSEL_RUN_TIME_LIMIT={} is not a positive number of seconds", value));
  }
  setenv("TESSEL_RUN_TIME_LIMIT", "2.5", 1);
  EXPECT_EQ(tuning::TunerSettings::from_environment().run_time_limit_s, 2.5);
  unsetenv("TESSEL_RUN_TIME_LIMIT");
  setenv("TESSEL_COMPILE_TIME_LIMIT", "0", 1);
  EXPECT_EQ(testing::error_of_call([] { tuning::TunerSettings::from_environment(); }),
            "TESSEL_COMPILE_TIME_LIMIT=0 is not a positive number of seconds");
  unsetenv("TESSEL_COMPILE_TIME_LIMIT");
}

// Counts the builds that run at once. Each waits in meet() until another runs beside it, so only
// a tuner that builds concurrently reaches a peak of 2; one that does not fails the test after
// the first wait's 10 seconds, rather than hang.
struct Concurrency {
  std::mutex m;
  std::condition_variable cv;
  int running = 0, peak = 0;
  void meet() {
    std::unique_lock lock(m);
    peak = std::max(peak, ++running);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return peak >= 2; });
    --running;
  }
};

TEST(Tuner, BuildsCandidatesConcurrently) {
  Concurrency builds;
  tuning::TuningSteps steps;
  steps.build = [&](int) {
    builds.meet();
    return tuning::BuiltCandidate{};
  };
  steps.time = [](int i) { return 1.0 + i; };
  steps.time_once = steps.time;
  const tuning::TuneResult r = tuning::tune("k", names(8), steps, quiet(4), log_dir());
  EXPECT_EQ(r.winner, 0);
  EXPECT_GE(builds.peak, 2);
  EXPECT_LE(builds.peak, 4);
}

TEST(Tuner, SpillingCandidatesAreRejectedOnlyWhenAsked) {
  tuning::TuningSteps steps;
  steps.build = [](int i) {
    tuning::BuiltCandidate b;
    b.spills = i == 0;
    b.spill_report = "16 bytes spill stores, 16 bytes spill loads";
    return b;
  };
  steps.time = [](int i) { return i == 0 ? 0.5 : 1.0; };
  steps.time_once = steps.time;
  EXPECT_EQ(tuning::tune("k", names(2), steps, quiet(), log_dir()).winner, 0);
  tuning::TunerSettings strict = quiet();
  strict.fail_on_spill = true;
  const tuning::TuneResult r = tuning::tune("k", names(2), steps, strict, log_dir());
  EXPECT_EQ(r.winner, 1);
  EXPECT_EQ(r.outcomes[0].status, CandidateOutcome::Status::Spills);
  EXPECT_EQ(r.outcomes[0].message,
            "registers spill (16 bytes spill stores, 16 bytes spill loads) and TESSEL_FAIL_ON_SPILL=1");
}

TEST(Tuner, WhenEveryCandidateFailsTheErrorQuotesTheFirstFailureAndNamesTheLog) {
  tuning::TuningSteps steps;
  steps.build = [](int i) -> tuning::BuiltCandidate {
    if (i == 0) return {.infeasible = "2048 threads per block; the limit is 1024"};
    throw Error(fmt::format("NVRTC failed to compile kernel 'k' for sm_90a:\nerror {}", i));
  };
  steps.time = [](int) -> double { throw std::logic_error("never timed"); };
  steps.time_once = steps.time;
  try {
    tuning::tune("k (n<=64)", names(3), steps, quiet(), log_dir());
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("k (n<=64): none of the 3 candidates can run; the first, [block=64], is failed: NVRTC failed to "
                     "compile kernel 'k' for sm_90a:\nerror 1\nevery candidate's outcome is in "),
              std::string::npos)
        << m;
    const std::string path = m.substr(m.rfind(' ') + 1);
    std::ifstream log(path);
    const std::string text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_NE(text.find("[block=32] infeasible: 2048 threads per block; the limit is 1024"), std::string::npos) << text;
    EXPECT_NE(text.find("[block=128] failed: NVRTC failed"), std::string::npos) << text;
  }
}

TEST(Tuner, TwoFailuresOfOneProblemKeepLogsOfTheirOwn) {
  tuning::TuningSteps steps;
  steps.time = [](int) -> double { throw std::logic_error("never timed"); };
  steps.time_once = steps.time;
  std::vector<std::string> paths;
  for (const char* target : {"sm_80", "sm_100a"}) {
    steps.build = [&](int) -> tuning::BuiltCandidate {
      throw Error(fmt::format("NVRTC failed to compile kernel 'k' for {}", target));
    };
    try {
      tuning::tune("k (n<=64)", names(2), steps, quiet(), log_dir());
      FAIL() << "no error";
    } catch (const Error& e) {
      const std::string m = e.what();
      paths.push_back(m.substr(m.rfind(' ') + 1));
    }
  }
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_NE(paths[0], paths[1]);
  for (size_t i = 0; i < 2; ++i) {
    std::ifstream log(paths[i]);
    const std::string text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_NE(text.find(i == 0 ? "for sm_80" : "for sm_100a"), std::string::npos) << text;
  }
}

// The same failure again (the schedules of `tessel check` fail alike) names the log it already wrote.
TEST(Tuner, TheSameFailureAgainNamesTheSameLog) {
  tuning::TuningSteps steps;
  steps.build = [](int) -> tuning::BuiltCandidate { throw Error("NVRTC failed to compile kernel 'k' for sm_90a"); };
  steps.time = [](int) -> double { throw std::logic_error("never timed"); };
  steps.time_once = steps.time;
  const auto log_of_failure = [&] {
    try {
      tuning::tune("k (n<=16, again)", names(2), steps, quiet(), log_dir());
    } catch (const Error& e) {
      const std::string m = e.what();
      return m.substr(m.rfind(' ') + 1);
    }
    return std::string("no error");
  };
  // A log's name has the second it was written in: two failures in one second share it.
  for (;;) {
    const std::time_t before = std::time(nullptr);
    const std::string first = log_of_failure(), second = log_of_failure();
    if (std::time(nullptr) != before) continue;
    EXPECT_EQ(first, second);
    std::ifstream log(first);
    const std::string text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_EQ(text,
              "[block=32] failed: NVRTC failed to compile kernel 'k' for sm_90a\n[block=64] failed: NVRTC failed to "
              "compile kernel 'k' for sm_90a\n");
    break;
  }
}

// Failures of one problem at the same moment, as processes tuning side by side have them, each
// write a log of their own: the log's file is created exclusively.
TEST(Tuner, FailuresOfOneProblemAtOnceKeepLogsOfTheirOwn) {
  constexpr int kThreads = 8;
  std::vector<std::string> paths(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&paths, t] {
      tuning::TuningSteps steps;
      steps.build = [t](int) -> tuning::BuiltCandidate { throw Error(fmt::format("failure of thread {}", t)); };
      steps.time = [](int) -> double { throw std::logic_error("never timed"); };
      steps.time_once = steps.time;
      try {
        tuning::tune("k (n<=32, at once)", names(1), steps, quiet(), log_dir());
      } catch (const Error& e) {
        const std::string m = e.what();
        paths[size_t(t)] = m.substr(m.rfind(' ') + 1);
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    std::ifstream log(paths[size_t(t)]);
    const std::string text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_NE(text.find(fmt::format("failure of thread {}\n", t)), std::string::npos)
        << paths[size_t(t)] << ": " << text;
  }
}

TEST(Tuner, FirstFeasibleStopsAtTheFirstCandidateThatBuilds) {
  int built = 0;
  tuning::TuningSteps steps;
  steps.build = [&](int i) {
    ++built;
    return tuning::BuiltCandidate{.infeasible = i < 2 ? "too big" : ""};
  };
  const tuning::TuneResult r = tuning::first_feasible("k", names(5), steps, quiet(), log_dir());
  EXPECT_EQ(r.winner, 2);
  EXPECT_EQ(built, 3);
  EXPECT_EQ(r.outcomes[4].status, CandidateOutcome::Status::NotReached);
}

TEST(Tuner, BuildAllBuildsEveryCandidateConcurrentlyAndTimesNone) {
  Concurrency builds;
  const auto build = [&](int i) -> tuning::BuiltCandidate {
    builds.meet();
    if (i == 1) return {.infeasible = "2048 threads per block; H200 allows 1024"};
    if (i == 2) throw Error("NVRTC failed to compile kernel 'k' for sm_100a:\nerror: boom");
    return {.registers = 32 + i, .spills = i == 3, .spill_report = "8 bytes spill stores, 8 bytes spill loads"};
  };
  const std::vector<CandidateOutcome> outcomes = tuning::build_all("k (n<=64)", names(6), build, quiet(3));
  ASSERT_EQ(outcomes.size(), 6u);
  EXPECT_GE(builds.peak, 2);
  EXPECT_LE(builds.peak, 3);
  EXPECT_EQ(outcomes[0].status, CandidateOutcome::Status::Built);
  EXPECT_EQ(outcomes[0].hyperparameters, "block=32");
  EXPECT_EQ(outcomes[0].registers, 32);
  EXPECT_EQ(outcomes[0].message, "");
  EXPECT_EQ(outcomes[1].status, CandidateOutcome::Status::Infeasible);
  EXPECT_EQ(outcomes[1].message, "2048 threads per block; H200 allows 1024");
  EXPECT_EQ(outcomes[2].status, CandidateOutcome::Status::Failed);
  EXPECT_EQ(outcomes[2].message, "NVRTC failed to compile kernel 'k' for sm_100a:\nerror: boom");
  // A spilling candidate is kept, with a note, unless spills are rejected.
  EXPECT_EQ(outcomes[3].status, CandidateOutcome::Status::Built);
  EXPECT_EQ(outcomes[3].message, "registers spill (8 bytes spill stores, 8 bytes spill loads)");
  EXPECT_EQ(outcomes[5].status, CandidateOutcome::Status::Built);
  tuning::TunerSettings no_spills = quiet(3);
  no_spills.fail_on_spill = true;
  const std::vector<CandidateOutcome> strict = tuning::build_all("k (n<=64)", names(6), build, no_spills);
  EXPECT_EQ(strict[3].status, CandidateOutcome::Status::Spills);
  EXPECT_EQ(strict[3].message,
            "registers spill (8 bytes spill stores, 8 bytes spill loads) and TESSEL_FAIL_ON_SPILL=1");
}

TEST(PtxasInfo, RegistersAndSpillsAreRead) {
  const runtime::ResourceUsage r = runtime::parse_ptxas_info(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 24 bytes cumulative stack size\n");
  EXPECT_EQ(r.registers, 255);
  EXPECT_EQ(r.stack_bytes, 24);
  EXPECT_EQ(r.spill_store_bytes, 8);
  EXPECT_EQ(r.spill_load_bytes, 12);
  EXPECT_TRUE(r.spills());
}

TEST(PtxasInfo, ACompiledKernelReportsItsRegisters) {
  const runtime::CompileResult r = runtime::compile_to_cubin(
      {"extern \"C\" __global__ void k(float* a) { a[threadIdx.x] *= 2.0f; }", "k", "sm_90a", {}, {}});
  EXPECT_GT(r.resources.registers, 0);
  EXPECT_FALSE(r.resources.spills());
  EXPECT_EQ(r.log.find("ptxas info"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace tessel
