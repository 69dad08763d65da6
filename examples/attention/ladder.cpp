// The attention ladder (docs/performance.md): each step improving on the one before.
#include "attention_example.hpp"
#include "v1_portable.hpp"

namespace tessel::examples {

std::vector<KernelEntry> attention_ladder_examples() {
  return {
      attention_example<attention::AttentionV1Portable<f16>, f16>(
          "attention_v1", "Attention ladder 1: mma.sync and a cp.async ring, online softmax, P in registers (sm_80)"),
      attention_example<attention::AttentionV1Portable<bf16>, bf16>("attention_v1_bf16",
                                                                    "Attention ladder 1 with bf16 operands"),
  };
}

}  // namespace tessel::examples
