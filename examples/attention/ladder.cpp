// The attention ladder (docs/performance.md): each step improving on the one before.
#include "attention_example.hpp"
#include "v1_portable.hpp"
#include "v2_tma_wgmma.hpp"
#include "v3_warp_specialized.hpp"
#include "v4_overlapped.hpp"
#include "v5_blackwell.hpp"

namespace tessel::examples {

std::vector<KernelEntry> attention_ladder_examples() {
  std::vector<KernelEntry> hopper = {
      attention_example<attention::AttentionV2TmaWgmma<f16>, f16>(
          "attention_v2",
          "Attention ladder 2: TMA loads into a ring, Q Kᵀ by wgmma from shared memory, P V by wgmma "
          "with P in registers and V MN-major"),
      attention_example<attention::AttentionV2TmaWgmma<bf16>, bf16>("attention_v2_bf16",
                                                                    "Attention ladder 2 with bf16 operands"),
      attention_example<attention::AttentionV3WarpSpecialized<f16>, f16>(
          "attention_v3",
          "Attention ladder 3: a TMA producer warp and two consumer warpgroups over an mbarrier ring, "
          "with setmaxnreg"),
      attention_example<attention::AttentionV3WarpSpecialized<bf16>, bf16>("attention_v3_bf16",
                                                                           "Attention ladder 3 with bf16 operands"),
      attention_example<attention::AttentionV4Overlapped<f16>, f16>(
          "attention_v4",
          "Attention ladder 4: the softmax of each key block overlapped with the wgmma of its "
          "neighbours, masks only where needed, causal blocks skipped, tuned"),
      attention_example<attention::AttentionV4Overlapped<bf16>, bf16>("attention_v4_bf16",
                                                                      "Attention ladder 4 with bf16 operands"),
  };
  for (KernelEntry& e : hopper) e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  std::vector<KernelEntry> ladder = {
      attention_example<attention::AttentionV1Portable<f16>, f16>(
          "attention_v1", "Attention ladder 1: mma.sync and a cp.async ring, online softmax, P in registers (sm_80)"),
      attention_example<attention::AttentionV1Portable<bf16>, bf16>("attention_v1_bf16",
                                                                    "Attention ladder 1 with bf16 operands"),
  };
  for (KernelEntry& e : hopper) ladder.push_back(std::move(e));
  std::vector<KernelEntry> blackwell = {
      attention_example<attention::AttentionV5Blackwell<f16>, f16>(
          "attention_v5", "Attention ladder 5 (Blackwell): S and O in tensor memory, tcgen05.mma, a row per thread"),
      attention_example<attention::AttentionV5Blackwell<bf16>, bf16>("attention_v5_bf16",
                                                                     "Attention ladder 5 with bf16 operands"),
  };
  for (KernelEntry& e : blackwell) {
    e.targets = {"sm_100a"};  // tcgen05 exists only on sm_100a
    ladder.push_back(std::move(e));
  }
  return ladder;
}

}  // namespace tessel::examples
