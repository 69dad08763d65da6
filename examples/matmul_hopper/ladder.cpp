// The Hopper matmul ladder: TMA, mbarriers and wgmma, each step improving on the one before.
#include "matmul_example.hpp"
#include "v1_tma_wgmma.hpp"
#include "v2_multistage.hpp"

namespace tessel::examples {

std::vector<Example> hopper_ladder_examples() {
  std::vector<Example> ladder = {
      matmul_example<hopper::MatmulV1TmaWgmma<f16>>(
          "hopper_v1", "Hopper ladder 1: TMA loads onto an mbarrier, wgmma from shared memory, one stage"),
      matmul_example<hopper::MatmulV1TmaWgmma<bf16>, bf16>("hopper_v1_bf16", "Hopper ladder 1 with bf16 operands"),
      matmul_example<hopper::MatmulV2Multistage<f16>>(
          "hopper_v2", "Hopper ladder 2: a ring of TMA stages with full and empty mbarriers, wgmma overlapping loads"),
      matmul_example<hopper::MatmulV2Multistage<bf16>, bf16>("hopper_v2_bf16", "Hopper ladder 2 with bf16 operands"),
  };
  for (Example& e : ladder) e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  return ladder;
}

}  // namespace tessel::examples
