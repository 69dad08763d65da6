// Choosing the variant a call runs when it is not cached yet: the only configuration, a tuning
// result recorded for this machine, the fastest candidate timed now, or the first that builds.
#include <ctime>
#include <mutex>
#include <optional>

#include "pointers_in_memory.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/loaded_kernel.hpp"
#include "tessel/runtime/output_backup.hpp"
#include "tessel/tuning/gpu_timer.hpp"
#include "tessel/tuning/tuner.hpp"
#include "variant.hpp"

namespace tessel::detail {

namespace {

tuning::Fingerprint fingerprint_of(const Device& d, ir::Arch arch) {
  tuning::Fingerprint f;
  f.nvrtc_version = runtime::nvrtc_version();
  f.tessel_version = TESSEL_VERSION;
  if (d.is_gpu()) {
    const auto info = runtime::CudaDriver::get().device_info();
    f.gpu = info.name;
    f.compute_capability = fmt::format("{}.{}", info.cc_major, info.cc_minor);
    f.sm_count = info.sm_count;
    f.driver_version = info.driver_version;
  } else {
    f.gpu = "simulator";
    f.compute_capability = std::string(ir::arch_name(arch));
  }
  return f;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

KernelCore::Variant& KernelCore::select(std::span<const HostArg> args, bool allow_tuning) {
  const auto& candidates = space_.candidates();
  const std::string compile_args = signature_.compile_args(args);
  const std::string specialization = signature_.specialization(args);
  const std::string variant_args = compile_args + "|" + specialization;
  const bool gpu = device_.is_gpu();
  tuning::TunerSettings settings = tuning::TunerSettings::from_environment();
  settings.verbose = options_.verbose;
  const BuildRequest request{.gpu = &device_limits_,
                             .compile = gpu,
                             .time_limit_s = settings.compile_time_limit_s,
                             .strict = settings.strict,
                             .errors_rule_out = candidates.size() > 1};
  auto build_one = [&](int i) {
    std::string infeasible;
    auto v = build(args, i, request, &infeasible);
    if (!infeasible.empty())
      throw Error(
          fmt::format("kernel {} [{}] cannot run here: {}", name_, Space::describe(candidates[size_t(i)]), infeasible));
    return v;
  };
  if (candidates.size() == 1) {
    Variant& v = adopt(variant_args, build_one(0));
    v.stats.selection = options_.configuration.empty() ? Selection::Only : Selection::Configured;
    return v;
  }

  std::vector<std::string> descriptions;
  for (const Space::Candidate& c : candidates) descriptions.push_back(Space::describe(c));
  const std::string sizes = signature_.size_buckets(args);
  const std::string label = problem_label(args);
  // Candidates are built concurrently into their own slots.
  std::vector<std::unique_ptr<Variant>> built(candidates.size());
  tuning::TuningSteps steps;
  // Arguments read by requirements that ruled a candidate out: built concurrently, applied after.
  // Where one statement rules every candidate out, the call gets its error as a launch would.
  std::mutex ruled_out_by_mutex;
  std::vector<size_t> ruled_out_by;
  size_t ruled_out = 0;
  std::optional<Error> first_unmet;
  bool one_statement = true;
  const auto throw_the_requirement_if_alone = [&] {
    if (ruled_out == candidates.size() && one_statement && first_unmet) throw *first_unmet;
  };
  steps.build = [&](int i) {
    std::string infeasible;
    std::unique_ptr<Variant> v = build(args, i, request, &infeasible);
    const tuning::BuiltCandidate b = Variant::outcome(v.get(), infeasible);
    if (v && v->unmet_requirement) {
      const std::lock_guard lock(ruled_out_by_mutex);
      ruled_out_by.insert(ruled_out_by.end(), v->unmet_requirement_arguments.begin(),
                          v->unmet_requirement_arguments.end());
      ++ruled_out;
      if (first_unmet && first_unmet->loc().str() != v->unmet_requirement->loc().str()) one_statement = false;
      if (!first_unmet || i == 0) first_unmet = v->unmet_requirement;
    }
    if (infeasible.empty()) built[size_t(i)] = std::move(v);
    return b;
  };
  // A candidate ruled out by a requirement may meet another call's: calls are told apart by the
  // values such requirements read from now on (the binding of this call too, in prepare()).
  struct ExactAfterwards {
    KernelCore& core;
    std::vector<size_t>& arguments;
    ~ExactAfterwards() { core.make_exact(arguments); }
  } exact_afterwards{*this, ruled_out_by};
  const std::filesystem::path cache_dir = runtime::DiskCache::default_dir();
  const bool can_time = gpu || options_.tuning_timer;
  auto first_feasible_variant = [&]() -> Variant& {
    tuning::TuneResult r;
    try {
      r = tuning::first_feasible(label, descriptions, steps, settings, cache_dir / "logs");
    } catch (const Error&) {
      throw_the_requirement_if_alone();
      throw;
    }
    Variant& v = adopt(variant_args, std::move(built[size_t(r.winner)]));
    v.stats.selection = Selection::FirstFeasible;
    v.stats.candidates = int(candidates.size());
    return v;
  };
  if (!settings.enabled || !can_time || !allow_tuning) return first_feasible_variant();

  const tuning::TuningDb db(cache_dir);
  const std::string target(ir::arch_name(arch_));
  const std::string key =
      tuning::TuningDb::key(name_, code_digest(args), descriptions, compile_args, specialization, sizes, target);
  const tuning::Fingerprint fingerprint = fingerprint_of(device_, arch_);
  auto usable = [&](const std::optional<tuning::TuningRecord>& rec) -> int {
    if (!rec || rec->fingerprint != fingerprint) return -1;
    for (size_t i = 0; i < descriptions.size(); ++i)
      if (descriptions[i] == rec->winner) return int(i);
    return -1;
  };
  // The recorded winner, unless this call rules it out (a requirement that reads a value of the
  // size bucket that another call tuned): then null, and this call tunes.
  auto from_database = [&](int winner) -> Variant* {
    std::string infeasible;
    std::unique_ptr<Variant> built_winner = build(args, winner, request, &infeasible);
    if (!infeasible.empty()) {
      if (built_winner && !built_winner->unmet_requirement_arguments.empty()) {
        ruled_out_by.insert(ruled_out_by.end(), built_winner->unmet_requirement_arguments.begin(),
                            built_winner->unmet_requirement_arguments.end());
        return nullptr;
      }
      throw Error(fmt::format("kernel {} [{}] cannot run here: {}", name_, descriptions[size_t(winner)], infeasible));
    }
    Variant& v = adopt(variant_args, std::move(built_winner));
    v.stats.selection = Selection::FromDatabase;
    v.stats.candidates = int(candidates.size());
    if (options_.verbose)
      fmt::print(stderr, "tessel: kernel {}: {}\n", v.configured(label), selection_name(v.stats.selection));
    return &v;
  };
  // A recorded winner this call rules out was tuned for another call of the size bucket: this one
  // tunes under its own values of what the requirement reads, and the record stays the other's.
  const auto tune_own = [&]() -> Variant* {
    if (!make_exact(ruled_out_by)) return nullptr;
    ruled_out_by.clear();
    return &select(args, allow_tuning);
  };
  std::optional<tuning::TuningRecord> record = db.load(key);
  if (int w = usable(record); w >= 0) {
    if (Variant* v = from_database(w)) return *v;
    if (Variant* v = tune_own()) return *v;
  }
  // Debug builds are not timed: their checks, not the kernel, would decide the result.
  if (options_.debug) return first_feasible_variant();
  // A target this GPU does not run is the call's error, not every candidate's, nor the cache's.
  if (device_.is_gpu())
    runtime::require_runnable(arch_, runtime::CudaDriver::get().device_info(), fmt::format("kernel {}", name_));
  if (settings.strict)
    throw Error(fmt::format(
        "kernel {}: {}, and TESSEL_STRICT_CACHE=1 forbids tuning at run time; run once without "
        "it on this machine to record a result in {}",
        label,
        record
            ? fmt::format("the tuning result was measured elsewhere ({})", record->fingerprint.difference(fingerprint))
            : std::string("there is no tuning result for it"),
        cache_dir.string()));

  // Tuning runs the kernel: a pointer that no launch accepts is the call's error, not every candidate's.
  signature_.check_pointers(args);
  // One process tunes a key at a time; the others wait and then read its result.
  const tuning::TuningDb::Lock lock = db.lock(key);
  record = db.load(key);
  if (int w = usable(record); w >= 0) {
    if (Variant* v = from_database(w)) return *v;
    if (Variant* v = tune_own()) return *v;
  }
  if (record && options_.verbose)
    fmt::print(stderr, "tessel: kernel {}: retuning, the recorded result was measured elsewhere ({})\n", label,
               record->fingerprint.difference(fingerprint));

  std::optional<tuning::GpuTimer> timer;
  std::optional<runtime::OutputBackup> backup;
  if (!options_.tuning_timer) {
    timer.emplace();
    // Timing runs write the call's outputs; they are put back afterwards.
    backup.emplace(signature_.pointers(args));
  }
  // Timing runs repeat the kernel on the call's buffers, and only the parameters' are put back: a
  // candidate that writes through a pointer read from memory is not run, and if none can be, the
  // call says why. Its first timing refuses it; timing again (time_once) takes only candidates timed.
  std::optional<SourceLoc> unrestorable;
  const auto refuse_unrestorable = [&](const Variant& v) {
    unrestorable = write_through_pointer_in_memory(*v.kernel);
    if (unrestorable) throw Error(fmt::format("writes through the pointer made at {}", unrestorable->str()));
  };
  steps.time = [&](int i) {
    Variant& v = *built[size_t(i)];
    if (options_.tuning_timer) return options_.tuning_timer(v.hyperparameters);
    refuse_unrestorable(v);
    load(v);
    return timer->median_ms([&](void* stream) { launch_variant(v, args, stream); },
                            {.limit_s = settings.run_time_limit_s});
  };
  steps.time_once = [&](int i) {
    Variant& v = *built[size_t(i)];
    if (options_.tuning_timer) return options_.tuning_timer(v.hyperparameters);
    return timer->median_ms([&](void* stream) { launch_variant(v, args, stream); },
                            {.warmup = 0, .min_runs = 1, .max_runs = 1, .limit_s = settings.run_time_limit_s});
  };
  tuning::TuneResult r;
  try {
    r = tuning::tune(label, descriptions, steps, settings, cache_dir / "logs");
  } catch (const Error&) {  // the outputs stay as they are: a faulted or hung candidate may still hold them
    if (unrestorable)
      throw Error(
          fmt::format("kernel {}: tuning runs each candidate many times, and this kernel writes through a "
                      "pointer it reads from memory (made at {}), whose buffer tuning cannot put back "
                      "afterwards; choose its configuration (KernelOptions::configuration), or set "
                      "TESSEL_TUNE=off to run its first feasible candidate",
                      label, unrestorable->str()));
    throw_the_requirement_if_alone();
    throw;
  }
  if (backup) backup->restore();

  tuning::TuningRecord rec;
  rec.kernel = name_;
  rec.compile_args = compile_args;
  rec.specialization = specialization;
  rec.size_bucket = sizes;
  rec.target = target;
  rec.fingerprint = fingerprint;
  rec.winner = descriptions[size_t(r.winner)];
  rec.winner_ms = r.outcomes[size_t(r.winner)].median_ms;
  rec.tuning_wall_ms = r.wall_ms;
  rec.tuned_at = utc_now();
  rec.candidates = r.outcomes;
  db.store(key, rec);

  Variant& v = adopt(variant_args, std::move(built[size_t(r.winner)]));
  v.stats.selection = Selection::Tuned;
  v.stats.candidates = int(candidates.size());
  v.stats.tuning_wall_ms = r.wall_ms;
  return v;
}

}  // namespace tessel::detail
