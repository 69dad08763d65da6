// The Ampere matmul ladder of seed 003's walkthrough, each step improving on the one before.
#include "matmul_example.hpp"
#include "matmul_simt.hpp"
#include "v1_naive.hpp"
#include "v3_tensor_core.hpp"
#include "v4_pipelined.hpp"
#include "v5_swizzled.hpp"

namespace tessel::examples {

std::vector<KernelEntry> ampere_ladder_examples() {
  return {
      matmul_example<ampere::MatmulV1Naive>("ampere_v1_naive",
                                            "Ampere ladder 1: no reuse, operands from global memory"),
      matmul_example<MatmulSimt>("ampere_v2_shared", "Ampere ladder 2: shared-memory tiling, SIMT FMA"),
      matmul_example<ampere::MatmulV3TensorCore>("ampere_v3_mma", "Ampere ladder 3: tensor cores (mma.sync m16n8k16)"),
      matmul_example<ampere::MatmulV4Pipelined>("ampere_v4_pipelined",
                                                "Ampere ladder 4: multi-stage cp.async pipeline + tensor cores"),
      matmul_example<ampere::MatmulV5Swizzled<f16>>("ampere_v5_swizzled",
                                                    "Ampere ladder 5: swizzled shared tiles, conflict-free ldmatrix"),
      matmul_example<ampere::MatmulV5Swizzled<bf16>, bf16>("ampere_v5_swizzled_bf16",
                                                           "Ampere ladder 5 with bf16 operands"),
      tf32_matmul_example<ampere::MatmulV5Swizzled<tf32, float>>(
          "ampere_v5_swizzled_tf32", "Ampere ladder 5 with tf32 operands (f32 data, mma.sync m16n8k8) into f32"),
  };
}

}  // namespace tessel::examples
