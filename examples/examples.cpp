#include "examples.hpp"

namespace tessel::examples {

const cli::Registry& registry() {
  static const cli::Registry r = [] {
    cli::Registry kernels;
    for (KernelEntry e :
         {vector_add_example(), row_softmax_example(), wide_row_softmax_example(), greedy_sampling_example(),
          cluster_row_softmax_example(), layer_norm_example(), dequantize_int4_example(), quantize_fp8_groups_example(),
          matmul_simt_example(), broken_sync_example()})
      kernels.add(std::move(e));
    for (auto* group : {ampere_ladder_examples, hopper_ladder_examples, fp8_gemm_examples, weight_only_gemm_examples,
                        blackwell_ladder_examples, blackwell_low_precision_examples, attention_ladder_examples,
                        moe_examples, moe_grouped_gemm_examples})
      for (KernelEntry& e : group()) kernels.add(std::move(e));
    return kernels;
  }();
  return r;
}

const KernelEntry& find_example(const std::string& name) { return registry().find(name); }

}  // namespace tessel::examples
