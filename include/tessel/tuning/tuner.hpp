// The autotuner: builds every candidate of a space concurrently (trace, lower, prune, compile),
// times the ones that built on the GPU as they become ready, and picks the fastest. It knows
// candidates only by index and description; the front door (jit/) supplies the steps, and tests
// supply fakes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessel/tuning/tuning_db.hpp"

namespace tessel::tuning {

// Knobs from the environment:
//   TESSEL_TUNE=off            use the first feasible candidate instead of timing them all
//   TESSEL_STRICT_CACHE=1      a compile or a tuning run at run time is an error
//   TESSEL_FAIL_ON_SPILL=1     candidates whose registers spill to local memory are rejected
//   TESSEL_COMPILE_TIME_LIMIT  seconds one candidate's NVRTC compile may take (default 120)
//   TESSEL_RUN_TIME_LIMIT      seconds one timed run of a candidate may take on the GPU (default 10)
//   TESSEL_TUNE_WORKERS        compile threads (default: the machine's hardware threads)
struct TunerSettings {
  bool enabled = true;
  bool strict = false;
  bool fail_on_spill = false;
  double compile_time_limit_s = 120;
  double run_time_limit_s = 10;
  int workers = 0;       // 0: std::thread::hardware_concurrency()
  bool verbose = false;  // one line per dropped candidate, with the reason
  static TunerSettings from_environment();
};

// What building one candidate gave.
struct BuiltCandidate {
  std::string infeasible;  // non-empty: the candidate cannot run on this device, and why
  int registers = -1;
  bool spills = false;
  std::string spill_report;  // "24 bytes spill stores, 24 bytes spill loads"
  double compile_ms = 0;
};

struct TuningSteps {
  // Builds candidate i. Called concurrently from the compile threads. A thrown tessel::Error
  // marks the candidate failed with the error's message.
  std::function<BuiltCandidate(int index)> build;
  // Median milliseconds of candidate i. Called from the tuning thread only, one at a time, while
  // other candidates may still be building. A thrown error fails the candidate, unless it is a
  // runtime::CudaError after which the GPU can run nothing more: that stops the tuning.
  std::function<double(int index)> time;
  // Milliseconds of one run of candidate i, for the final rounds, which alternate the finalists run
  // by run as the benches alternate methods. Called from the tuning thread once every candidate is
  // built.
  std::function<double(int index)> time_once;
};

struct TuneResult {
  int winner = -1;
  std::vector<CandidateOutcome> outcomes;  // one per candidate, in space order
  double wall_ms = 0;
};

// Tunes `candidates` (their descriptions, in space order). `label` names the problem in progress
// output, e.g. "MatmulV5Swizzled (m=4096, n=4096)". Throws tessel::Error when no candidate can
// be timed; the message quotes the first failure and names a log with all of them, written to
// `log_dir`. Throws tessel::Error naming the candidate when one leaves the GPU unable to run more.
TuneResult tune(const std::string& label, const std::vector<std::string>& candidates, const TuningSteps& steps,
                const TunerSettings& settings, const std::filesystem::path& log_dir);

// The first candidate, in space order, that builds and fits (TESSEL_TUNE=off, and devices that
// cannot time). Throws like tune() when none does.
TuneResult first_feasible(const std::string& label, const std::vector<std::string>& candidates,
                          const TuningSteps& steps, const TunerSettings& settings,
                          const std::filesystem::path& log_dir);

// Builds every candidate on the compile threads and times none (a space examined for a GPU that
// is not here): each outcome is Built, or Infeasible, Spills or Failed with the reason. Progress
// goes to stderr as while tuning.
std::vector<CandidateOutcome> build_all(const std::string& label, const std::vector<std::string>& candidates,
                                        const std::function<BuiltCandidate(int index)>& build,
                                        const TunerSettings& settings);

}  // namespace tessel::tuning
