// The Blackwell matmul ladder of the seeds: tensor memory and tcgen05, then TMA, a ring of
// stages, warp specialization, seed 000's Pipeline class with rasterized tiles, and a persistent
// kernel on cluster launch control, and the same on block pairs sharing one mma.
#include "matmul_example.hpp"
#include "v0_tcgen05.hpp"
#include "v1_tma.hpp"
#include "v2_multistage.hpp"
#include "v3_warp_specialized.hpp"
#include "v4_pipeline_class.hpp"
#include "v5_persistent.hpp"
#include "v6_cta_pair.hpp"

namespace tessel::examples {

std::vector<KernelEntry> blackwell_ladder_examples() {
  std::vector<KernelEntry> ladder = {
      matmul_example<blackwell::BlackwellMatmulV0>(
          "blackwell_v0", "Blackwell seed V0: cp.async loads, tcgen05.mma into tensor memory, an mbarrier commit"),
      matmul_example<blackwell::BlackwellMatmulV1>("blackwell_v1",
                                                   "Blackwell V1: TMA loads, one stage, a TMA-store epilogue"),
      matmul_example<blackwell::BlackwellMatmulV2>("blackwell_v2",
                                                   "Blackwell seed V2: a multi-stage TMA ring with prefill"),
      matmul_example<blackwell::BlackwellMatmulV3>(
          "blackwell_v3", "Blackwell V3: a TMA warp and an MMA warp with hand-managed full/empty barriers"),
      matmul_example<blackwell::BlackwellMatmulV4>(
          "blackwell_v4", "Blackwell seed V4: warp specialization with the Pipeline class, rasterized tiles"),
      matmul_example<blackwell::BlackwellMatmulV5>(
          "blackwell_v5",
          "Blackwell V5: persistent on cluster launch control; TMA, MMA, scheduler and epilogue roles; "
          "double-buffered tensor memory"),
      matmul_example<blackwell::BlackwellMatmulV6>(
          "blackwell_v6",
          "Blackwell V6: V5 on clusters of two blocks, one cta_group::2 mma per 256-row tile, "
          "multicast commits and responses"),
  };
  for (KernelEntry& e : ladder) {
    e.targets = {"sm_100a"};  // tcgen05 and tensor memory exist from sm_100a
    e.default_sizes = {136, 2104, 72};
  }
  return ladder;
}

}  // namespace tessel::examples
