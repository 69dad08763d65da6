#include "tessel/tuning/tuning_db.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "tessel/error.hpp"
#include "tessel/runtime/cache_key.hpp"

namespace tessel::tuning {

namespace {

constexpr const char* kKind = "tuning";

using nlohmann::json;

json fingerprint_json(const Fingerprint& f) {
  return {{"gpu", f.gpu},
          {"compute_capability", f.compute_capability},
          {"sm_count", f.sm_count},
          {"driver_version", f.driver_version},
          {"nvrtc_version", f.nvrtc_version},
          {"tessel_version", f.tessel_version}};
}

Fingerprint fingerprint_from(const json& j) {
  return Fingerprint{j.at("gpu").get<std::string>(),
                     j.at("compute_capability").get<std::string>(),
                     j.at("sm_count").get<int>(),
                     j.at("driver_version").get<int>(),
                     j.at("nvrtc_version").get<std::string>(),
                     j.at("tessel_version").get<std::string>()};
}

CandidateOutcome::Status status_from(std::string_view name) {
  using enum CandidateOutcome::Status;
  for (auto s : {Timed, Built, Infeasible, Failed, Spills, NotReached})
    if (status_name(s) == name) return s;
  throw std::invalid_argument("unknown status");
}

}  // namespace

std::string Fingerprint::difference(const Fingerprint& o) const {
  std::vector<std::string> parts;
  if (gpu != o.gpu) parts.push_back(fmt::format("GPU '{}' != '{}'", gpu, o.gpu));
  if (compute_capability != o.compute_capability)
    parts.push_back(fmt::format("compute capability {} != {}", compute_capability, o.compute_capability));
  if (sm_count != o.sm_count) parts.push_back(fmt::format("SMs {} != {}", sm_count, o.sm_count));
  if (driver_version != o.driver_version)
    parts.push_back(fmt::format("driver {} != {}", driver_version, o.driver_version));
  if (nvrtc_version != o.nvrtc_version) parts.push_back(fmt::format("NVRTC {} != {}", nvrtc_version, o.nvrtc_version));
  if (tessel_version != o.tessel_version)
    parts.push_back(fmt::format("tessel {} != {}", tessel_version, o.tessel_version));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string Fingerprint::str() const {
  return fmt::format("{} (cc {}, {} SMs), driver {}, NVRTC {}, tessel {}", gpu, compute_capability, sm_count,
                     driver_version, nvrtc_version, tessel_version);
}

std::string_view status_name(CandidateOutcome::Status s) {
  switch (s) {
    case CandidateOutcome::Status::Timed: return "timed";
    case CandidateOutcome::Status::Built: return "built";
    case CandidateOutcome::Status::Infeasible: return "infeasible";
    case CandidateOutcome::Status::Failed: return "failed";
    case CandidateOutcome::Status::Spills: return "spills";
    case CandidateOutcome::Status::NotReached: return "not reached";
  }
  return "?";
}

std::string to_json(const TuningRecord& r) {
  json candidates = json::array();
  for (const CandidateOutcome& c : r.candidates)
    candidates.push_back({{"hyperparameters", c.hyperparameters},
                          {"status", status_name(c.status)},
                          {"message", c.message},
                          {"registers", c.registers},
                          {"compile_ms", c.compile_ms},
                          {"median_ms", c.median_ms}});
  const json j = {{"kernel", r.kernel},
                  {"compile_args", r.compile_args},
                  {"specialization", r.specialization},
                  {"size_bucket", r.size_bucket},
                  {"target", r.target},
                  {"fingerprint", fingerprint_json(r.fingerprint)},
                  {"winner", r.winner},
                  {"winner_ms", r.winner_ms},
                  {"tuning_wall_ms", r.tuning_wall_ms},
                  {"tuned_at", r.tuned_at},
                  {"candidates", candidates}};
  return j.dump(2);
}

std::optional<TuningRecord> from_json(std::string_view text) {
  try {
    const json j = json::parse(text);
    TuningRecord r;
    r.kernel = j.at("kernel").get<std::string>();
    r.compile_args = j.at("compile_args").get<std::string>();
    r.specialization = j.at("specialization").get<std::string>();
    r.size_bucket = j.at("size_bucket").get<std::string>();
    r.target = j.at("target").get<std::string>();
    r.fingerprint = fingerprint_from(j.at("fingerprint"));
    r.winner = j.at("winner").get<std::string>();
    r.winner_ms = j.at("winner_ms").get<double>();
    r.tuning_wall_ms = j.at("tuning_wall_ms").get<double>();
    r.tuned_at = j.at("tuned_at").get<std::string>();
    for (const json& c : j.at("candidates"))
      r.candidates.push_back({c.at("hyperparameters").get<std::string>(),
                              status_from(c.at("status").get<std::string>()), c.at("message").get<std::string>(),
                              c.at("registers").get<int>(), c.at("compile_ms").get<double>(),
                              c.at("median_ms").get<double>()});
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a record from another version of tessel, or not a record: a miss
  }
}

TuningDb::TuningDb(std::filesystem::path dir) : cache_(std::move(dir)) {}

std::string TuningDb::key(const std::string& kernel, const std::string& code, const std::vector<std::string>& space,
                          const std::string& compile_args, const std::string& specialization,
                          const std::string& size_bucket, const std::string& target) {
  return runtime::CacheKey("tessel-tuning-key-v3")
      .add(kernel)
      .add(code)
      .add_each(space)
      .add(compile_args)
      .add(specialization)
      .add(size_bucket)
      .add(target)
      .digest();
}

std::optional<TuningRecord> TuningDb::load(const std::string& key) const {
  const auto bytes = cache_.load(key, kKind);
  if (!bytes) return std::nullopt;
  return from_json(std::string_view(bytes->data(), bytes->size()));
}

void TuningDb::store(const std::string& key, const TuningRecord& record) const {
  const std::string text = to_json(record);
  cache_.store(key, kKind, text);
}

TuningDb::Lock TuningDb::lock(const std::string& key) const {
  const auto locks = cache_.dir() / "locks";
  std::error_code ec;
  std::filesystem::create_directories(locks, ec);
  const auto path = locks / (key + ".lock");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot open the tuning lock '{}': {}", path.string(), std::strerror(errno)));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    throw Error(fmt::format("cannot lock '{}': {}", path.string(), std::strerror(err)));
  }
  return Lock(fd);
}

TuningDb::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::vector<TuningDb::Entry> TuningDb::list() const {
  std::vector<Entry> out;
  for (const runtime::DiskCache::Entry& e : cache_.list())
    if (e.kind == kKind)
      if (auto r = load(e.key)) out.push_back({e.key, std::move(*r)});
  return out;
}

}  // namespace tessel::tuning
