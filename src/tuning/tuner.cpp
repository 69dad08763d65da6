#include "tessel/tuning/tuner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "progress_line.hpp"
#include "tessel/error.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::tuning {

namespace {

using Status = CandidateOutcome::Status;

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0" && std::string_view(v) != "off";
}

// A time limit from the environment: a positive number of seconds. A limit of 0 would take every
// timed run for one that never finishes.
double seconds_from(const char* variable, const char* value) {
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end == value || *end != '\0' || !(seconds > 0))
    throw Error(fmt::format("{}={} is not a positive number of seconds", variable, value));
  return seconds;
}

// Records the outcome of building candidate i; returns whether it may be timed.
bool record_build(CandidateOutcome& o, const std::function<BuiltCandidate(int)>& build, int i,
                  const TunerSettings& settings) {
  try {
    const BuiltCandidate b = build(i);
    o.registers = b.registers;
    o.compile_ms = b.compile_ms;
    if (!b.infeasible.empty()) {
      o.status = Status::Infeasible;
      o.message = b.infeasible;
      return false;
    }
    if (b.spills && settings.fail_on_spill) {
      o.status = Status::Spills;
      o.message = fmt::format("registers spill ({}) and TESSEL_FAIL_ON_SPILL=1", b.spill_report);
      return false;
    }
    if (b.spills) o.message = fmt::format("registers spill ({})", b.spill_report);
    return true;
  } catch (const std::exception& e) {
    o.status = Status::Failed;
    o.message = e.what();
    return false;
  }
}

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.substr(0, 60);
}

// Writes `text` to the first of <stem>.log, <stem>-2.log, ... in `dir` that does not exist yet, each
// created exclusively: processes that fail the same problem in the same second (for other targets, or
// side by side) keep logs of their own; one that holds `text` already is named again instead (the
// schedules of `tessel check` fail alike). Returns the path, or nothing where none could be written.
std::optional<std::filesystem::path> write_new_log(const std::filesystem::path& dir, const std::string& stem,
                                                   const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (int n = 1; n <= 1000; ++n) {
    const std::filesystem::path path = dir / (n == 1 ? stem + ".log" : fmt::format("{}-{}.log", stem, n));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno != EEXIST) return std::nullopt;
      std::ifstream existing(path, std::ios::binary);
      const std::string held{std::istreambuf_iterator<char>(existing), std::istreambuf_iterator<char>()};
      if (held == text) return path;
      continue;
    }
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      if (w <= 0) break;
      done += size_t(w);
    }
    ::close(fd);
    if (done == text.size()) return path;
    return std::nullopt;
  }
  return std::nullopt;
}

[[noreturn]] void fail_all(const std::string& label, const TuneResult& r, const std::filesystem::path& log_dir) {
  // The error below names the first failure whether or not the log of them all could be written.
  std::string log;
  for (const CandidateOutcome& o : r.outcomes)
    log += fmt::format("[{}] {}: {}\n", o.hyperparameters, status_name(o.status), o.message);
  const std::optional<std::filesystem::path> path =
      write_new_log(log_dir, fmt::format("{}-{}", file_safe(label), std::time(nullptr)), log);
  // The first failure, else the first candidate that was ruled out.
  const CandidateOutcome* first = nullptr;
  for (const CandidateOutcome& o : r.outcomes)
    if (o.status != Status::NotReached && (!first || (first->status != Status::Failed && o.status == Status::Failed)))
      first = &o;
  throw Error(fmt::format(
      "{}: none of the {} candidates can run; the first, [{}], is {}: {}\nevery candidate's "
      "outcome is in {}",
      label, r.outcomes.size(), first ? first->hyperparameters : "", first ? status_name(first->status) : "",
      first ? first->message : "", path ? path->string() : "(the log could not be written)"));
}

std::vector<CandidateOutcome> outcomes_for(const std::vector<std::string>& candidates) {
  std::vector<CandidateOutcome> out(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) out[i].hyperparameters = candidates[i];
  return out;
}

int workers_for(int candidates, const TunerSettings& settings) {
  const int threads = settings.workers > 0 ? settings.workers : int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(candidates, threads));
}

// Compile threads: each takes the next candidate index and runs `build_one` on it until none is
// left. The caller may consume results while they run; join() waits for the last.
class BuildPool {
 public:
  BuildPool(int candidates, int workers, std::function<void(int)> build_one)
      : candidates_(candidates), build_one_(std::move(build_one)) {
    for (int w = 0; w < workers; ++w)
      threads_.emplace_back([this] {
        for (int i = next_++; i < candidates_; i = next_++) build_one_(i);
      });
  }
  BuildPool(const BuildPool&) = delete;
  ~BuildPool() { join(); }
  void join() {
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  // Starts no more builds; those under way finish.
  void cancel() { next_ = candidates_; }

 private:
  const int candidates_;
  std::atomic<int> next_{0};
  std::function<void(int)> build_one_;
  std::vector<std::thread> threads_;
};

void note_dropped(ProgressLine& line, const std::string& label, const CandidateOutcome& o) {
  line.note(fmt::format("tessel: {} [{}] {}: {}", label, o.hyperparameters, status_name(o.status), o.message));
}

// The contenders are timed again once every candidate is built, and the winner is chosen from
// these timings: the first ones ran while other candidates compiled on the host, and a candidate
// that was lucky once must not win on that alone. The GPU's clocks drift as it heats up under the
// load, so a first timing taken early reads fast (docs/tuning.md has an example): every
// candidate within kContenderWindow of the fastest first timing is a finalist (at least
// kMinFinalists, at most kMaxFinalists). The finalists are then run in kFinalRounds rounds, one
// run each per round, in order and in reverse by turns, and each keeps the median of its runs: a
// drift of the clocks, slow or fast, reaches them all alike, as in the benches' alternating
// rounds. Where the fastest medians lie within kCloseCall of each other, the runs' spread can
// still order them either way: those finalists run kCloseCallRounds more rounds, and their
// medians are taken over all their runs.
constexpr double kContenderWindow = 1.10;
constexpr size_t kMinFinalists = 3, kMaxFinalists = 8;
constexpr int kFinalRounds = 10;
constexpr double kCloseCall = 1.02;
constexpr int kCloseCallRounds = 20;

// The error of timing a candidate where it leaves the GPU unable to run more, else null: tuning
// stops there, since every later candidate would fail alike or wait behind a run that never ends.
const runtime::CudaError* gpu_lost(const std::exception& e) {
  const auto* cuda = dynamic_cast<const runtime::CudaError*>(&e);
  return cuda && cuda->context_lost() ? cuda : nullptr;
}

Error tuning_stopped(const std::string& label, const std::string& candidate, const runtime::CudaError& cuda) {
  return Error(fmt::format(
      "tuning {} stopped: candidate [{}] failed on the GPU ({}{}), which can run nothing more in this process; run "
      "the candidate on the simulator or in debug mode (TESSEL_DEBUG=1), which name the line of a fault or a "
      "deadlock (docs/debugging.md)",
      label, candidate, cuda.message(),
      cuda.result() == CUDA_ERROR_LAUNCH_TIMEOUT ? ": a deadlock, or a run longer than TESSEL_RUN_TIME_LIMIT allows"
                                                 : ""));
}

// Adds `rounds` rounds of one run of each of `order` to `runs`, the order reversed by turns. A
// finalist that fails to run is out: it is marked failed with the error, and the rounds go on
// without it, since a candidate that ran once and then failed must not win on its first timing.
void run_rounds(std::vector<int> order, int rounds, std::map<int, std::vector<double>>& runs, TuneResult& r,
                std::vector<int>& failed, const TuningSteps& steps, const std::string& label) {
  for (int round = 0; round < rounds; ++round) {
    for (int i : order) {
      CandidateOutcome& o = r.outcomes[size_t(i)];
      if (o.status != Status::Timed) continue;
      try {
        const double ms = steps.time_once(i);
        runs[i].push_back(ms);
      } catch (const std::exception& e) {
        if (const runtime::CudaError* lost = gpu_lost(e)) throw tuning_stopped(label, o.hyperparameters, *lost);
        o.status = Status::Failed;
        o.message = fmt::format("failed when timed again: {}", e.what());
        runs.erase(i);
        failed.push_back(i);
      }
    }
    std::reverse(order.begin(), order.end());
  }
}

void take_medians(TuneResult& r, std::map<int, std::vector<double>> runs) {
  for (auto& [i, ms] : runs) {
    std::nth_element(ms.begin(), ms.begin() + ptrdiff_t(ms.size() / 2), ms.end());
    r.outcomes[size_t(i)].median_ms = ms[ms.size() / 2];
  }
}

// Those of `candidates` that are still timed.
std::vector<int> still_timed(const TuneResult& r, std::vector<int> candidates) {
  std::erase_if(candidates, [&](int i) { return r.outcomes[size_t(i)].status != Status::Timed; });
  return candidates;
}

// Chooses the winner from the finalists' final rounds; returns the finalists that failed in them.
std::vector<int> retime_finalists(TuneResult& r, const TuningSteps& steps, const std::string& label) {
  std::vector<int> timed, failed;
  for (size_t i = 0; i < r.outcomes.size(); ++i)
    if (r.outcomes[i].status == CandidateOutcome::Status::Timed) timed.push_back(int(i));
  if (timed.size() < 2) return failed;
  const auto faster = [&](int a, int b) { return r.outcomes[size_t(a)].median_ms < r.outcomes[size_t(b)].median_ms; };
  // The finalists, fastest first by `faster`, and those within `window` of the fastest.
  const auto leaders = [&](std::vector<int> candidates, double window, size_t at_least, size_t at_most) {
    std::sort(candidates.begin(), candidates.end(), faster);
    const double cutoff = r.outcomes[size_t(candidates.front())].median_ms * window;
    size_t kept = std::min(candidates.size(), at_least);
    while (kept < std::min(candidates.size(), at_most) && r.outcomes[size_t(candidates[kept])].median_ms <= cutoff)
      ++kept;
    candidates.resize(kept);
    return candidates;
  };
  std::vector<int> finalists = leaders(timed, kContenderWindow, kMinFinalists, kMaxFinalists);
  std::map<int, std::vector<double>> runs;
  run_rounds(finalists, kFinalRounds, runs, r, failed, steps, label);
  take_medians(r, runs);
  finalists = still_timed(r, finalists);
  if (finalists.size() > 1) {
    if (const std::vector<int> close = leaders(finalists, kCloseCall, 1, finalists.size()); close.size() > 1) {
      run_rounds(close, kCloseCallRounds, runs, r, failed, steps, label);
      take_medians(r, runs);
      finalists = still_timed(r, finalists);
    }
  }
  // Where every finalist failed, the fastest of the others by its first timing.
  const std::vector<int> pool = finalists.empty() ? still_timed(r, timed) : finalists;
  r.winner = pool.empty() ? -1 : *std::min_element(pool.begin(), pool.end(), faster);
  return failed;
}

}  // namespace

TunerSettings TunerSettings::from_environment() {
  TunerSettings s;
  if (const char* v = std::getenv("TESSEL_TUNE"); v && std::string_view(v) == "off") s.enabled = false;
  s.strict = env_flag("TESSEL_STRICT_CACHE");
  s.fail_on_spill = env_flag("TESSEL_FAIL_ON_SPILL");
  if (const char* v = std::getenv("TESSEL_COMPILE_TIME_LIMIT"); v && *v)
    s.compile_time_limit_s = seconds_from("TESSEL_COMPILE_TIME_LIMIT", v);
  if (const char* v = std::getenv("TESSEL_RUN_TIME_LIMIT"); v && *v)
    s.run_time_limit_s = seconds_from("TESSEL_RUN_TIME_LIMIT", v);
  if (const char* v = std::getenv("TESSEL_TUNE_WORKERS"); v && *v) s.workers = std::max(1, std::atoi(v));
  return s;
}

TuneResult tune(const std::string& label, const std::vector<std::string>& candidates, const TuningSteps& steps,
                const TunerSettings& settings, const std::filesystem::path& log_dir) {
  const auto start = std::chrono::steady_clock::now();
  TuneResult r;
  r.outcomes = outcomes_for(candidates);
  const int n = int(candidates.size());
  const int workers = workers_for(n, settings);

  std::mutex mutex;
  std::condition_variable ready_cv;
  std::deque<int> ready;
  int built = 0, dropped = 0;
  ProgressLine line;
  line.note(fmt::format("tessel: tuning {}: {} candidates, compiling on {} threads", label, n, workers));

  BuildPool pool(n, workers, [&](int i) {
    CandidateOutcome o = r.outcomes[i];
    const bool timeable = record_build(o, steps.build, i, settings);
    std::lock_guard lock(mutex);
    r.outcomes[i] = o;
    ++built;
    if (timeable)
      ready.push_back(i);
    else
      ++dropped;
    ready_cv.notify_one();
  });

  int timed = 0;
  double best = 0;
  for (;;) {
    int i = -1;
    {
      std::unique_lock lock(mutex);
      ready_cv.wait(lock, [&] { return !ready.empty() || built == n; });
      if (ready.empty()) break;
      i = ready.front();
      ready.pop_front();
    }
    CandidateOutcome& o = r.outcomes[i];
    try {
      o.median_ms = steps.time(i);
      o.status = Status::Timed;
      ++timed;
      if (r.winner < 0 || o.median_ms < best) {
        r.winner = i;
        best = o.median_ms;
      }
    } catch (const std::exception& e) {
      if (const runtime::CudaError* lost = gpu_lost(e)) {
        pool.cancel();
        throw tuning_stopped(label, candidates[size_t(i)], *lost);
      }
      std::lock_guard lock(mutex);
      o.status = Status::Failed;
      o.message = e.what();
      ++dropped;
    }
    std::lock_guard lock(mutex);
    line.update(fmt::format("tessel: tuning {}: built {}/{}, timed {}, dropped {}, best {:.4f} ms [{}]", label, built,
                            n, timed, dropped, best, r.winner >= 0 ? candidates[r.winner] : ""));
  }
  pool.join();
  // A finalist that ran and then failed is worth a line, verbose or not.
  const std::vector<int> failed_again = retime_finalists(r, steps, label);
  for (int i : failed_again) note_dropped(line, label, r.outcomes[size_t(i)]);
  timed = int(std::count_if(r.outcomes.begin(), r.outcomes.end(),
                            [](const CandidateOutcome& o) { return o.status == Status::Timed; }));
  dropped = n - timed;
  best = r.winner >= 0 ? r.outcomes[size_t(r.winner)].median_ms : 0;
  r.wall_ms = ms_since(start);
  if (settings.verbose)
    for (size_t i = 0; i < r.outcomes.size(); ++i)
      if (r.outcomes[i].status != Status::Timed && std::ranges::find(failed_again, int(i)) == failed_again.end())
        note_dropped(line, label, r.outcomes[i]);
  if (r.winner < 0) fail_all(label, r, log_dir);
  line.note(fmt::format("tessel: tuned {} in {:.1f} s: {} timed, {} dropped; best {:.4f} ms [{}]", label,
                        r.wall_ms / 1000, timed, dropped, best, candidates[r.winner]));
  return r;
}

TuneResult first_feasible(const std::string& label, const std::vector<std::string>& candidates,
                          const TuningSteps& steps, const TunerSettings& settings,
                          const std::filesystem::path& log_dir) {
  const auto start = std::chrono::steady_clock::now();
  TuneResult r;
  r.outcomes = outcomes_for(candidates);
  ProgressLine line;
  for (int i = 0; i < int(candidates.size()) && r.winner < 0; ++i) {
    if (record_build(r.outcomes[i], steps.build, i, settings)) {
      r.winner = i;
    } else if (settings.verbose) {
      note_dropped(line, label, r.outcomes[i]);
    }
  }
  r.wall_ms = ms_since(start);
  if (r.winner < 0) fail_all(label, r, log_dir);
  return r;
}

std::vector<CandidateOutcome> build_all(const std::string& label, const std::vector<std::string>& candidates,
                                        const std::function<BuiltCandidate(int index)>& build,
                                        const TunerSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<CandidateOutcome> outcomes = outcomes_for(candidates);
  const int n = int(candidates.size());
  const int workers = workers_for(n, settings);
  std::mutex mutex;
  int built = 0, dropped = 0;
  ProgressLine line;
  line.note(fmt::format("tessel: building {}: {} candidate{} on {} thread{}", label, n, n == 1 ? "" : "s", workers,
                        workers == 1 ? "" : "s"));
  BuildPool pool(n, workers, [&](int i) {
    CandidateOutcome o = outcomes[i];
    if (record_build(o, build, i, settings)) o.status = Status::Built;
    std::lock_guard lock(mutex);
    outcomes[i] = o;
    ++built;
    if (o.status != Status::Built) ++dropped;
    line.update(fmt::format("tessel: building {}: built {}/{}, dropped {}", label, built, n, dropped));
  });
  pool.join();
  line.note(fmt::format("tessel: built {} in {:.1f} s: {} of {} candidates fit, {} dropped", label,
                        ms_since(start) / 1000, n - dropped, n, dropped));
  return outcomes;
}

}  // namespace tessel::tuning
