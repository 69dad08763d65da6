// The tuning database: for each (kernel, space, compile-time arguments, specialization, bucket of
// run-time sizes, target), the winning hyperparameters and every candidate's outcome, stamped with a fingerprint
// of the machine that measured them. It lives in the compile cache directory (entries of kind
// "tuning"), so it inherits the cache's atomic replacement and checksums; a per-key lock file
// makes concurrent processes tune a key once rather than race.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tessel/runtime/disk_cache.hpp"

namespace tessel::tuning {

// What a measurement depends on besides the kernel. Any difference means the winner may differ.
struct Fingerprint {
  std::string gpu;                 // device name, or "simulator"
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000
  std::string nvrtc_version, tessel_version;

  bool operator==(const Fingerprint&) const = default;
  // "GPU 'NVIDIA H100' != 'NVIDIA H200'; SMs 132 != 144", or "" when equal.
  std::string difference(const Fingerprint& other) const;
  std::string str() const;  // one line, for listings
};

// One candidate's fate during tuning.
struct CandidateOutcome {
  // Built: fits the device but was not timed (a space examined without a GPU).
  enum class Status { Timed, Built, Infeasible, Failed, Spills, NotReached };
  std::string hyperparameters;  // "block_m=128, block_n=64"
  Status status = Status::NotReached;
  std::string message;  // why it was dropped, or ""
  int registers = -1;
  double compile_ms = 0;
  double median_ms = 0;  // Timed only
};
std::string_view status_name(CandidateOutcome::Status s);

struct TuningRecord {
  std::string kernel, compile_args, size_bucket, target;
  std::string specialization;  // what the variant knows of its arguments (KernelSignature::specialization)
  Fingerprint fingerprint;
  std::string winner;  // the winner's hyperparameters, as in CandidateOutcome
  double winner_ms = 0;
  double tuning_wall_ms = 0;
  std::string tuned_at;  // UTC, ISO 8601
  std::vector<CandidateOutcome> candidates;
};

class TuningDb {
 public:
  explicit TuningDb(std::filesystem::path dir);

  // The key of one tuning problem. `space` lists every candidate, so a changed space retunes;
  // `code` is a digest of the candidates' code (KernelCore::code_digest), so a changed kernel does.
  static std::string key(const std::string& kernel, const std::string& code, const std::vector<std::string>& space,
                         const std::string& compile_args, const std::string& specialization,
                         const std::string& size_bucket, const std::string& target);

  std::optional<TuningRecord> load(const std::string& key) const;
  // Replaces the record atomically.
  void store(const std::string& key, const TuningRecord& record) const;

  // An exclusive, process-wide lock on one key, held while tuning it (flock on a lock file).
  class Lock {
   public:
    Lock(Lock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Lock(const Lock&) = delete;
    ~Lock();

   private:
    friend class TuningDb;
    explicit Lock(int fd) : fd_(fd) {}
    int fd_;
  };
  Lock lock(const std::string& key) const;

  struct Entry {
    std::string key;
    TuningRecord record;
  };
  std::vector<Entry> list() const;  // readable records, by key

  const std::filesystem::path& dir() const { return cache_.dir(); }

 private:
  runtime::DiskCache cache_;
};

std::string to_json(const TuningRecord& r);
std::optional<TuningRecord> from_json(std::string_view text);

}  // namespace tessel::tuning
