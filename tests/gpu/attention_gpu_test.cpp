// The attention ladder on the GPU against the f64 host reference: sequence lengths that are not
// block multiples and ones that are, causal and not, grouped K and V heads, both head dimensions.
#include "examples.hpp"
#include "gpu_test.hpp"

namespace tessel {
namespace {

using AttentionOnGpu = testing::GpuTest;

TEST_F(AttentionOnGpu, EveryStepMatchesTheHostReference) {
  // [batch, heads, kv_heads, seq_q, seq_k, head_dim, causal]
  const std::vector<std::vector<int64_t>> sizes = {{1, 4, 2, 150, 170, 64, 1},
                                                   {2, 4, 1, 130, 97, 128, 0},
                                                   {1, 8, 8, 1024, 1024, 128, 1},
                                                   {1, 8, 2, 1024, 1024, 64, 0}};
  for (const char* name :
       {"attention_v1", "attention_v1_bf16", "attention_v2", "attention_v2_bf16", "attention_v3", "attention_v3_bf16"})
    for (const std::vector<int64_t>& size : sizes) {
      const cli::RunResult r = examples::find_example(name).run(Device::gpu(), size, {});
      EXPECT_TRUE(r.ok) << r.summary;
    }
}

}  // namespace
}  // namespace tessel
