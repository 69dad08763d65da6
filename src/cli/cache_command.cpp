// `tessel cache ls|show|clear`: the compile cache and the tuning database (docs/tuning.md).
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "tessel/error.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/tuning/tuning_db.hpp"

namespace tessel::cli {

namespace {

struct CacheArgs {
  std::string key;
};

// What the cache folder holds besides the compile cache's entries and the tuning database: the host
// libraries tessel.load builds (host/) and the tuner's logs (logs/).
struct Folder {
  const char* name;
  const char* holds;
};
constexpr Folder kOtherFolders[] = {{"host", "host libraries of tessel.load"}, {"logs", "tuning logs"}};

// The regular files under `dir` and their bytes.
std::pair<size_t, uintmax_t> files_under(const std::filesystem::path& dir) {
  size_t files = 0;
  uintmax_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code size_error;
    if (!it->is_regular_file(size_error)) continue;
    ++files;
    bytes += it->file_size(size_error);
  }
  return {files, bytes};
}

int list() {
  const auto dir = runtime::DiskCache::default_dir();
  const runtime::DiskCache cache(dir);
  fmt::print("cache: {}\n", dir.string());
  std::map<std::string, std::pair<size_t, uintmax_t>> per_kind;
  for (const auto& e : cache.list()) {
    auto& [count, bytes] = per_kind[e.kind];
    ++count;
    bytes += e.bytes;
  }
  for (const auto& [kind, totals] : per_kind)
    fmt::print("  {:<10} {:>6} entries, {:>10} bytes\n", kind, totals.first, totals.second);
  for (const Folder& f : kOtherFolders)
    if (const auto [files, bytes] = files_under(dir / f.name); files > 0)
      fmt::print("  {:<10} {:>6} files,   {:>10} bytes ({})\n", f.name, files, bytes, f.holds);
  const auto tuned = tuning::TuningDb(dir).list();
  if (tuned.empty()) return 0;
  fmt::print("tuning results:\n");
  for (const auto& [key, r] : tuned)
    fmt::print("  {}  {} ({}{}{}){} on {}: [{}] {:.4f} ms, {} candidates in {:.1f} s, {}\n", key.substr(0, 12),
               r.kernel, r.compile_args, r.compile_args.empty() || r.size_bucket.empty() ? "" : ", ", r.size_bucket,
               r.specialization.empty() ? "" : fmt::format(" [{}]", r.specialization), r.fingerprint.gpu, r.winner,
               r.winner_ms, r.candidates.size(), r.tuning_wall_ms / 1000, r.tuned_at);
  return 0;
}

int show(const std::string& prefix) {
  if (prefix.size() < 4) throw Error("cache show: give at least 4 characters of a key from `tessel cache ls`");
  const auto dir = runtime::DiskCache::default_dir();
  std::vector<tuning::TuningDb::Entry> matches;
  for (auto& e : tuning::TuningDb(dir).list())
    if (e.key.starts_with(prefix)) matches.push_back(std::move(e));
  if (matches.empty()) throw Error(fmt::format("cache show: no tuning result's key starts with '{}'", prefix));
  if (matches.size() > 1)
    throw Error(fmt::format("cache show: {} tuning results' keys start with '{}'; give more characters", matches.size(),
                            prefix));
  const tuning::TuningRecord& r = matches.front().record;
  fmt::print(
      "key:         {}\nkernel:      {}\narguments:   {}\nspecialized: {}\nsizes:       {}\ntarget:      {}\n"
      "measured on: {}\ntuned at:    {} in {:.1f} s\nwinner:      [{}] {:.4f} ms\n",
      matches.front().key, r.kernel, r.compile_args, r.specialization.empty() ? "-" : r.specialization, r.size_bucket,
      r.target, r.fingerprint.str(), r.tuned_at, r.tuning_wall_ms / 1000, r.winner, r.winner_ms);
  std::vector<const tuning::CandidateOutcome*> order;
  for (const auto& c : r.candidates) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    const bool ta = a->status == tuning::CandidateOutcome::Status::Timed;
    const bool tb = b->status == tuning::CandidateOutcome::Status::Timed;
    return ta != tb ? ta : ta && a->median_ms < b->median_ms;
  });
  fmt::print("{:>10} {:>5} {:>11}  {:<11} {}\n", "median ms", "regs", "compile ms", "status", "hyperparameters");
  for (const auto* c : order)
    fmt::print("{:>10} {:>5} {:>11.0f}  {:<11} [{}]{}{}\n",
               c->status == tuning::CandidateOutcome::Status::Timed ? fmt::format("{:.4f}", c->median_ms) : "-",
               c->registers >= 0 ? fmt::format("{}", c->registers) : "-", c->compile_ms, tuning::status_name(c->status),
               c->hyperparameters, c->message.empty() ? "" : " ", c->message);
  return 0;
}

int clear() {
  const auto dir = runtime::DiskCache::default_dir();
  size_t removed = runtime::DiskCache(dir).clear();
  for (const Folder& f : kOtherFolders) {
    removed += files_under(dir / f.name).first;
    std::error_code ec;
    std::filesystem::remove_all(dir / f.name, ec);
    if (ec) throw Error(fmt::format("cache clear: cannot remove '{}': {}", (dir / f.name).string(), ec.message()));
  }
  fmt::print("removed {} files from {}\n", removed, dir.string());
  return 0;
}

}  // namespace

Command add_cache_command(CLI::App& app) {
  auto* cache = app.add_subcommand("cache", "list, show or clear the compile cache and the tuning database");
  cache->require_subcommand(1);
  auto args = std::make_shared<CacheArgs>();
  auto* ls = cache->add_subcommand("ls", "list the cache's contents and every tuning result");
  auto* sh = cache->add_subcommand("show", "show one tuning result with every candidate's outcome");
  sh->add_option("key", args->key, "a key, or its first characters, from `tessel cache ls`")->required();
  auto* cl = cache->add_subcommand(
      "clear", "remove every compiled kernel, tuning result and log, and the host libraries of tessel.load");
  return {cache, [=] {
            if (*ls) return list();
            if (*sh) return show(args->key);
            if (*cl) return clear();
            return 2;
          }};
}

}  // namespace tessel::cli
