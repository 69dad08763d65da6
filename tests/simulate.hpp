// Runs a script on the simulator under explicit simulator options (completion order, blocks run
// together), which Kernel's options do not carry: the kernel Kernel<S> lowers goes to sim::run.
#pragma once

#include <stdexcept>

#include "tessel/ir/fast_divmod.hpp"
#include "tessel/sim/simulator.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// Every parameter of S must be a run-time one (Int32, Ptr<T>), given as an integer or a Buffer.
template <class S, class... A> void simulate(const sim::Options& options, const A&... args) {
  Kernel<S> kernel(Device::simulator());
  const ir::Kernel k = kernel.lowered(args...);
  std::vector<ir::Scalar> values;
  for (const HostArg& a : {detail::host_arg(args)...}) {
    const bool pointer = a.kind == HostArg::Kind::Pointer;
    values.push_back(ir::Scalar{.i = pointer ? int64_t(reinterpret_cast<uintptr_t>(a.p)) : a.i});
  }
  if (values.size() != k->call_params()) throw std::logic_error("simulate: a parameter of the script is compile-time");
  values.resize(k->params.size());
  ir::compute_derived_params(*k, values);
  sim::Launch launch{.args = values};
  for (size_t d = 0; d < k->blocks.size(); ++d)
    launch.grid[d] = int(ir::evaluate(*k->blocks[d], [&](const ir::ExprNode& e) {
                           for (size_t j = 0; j < k->params.size(); ++j)
                             if (k->params[j].get() == &e) return values[j];
                           throw std::logic_error("simulate: the grid depends on a non-parameter");
                         }).i);
  sim::run(*k, launch, options);
}

// The completion orders every asynchronous kernel is checked under: eager, lazy and three seeds.
inline std::vector<sim::Options> every_order() {
  return {{.completion = sim::CompletionOrder::Eager},
          {.completion = sim::CompletionOrder::Lazy},
          {.seed = 1, .completion = sim::CompletionOrder::Seeded},
          {.seed = 2, .completion = sim::CompletionOrder::Seeded},
          {.seed = 3, .completion = sim::CompletionOrder::Seeded}};
}

}  // namespace tessel::testing
