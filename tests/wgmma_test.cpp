// wgmma on the simulator against host references under every completion order, the misuse that
// tracing, the verifier and the simulator report, and the CUDA and cubins the code generator
// makes of it.
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "wgmma_kernels.hpp"

namespace tessel::testing {
namespace {

std::vector<KernelOptions> every_order() {
  std::vector<KernelOptions> orders;
  KernelOptions eager, lazy;
  eager.sim_completion = sim::CompletionOrder::Eager;
  lazy.sim_completion = sim::CompletionOrder::Lazy;
  orders = {eager, lazy};
  for (uint64_t seed : {1, 2, 3}) orders.push_back(KernelOptions{"", seed});
  return orders;
}

TEST(Wgmma, SharedOperandsMatchTheHostReference) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 64, 8, 16, false>(o);
    check_wgmma_tile<f16, 64, 64, 64, false>(o);
    check_wgmma_tile<bf16, 64, 128, 32, false>(o);
    check_wgmma_tile<f16, 64, 256, 64, false>(o);
  }
}

TEST(Wgmma, RegisterAMatchesTheHostReference) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 64, 8, 16, true>(o);
    check_wgmma_tile<bf16, 64, 64, 64, true>(o);
    check_wgmma_tile<f16, 64, 128, 32, true>(o);
    check_wgmma_tile<f16, 64, 256, 64, true>(o);
  }
}

TEST(Wgmma, RepeatsOverRowsAndWarpgroups) {
  for (const KernelOptions& o : every_order()) {
    check_wgmma_tile<f16, 128, 64, 64, false>(o);        // one warpgroup, two m64 instructions
    check_wgmma_tile<f16, 128, 32, 32, true, 8>(o);      // two warpgroups
    check_wgmma_tile<bf16, 256, 16, 16, false, 8>(o);    // two warpgroups, two m64 each
  }
}

}  // namespace
}  // namespace tessel::testing
