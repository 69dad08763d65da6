// The tuning database and tuning through Kernel<S> on the simulator with a fake timer: a result
// is reused by later kernels and processes, a different machine's result is retuned, strict mode
// refuses to tune, and concurrent processes neither corrupt the database nor tune a key twice.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "cli.hpp"
#include "expect_error.hpp"
#include "relocated_kernels.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tuning/tuning_db.hpp"

namespace tessel {
namespace {

// z = 2 x + y with a tuned block size; 2048 threads is not a valid block, so that candidate is
// dropped while tracing.
struct TunedAxpy : Script {
  int block = 128;
  static constexpr const char* param_names[] = {"n", "x", "y", "z"};
  static Space space() { return tune("block", &TunedAxpy::block, {2048, 128, 256, 512}); }
  static constexpr int warps_line = __LINE__ + 3;  // where attrs.warps is set
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y, Ptr<float> z) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = block / 32;
    auto rx = load_global(global_view(x, {n}), {blockIdx.x * block}, {block});
    auto ry = load_global(global_view(y, {n}), {blockIdx.x * block}, {block});
    store_global(global_view(z, {n}), rx * 2.0f + ry, {blockIdx.x * block});
  }
};

// TunedAxpy with its size tuned for each value, and with a name for that which no size has.
struct ExactAxpy : TunedAxpy {
  static constexpr const char* exact_sizes[] = {"n"};
};
struct MisnamedExactAxpy : TunedAxpy {
  static constexpr const char* exact_sizes[] = {"x"};
};

// Points TESSEL_CACHE_DIR at a fresh directory for one test and clears the tuning switches.
class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        fmt::format("tessel-tuning-{}-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    std::filesystem::remove_all(dir_);
    saved_ = std::getenv("TESSEL_CACHE_DIR") ? std::getenv("TESSEL_CACHE_DIR") : "";
    setenv("TESSEL_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("TESSEL_STRICT_CACHE");
    unsetenv("TESSEL_TUNE");
  }
  void TearDown() override {
    setenv("TESSEL_CACHE_DIR", saved_.c_str(), 1);
    unsetenv("TESSEL_STRICT_CACHE");
    unsetenv("TESSEL_TUNE");
    std::filesystem::remove_all(dir_);
  }

  // Runs TunedAxpy (or `S`) once with a fake timer that favours block=256; checks the result and
  // returns how the configuration was chosen. `timed` counts the timer's calls.
  template <class S = TunedAxpy> Selection run_axpy(int* timed, std::string* chosen = nullptr) {
    KernelOptions options;
    options.tuning_timer = [timed](const std::string& hyperparameters) {
      ++*timed;
      const int block = std::atoi(hyperparameters.c_str() + 6);
      return 1.0 + std::abs(block - 256) / 64.0;
    };
    const Device sim = Device::simulator();
    const int n = 700;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = float(i % 17) - 8.5f;
      y[i] = float(i % 5) * 0.25f + 1;
    }
    Buffer<float> dx(sim, x), dy(sim, y), dz(sim, std::vector<float>(n, -1e30f));
    Kernel<S> k(sim, options);
    k(n, dx, dy, dz);
    const std::vector<float> out = dz.download();
    for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], 2 * x[i] + y[i]) << i;
    if (chosen) *chosen = k.stats().hyperparameters;
    return k.stats().selection;
  }

  // Tunes an axpy of 300 elements under `options` (whose timer decides) and returns the winner.
  static std::string tune_axpy_of_300(const KernelOptions& options) {
    const Device sim = Device::simulator();
    Buffer<float> x(sim, std::vector<float>(300, 1.0f)), y(sim, std::vector<float>(300, 2.0f)),
        z(sim, std::vector<float>(300, -1e30f));
    Kernel<TunedAxpy> k(sim, options);
    k(300, x, y, z);
    EXPECT_EQ(z.download(), std::vector<float>(300, 4.0f));
    return k.stats().hyperparameters;
  }

  std::filesystem::path dir_;
  std::string saved_;
};

// 608 and 704 (both multiples of 16) share the bucket of 1024: TunedAxpy tunes once for both,
// ExactAxpy once for each.
TEST_F(TuningDbTest, AnExactSizeIsTunedForEachValue) {
  KernelOptions options;
  options.tuning_timer = [](const std::string& hyperparameters) { return double(hyperparameters.size()); };
  const Device sim = Device::simulator();
  Buffer<float> x(sim, std::vector<float>(704, 1.0f)), y(sim, std::vector<float>(704, 2.0f)),
      z(sim, std::vector<float>(704, 0.0f));
  const auto buckets = [&] {
    std::vector<std::string> out;
    for (const auto& e : tuning::TuningDb(dir_).list()) out.push_back(e.record.kernel + " " + e.record.size_bucket);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (int n : {608, 704, 704}) Kernel<ExactAxpy>(sim, options)(n, x, y, z);
  EXPECT_EQ(buckets(), (std::vector<std::string>{"ExactAxpy n=608", "ExactAxpy n=704"}));
  for (int n : {608, 704}) Kernel<TunedAxpy>(sim, options)(n, x, y, z);
  EXPECT_EQ(buckets(), (std::vector<std::string>{"ExactAxpy n=608", "ExactAxpy n=704", "TunedAxpy n<=1024"}));
  EXPECT_EQ(testing::error_of_call([&] { Kernel<MisnamedExactAxpy> k(sim); }),
            "kernel MisnamedExactAxpy: exact_sizes names 'x', which is not one of its run-time integer parameters (n)");
}

TEST_F(TuningDbTest, TheWinnerIsRecordedAndReusedWithoutTiming) {
  int timed = 0;
  std::string chosen;
  EXPECT_EQ(run_axpy(&timed, &chosen), Selection::Tuned);
  EXPECT_EQ(chosen, "block=256");
  EXPECT_EQ(timed, 33);  // block=2048 was dropped before timing; the three others are finalists, run ten times again

  const auto entries = tuning::TuningDb(dir_).list();
  ASSERT_EQ(entries.size(), 1u);
  const tuning::TuningRecord& r = entries[0].record;
  EXPECT_EQ(r.kernel, "TunedAxpy");
  EXPECT_EQ(r.size_bucket, "n<=1024");
  EXPECT_EQ(r.specialization, "x, y, z: 16-byte aligned");  // n = 700 is a multiple of neither 8 nor 16
  EXPECT_EQ(r.winner, "block=256");
  EXPECT_EQ(r.fingerprint.gpu, "simulator");
  ASSERT_EQ(r.candidates.size(), 4u);
  EXPECT_EQ(r.candidates[0].status, tuning::CandidateOutcome::Status::Infeasible);
  EXPECT_EQ(r.candidates[0].message,
            fmt::format("{}:{}: attrs.warps is 64; set it to a value in 1..32 before creating register tensors or "
                        "thread groups",
                        __FILE__, TunedAxpy::warps_line));

  timed = 0;
  EXPECT_EQ(run_axpy(&timed, &chosen), Selection::FromDatabase);
  EXPECT_EQ(chosen, "block=256");
  EXPECT_EQ(timed, 0);
}

TEST_F(TuningDbTest, TheCacheListingShowsWhatAResultIsSpecializedOn) {
  int timed = 0;
  EXPECT_EQ(run_axpy(&timed), Selection::Tuned);
  const std::string key = tuning::TuningDb(dir_).list().at(0).key;
  const std::string environment = "TESSEL_CACHE_DIR=" + dir_.string();
  const testing::Cli ls = testing::tessel("cache ls", environment);
  EXPECT_EQ(ls.status, 0) << ls.output;
  EXPECT_NE(
      ls.output.find(key.substr(0, 12) + "  TunedAxpy (n<=1024) [x, y, z: 16-byte aligned] on simulator: [block=256]"),
      std::string::npos)
      << ls.output;
  const testing::Cli show = testing::tessel("cache show " + key.substr(0, 12), environment);
  EXPECT_NE(show.output.find("specialized: x, y, z: 16-byte aligned\n"), std::string::npos) << show.output;
}

// The cache folder's host libraries (tessel.load's) and tuning logs are listed and cleared with it.
TEST_F(TuningDbTest, ClearingTheCacheRemovesItsHostLibrariesAndLogs) {
  int timed = 0;
  EXPECT_EQ(run_axpy(&timed), Selection::Tuned);
  std::filesystem::create_directories(dir_ / "host" / "k1");
  std::ofstream(dir_ / "host" / "k1" / "libkernels.so") << "0123456789";
  const std::string environment = "TESSEL_CACHE_DIR=" + dir_.string();
  const testing::Cli ls = testing::tessel("cache ls", environment);
  EXPECT_NE(ls.output.find("  host            1 files,           10 bytes (host libraries of tessel.load)\n"),
            std::string::npos)
      << ls.output;
  const testing::Cli clear = testing::tessel("cache clear", environment);
  EXPECT_EQ(clear.status, 0) << clear.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "host"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "logs"));
  EXPECT_TRUE(tuning::TuningDb(dir_).list().empty());
}

TEST_F(TuningDbTest, TheFinalistsAreTimedAgainAndTheSecondTimingDecides) {
  // block=128 is fastest once, by luck, and slow when run again; block=256 is steady.
  const std::map<std::string, double> first = {{"block=128", 0.5}, {"block=256", 1.0}, {"block=512", 2.0}};
  const std::map<std::string, double> again = {{"block=128", 3.0}, {"block=256", 1.0}, {"block=512", 2.0}};
  std::map<std::string, int> calls;
  KernelOptions options;
  options.tuning_timer = [&](const std::string& hyperparameters) {
    return (calls[hyperparameters]++ == 0 ? first : again).at(hyperparameters);
  };
  EXPECT_EQ(tune_axpy_of_300(options), "block=256");
  // A first timing each, then ten final rounds of one run each.
  EXPECT_EQ(calls, (std::map<std::string, int>{{"block=128", 11}, {"block=256", 11}, {"block=512", 11}}));
  const tuning::TuningRecord r = tuning::TuningDb(dir_).list().at(0).record;
  EXPECT_EQ(r.winner, "block=256");
  EXPECT_EQ(r.winner_ms, 1.0);
  EXPECT_EQ(r.candidates[1].median_ms, 3.0);  // block=128, the median of its final runs
}

TEST_F(TuningDbTest, AClockDriftWhileTheFinalistsAreTimedFavoursNone) {
  // After the first timings, every run is 5% slower than the one before (a GPU heating up):
  // block=128 is 2% slower than block=256 but runs first in the first final round.
  const std::map<std::string, double> first = {{"block=128", 0.9}, {"block=256", 1.0}, {"block=512", 1.5}};
  const std::map<std::string, double> steady = {{"block=128", 1.02}, {"block=256", 1.0}, {"block=512", 1.5}};
  std::map<std::string, int> calls;
  int retimed = 0;
  KernelOptions options;
  options.tuning_timer = [&](const std::string& hyperparameters) {
    if (calls[hyperparameters]++ == 0) return first.at(hyperparameters);
    return steady.at(hyperparameters) * (1 + 0.05 * retimed++);
  };
  EXPECT_EQ(tune_axpy_of_300(options), "block=256");
  EXPECT_EQ(retimed, 30);
}

TEST_F(TuningDbTest, AResultMeasuredOnAnotherMachineIsRetuned) {
  int timed = 0;
  run_axpy(&timed);
  const tuning::TuningDb db(dir_);
  auto entry = db.list().at(0);
  entry.record.fingerprint.gpu = "NVIDIA A100-SXM4-80GB";
  entry.record.winner = "block=512";
  db.store(entry.key, entry.record);

  timed = 0;
  std::string chosen;
  EXPECT_EQ(run_axpy(&timed, &chosen), Selection::Tuned);
  EXPECT_EQ(timed, 33);
  EXPECT_EQ(chosen, "block=256");
  EXPECT_EQ(db.list().at(0).record.fingerprint.gpu, "simulator");
}

TEST_F(TuningDbTest, StrictModeRefusesToTune) {
  setenv("TESSEL_STRICT_CACHE", "1", 1);
  int timed = 0;
  try {
    run_axpy(&timed);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("kernel TunedAxpy (n<=1024): there is no tuning result for it, and TESSEL_STRICT_CACHE=1 "
                          "forbids tuning at run time; run once without it on this machine to record a result in {}",
                          dir_.string()));
  }
  EXPECT_EQ(timed, 0);
  unsetenv("TESSEL_STRICT_CACHE");
  run_axpy(&timed);
  setenv("TESSEL_STRICT_CACHE", "1", 1);
  timed = 0;
  EXPECT_EQ(run_axpy(&timed), Selection::FromDatabase);
}

TEST_F(TuningDbTest, TuningOffTakesTheFirstFeasibleCandidate) {
  setenv("TESSEL_TUNE", "off", 1);
  int timed = 0;
  std::string chosen;
  EXPECT_EQ(run_axpy(&timed, &chosen), Selection::FirstFeasible);
  EXPECT_EQ(chosen, "block=128");
  EXPECT_EQ(timed, 0);
  EXPECT_TRUE(tuning::TuningDb(dir_).list().empty());
}

// The key holds a digest of the candidates' traced code, without source locations: the kernel
// moved down by lines added above it finds the first one's result, the edited one is tuned again.
TEST_F(TuningDbTest, AnEditedKernelIsTunedAgainAndAMovedOneIsNot) {
  int timed = 0;
  EXPECT_EQ(run_axpy<tessel::testing::written_here::TunedAxpy>(&timed), Selection::Tuned);
  EXPECT_GT(timed, 0);
  timed = 0;
  EXPECT_EQ(run_axpy<tessel::testing::written_lower::TunedAxpy>(&timed), Selection::FromDatabase);
  EXPECT_EQ(timed, 0);
  EXPECT_EQ(run_axpy<tessel::testing::edited::TunedAxpy>(&timed), Selection::Tuned);
  EXPECT_GT(timed, 0);
}

TEST_F(TuningDbTest, ADifferentSizeBucketOrSpecializationIsTunedSeparately) {
  const tuning::TuningDb db(dir_);
  const std::vector<std::string> space = {"block=128", "block=256"};
  EXPECT_NE(tuning::TuningDb::key("K", "", space, "", "a: 16-byte aligned", "n<=1024", "sm_90a"),
            tuning::TuningDb::key("K", "", space, "", "", "n<=1024", "sm_90a"));
  EXPECT_NE(tuning::TuningDb::key("K", "", space, "", "", "n<=1024", "sm_90a"),
            tuning::TuningDb::key("K", "", space, "", "", "n<=2048", "sm_90a"));
  EXPECT_NE(tuning::TuningDb::key("K", "", space, "", "", "n<=1024", "sm_90a"),
            tuning::TuningDb::key("K", "", {"block=128"}, "", "", "n<=1024", "sm_90a"));
  EXPECT_NE(tuning::TuningDb::key("K", "", space, "", "", "n<=1024", "sm_90a"),
            tuning::TuningDb::key("K", "", space, "", "", "n<=1024", "sm_100a"));
  EXPECT_NE(tuning::TuningDb::key("K", "code", space, "", "", "n<=1024", "sm_90a"),
            tuning::TuningDb::key("K", "edited code", space, "", "", "n<=1024", "sm_90a"));
}

TEST(Fingerprint, DifferencesAreNamed) {
  tuning::Fingerprint a{"NVIDIA H200", "9.0", 132, 13000, "13.0", "0.1.0"};
  tuning::Fingerprint b = a;
  EXPECT_EQ(a.difference(b), "");
  b.gpu = "NVIDIA H100 80GB HBM3";
  b.driver_version = 12080;
  EXPECT_EQ(a.difference(b), "GPU 'NVIDIA H200' != 'NVIDIA H100 80GB HBM3'; driver 13000 != 12080");
}

tuning::TuningRecord record_for(int writer, int i) {
  tuning::TuningRecord r;
  r.kernel = "K";
  r.winner = fmt::format("writer={}, round={}", writer, i);
  r.fingerprint = {"simulator", "sm_90a", 0, 0, "13.0", "0.1.0"};
  for (int c = 0; c < 40; ++c)
    r.candidates.push_back({fmt::format("block={}", c), {}, std::string(200, 'x'), 32, 1, 2});
  return r;
}

// Waits for a forked child and returns its exit status (-1 when it did not exit normally).
int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(TuningDbTest, ConcurrentWritersNeverLeaveADamagedRecord) {
  const std::vector<std::string> keys = {"aa11", "bb22", "cc33"};
  auto writer = [&](int id) {
    const tuning::TuningDb db(dir_);
    for (int i = 0; i < 150; ++i) {
      const std::string& key = keys[size_t(i) % keys.size()];
      db.store(key, record_for(id, i));
      const auto back = db.load(key);  // another writer may have replaced it, but never with a torn file
      if (!back || back->candidates.size() != 40 || back->winner.rfind("writer=", 0) != 0) return 1;
    }
    return 0;
  };
  pid_t children[2];
  for (int id = 0; id < 2; ++id)
    if ((children[id] = fork()) == 0) _exit(writer(id));
  EXPECT_EQ(wait_for(children[0]), 0);
  EXPECT_EQ(wait_for(children[1]), 0);
  const tuning::TuningDb db(dir_);
  for (const std::string& key : keys) {
    const auto r = db.load(key);
    ASSERT_TRUE(r) << key;
    EXPECT_EQ(r->candidates.size(), 40u);
  }
}

TEST_F(TuningDbTest, TwoProcessesTuningTheSameKernelTuneItOnce) {
  const auto calls = dir_ / "timer-calls";
  std::filesystem::create_directories(dir_);
  auto tuner = [&] {
    KernelOptions options;
    options.tuning_timer = [&](const std::string& hyperparameters) {
      const int fd = ::open(calls.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const std::string line = hyperparameters + "\n";
      const bool ok = ::write(fd, line.data(), line.size()) == ssize_t(line.size());
      ::close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // keep the lock held a while
      // Times more than 2% apart, so that the final rounds end after ten (no close call).
      return ok ? std::atoi(hyperparameters.c_str() + 6) / 256.0 : 1e9;
    };
    const Device sim = Device::simulator();
    Buffer<float> x(sim, std::vector<float>(300, 1.0f)), y(sim, std::vector<float>(300, 2.0f)),
        z(sim, std::vector<float>(300, -1e30f));
    Kernel<TunedAxpy> k(sim, options);
    k(300, x, y, z);
    return z.download()[299] == 4.0f ? 0 : 1;
  };
  pid_t children[2];
  for (int id = 0; id < 2; ++id)
    if ((children[id] = fork()) == 0) _exit(tuner());
  EXPECT_EQ(wait_for(children[0]), 0);
  EXPECT_EQ(wait_for(children[1]), 0);
  std::ifstream in(calls);
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  // One process timed the three feasible candidates, and ten times again as finalists; the other read its result.
  EXPECT_EQ(lines, 33);
}

}  // namespace
}  // namespace tessel
