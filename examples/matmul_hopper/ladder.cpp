// The Hopper matmul ladder: TMA, mbarriers and wgmma, each step improving on the one before.
#include "matmul_example.hpp"
#include "v1_tma_wgmma.hpp"
#include "v2_multistage.hpp"
#include "v3_warp_specialized.hpp"
#include "v4_pipeline_class.hpp"
#include "v5_persistent.hpp"

namespace tessel::examples {

std::vector<KernelEntry> hopper_ladder_examples() {
  std::vector<KernelEntry> ladder = {
      matmul_example<hopper::MatmulV1TmaWgmma<f16>>(
          "hopper_v1", "Hopper ladder 1: TMA loads onto an mbarrier, wgmma from shared memory, one stage"),
      matmul_example<hopper::MatmulV1TmaWgmma<bf16>, bf16>("hopper_v1_bf16", "Hopper ladder 1 with bf16 operands"),
      matmul_example<hopper::MatmulV2Multistage<f16>>(
          "hopper_v2", "Hopper ladder 2: a ring of TMA stages with full and empty mbarriers, wgmma overlapping loads"),
      matmul_example<hopper::MatmulV2Multistage<bf16>, bf16>("hopper_v2_bf16", "Hopper ladder 2 with bf16 operands"),
      matmul_example<hopper::MatmulV3WarpSpecialized<f16>>(
          "hopper_v3", "Hopper ladder 3: a TMA producer warp and wgmma consumer warpgroups, with setmaxnreg"),
      matmul_example<hopper::MatmulV3WarpSpecialized<bf16>, bf16>("hopper_v3_bf16",
                                                                  "Hopper ladder 3 with bf16 operands"),
      matmul_example<hopper::MatmulV4PipelineClass<f16>>(
          "hopper_v4", "Hopper ladder 4: the ring as seed 000's Pipeline class, tiles rasterized with fast_divmod"),
      matmul_example<hopper::MatmulV4PipelineClass<bf16>, bf16>("hopper_v4_bf16", "Hopper ladder 4 with bf16 operands"),
      matmul_example<hopper::MatmulV5Persistent<f16>>(
          "hopper_v5",
          "Hopper ladder 5: persistent blocks over rasterized tiles, two consumer warpgroups, a TMA-store "
          "epilogue"),
      matmul_example<hopper::MatmulV5Persistent<bf16>, bf16>("hopper_v5_bf16", "Hopper ladder 5 with bf16 operands"),
      tf32_matmul_example<hopper::MatmulV5Persistent<tf32, float>>(
          "hopper_v5_tf32", "Hopper ladder 5 with tf32 operands (f32 data, read by wgmma as tf32) into f32"),
  };
  for (KernelEntry& e : ladder) e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  return ladder;
}

}  // namespace tessel::examples
