// Runs a script on the simulator under explicit simulator options (completion order, blocks run
// together).
#pragma once

#include "tessel/sim/simulator.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

template <class S, class... A> void simulate(const sim::Options& options, const A&... args) {
  Kernel<S>(Device::simulator(), KernelOptions{.sim = options})(args...);
}

// The message of the tessel::Error the run raises, or "no error".
template <class S, class... A> std::string simulation_error(const sim::Options& options, const A&... args) {
  try {
    simulate<S>(options, args...);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The completion orders every asynchronous kernel is checked under: eager, lazy and three seeds.
inline std::vector<sim::Options> every_order() { return sim::adversarial_schedules(3); }

// `o` with two blocks run together, so that their warps interleave.
inline sim::Options two_blocks_together(sim::Options o) {
  o.blocks_per_group = {2, 1, 1};
  return o;
}

// `base` run under each of every_order(), as the options of a Kernel or an example's run.
inline std::vector<KernelOptions> every_order_options(const KernelOptions& base = {}) {
  std::vector<KernelOptions> orders;
  for (const sim::Options& o : every_order()) {
    orders.push_back(base);
    orders.back().sim = o;
  }
  return orders;
}

}  // namespace tessel::testing
