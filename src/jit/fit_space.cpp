// Examining a kernel's whole space for a GPU without running anything (`tessel space`): every
// candidate is built as the autotuner builds it, and each keeps its resources and its verdict.
#include "tessel/tuning/tuner.hpp"
#include "variant.hpp"

namespace tessel::detail {

std::vector<CandidateFit> KernelCore::fit_space(std::span<const HostArg> args, const analysis::GpuSpec& gpu) const {
  signature_.check(args);
  TESSEL_CHECK(gpu.target() == arch_, "kernel {} is built for {}, but {} needs {}", name_, ir::arch_name(arch_),
               gpu.name, ir::arch_name(gpu.target()));
  const tuning::TunerSettings settings = tuning::TunerSettings::from_environment();
  const BuildRequest request{.gpu = &gpu,
                             .compile = true,
                             .time_limit_s = settings.compile_time_limit_s,
                             .strict = settings.strict,
                             .errors_rule_out = true};
  const auto& candidates = space_.candidates();
  std::vector<std::string> descriptions;
  for (const Space::Candidate& c : candidates) descriptions.push_back(Space::describe(c));
  // Each compile thread fills its candidate's slot.
  std::vector<CandidateFit> fits(candidates.size());
  const auto build_one = [&](int i) {
    std::string infeasible;
    const std::unique_ptr<Variant> v = build(args, i, request, &infeasible);
    if (v) {
      CandidateFit& f = fits[size_t(i)];
      f.threads = v->kernel->threads();
      f.shared_bytes = v->kernel->shared_bytes;
      f.registers = v->binary.resources.registers;
      f.spill_bytes = v->binary.resources.spill_store_bytes + v->binary.resources.spill_load_bytes;
    }
    return Variant::outcome(v.get(), infeasible);
  };
  const std::vector<tuning::CandidateOutcome> outcomes =
      tuning::build_all(fmt::format("{} for {}", problem_label(args), gpu.name), descriptions, build_one, settings);
  for (size_t i = 0; i < fits.size(); ++i) {
    fits[i].hyperparameters = descriptions[i];
    fits[i].feasible = outcomes[i].status == tuning::CandidateOutcome::Status::Built;
    fits[i].reason = outcomes[i].message;
  }
  return fits;
}

}  // namespace tessel::detail
