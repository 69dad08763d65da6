// Every example on the GPU against its host reference. Skipped, visibly, without a GPU.
#include "examples.hpp"
#include "gpu_test.hpp"
#include "tessel/runtime/loaded_kernel.hpp"

namespace tessel {
namespace {

// One example at one size: a test of its own, so that ctest runs them side by side and names the
// one that fails.
struct ExampleCase {
  std::string name;
  std::vector<int64_t> sizes;
  // Hyperparameters fixed for the run (docs/tuning.md), with a name for the case; else tuned.
  std::string configuration = {}, configuration_name = {};
  std::string arch = {};  // the target to build for; empty: the GPU's own
};

// "hopper_v5" at {4096, 4096, 1024} -> "hopper_v5_4096x4096x1024" (+ "_" and the configuration's name).
std::string case_name(const ::testing::TestParamInfo<ExampleCase>& info) {
  const ExampleCase& c = info.param;
  return fmt::format("{}_{}{}{}{}{}", c.name, fmt::join(c.sizes, "x"), c.configuration_name.empty() ? "" : "_",
                     c.configuration_name, c.arch.empty() ? "" : "_", c.arch);
}

const std::vector<ExampleCase> kExamples = {
    {"vector_add", {1}},
    {"vector_add", {1 << 20}},
    {"vector_add", {1000003}},
    {"row_softmax", {1, 7}},
    {"row_softmax", {333, 4096}},
    {"row_softmax", {1024, 1000}},
    {"greedy_sampling", {37, 32000}},
    {"greedy_sampling", {128, 128256}},  // Llama 3's vocabulary
    {"greedy_sampling", {5, 100}},
    {"cluster_row_softmax", {3, 20000}},
    {"cluster_row_softmax", {257, 65536}},
    {"cluster_row_softmax", {64, 100003}},
    {"moe_permute", {37, 100}},
    {"moe_permute", {4096, 4096}},
    {"moe_permute", {37, 520}},  // rows a multiple of the 8-element runs, not of the tile: runs wholly outside
    {"moe_unpermute", {37, 100, 2}},
    {"moe_unpermute", {37, 520, 8}},
    {"moe_unpermute", {4096, 7168, 2}},
    {"moe_unpermute", {4096, 7168, 8}},
    {"moe_grouped_gemm", {37, 64, 64, 8}},
    {"moe_grouped_gemm", {1000, 512, 1024, 8}},
    {"moe_grouped_gemm", {600, 1024, 512, 64}},
    {"moe_grouped_gemm_fp8", {37, 64, 64, 8}},
    {"moe_grouped_gemm_fp8", {1000, 512, 1024, 8}},
    {"moe_grouped_gemm_fp8", {600, 1024, 512, 64}},
    {"moe_grouped_gemm_fp8_block_scaled", {37, 64, 64, 8}},
    {"moe_grouped_gemm_fp8_block_scaled", {1000, 512, 1024, 8}},
    {"moe_grouped_gemm_fp8_block_scaled", {601, 1024, 640, 64}},
    {"quantize_fp8_groups", {37, 640}},
    {"quantize_fp8_groups", {4096, 7168}},
    {"matmul_simt", {1, 1, 1}},
    {"matmul_simt", {257, 129, 95}},
    {"matmul_simt", {512, 512, 512}},
    {"ampere_v1_naive", {257, 129, 95}},
    {"ampere_v3_mma", {1, 1, 16}},
    {"ampere_v3_mma", {300, 257, 96}},
    {"ampere_v3_mma", {1024, 1024, 1024}},
    {"ampere_v4_pipelined", {300, 257, 96}},
    {"ampere_v4_pipelined", {1024, 1024, 1024}},
    {"ampere_v4_pipelined", {129, 129, 40}},
    {"ampere_v5_swizzled", {300, 257, 96}},
    {"ampere_v5_swizzled", {2048, 1024, 512}},
    {"ampere_v5_swizzled_tf32", {300, 257, 96}},
    {"ampere_v5_swizzled_tf32", {1024, 1024, 512}},
    {"hopper_v1", {300, 257, 96}},
    {"hopper_v1", {2048, 1024, 512}},
    {"hopper_v1_bf16", {300, 257, 96}},
    {"hopper_v2", {300, 257, 296}},
    {"hopper_v2", {2048, 1024, 512}},
    {"hopper_v2_bf16", {300, 257, 296}},
    {"hopper_v3", {300, 257, 296}},
    {"hopper_v3", {2048, 1024, 512}},
    {"hopper_v3_bf16", {300, 257, 296}},
    {"hopper_v4", {300, 1400, 296}},
    {"hopper_v4", {2048, 2304, 512}},
    {"hopper_v4_bf16", {300, 1400, 296}},
    {"hopper_v5", {300, 1400, 296}},
    {"hopper_v5", {4096, 4096, 1024}},
    {"hopper_v5_bf16", {300, 1400, 296}},
    {"hopper_v5_tf32", {300, 1400, 296}},
    {"hopper_v5_tf32", {1024, 2048, 1024}},
    {"hopper_v5_tf32",
     {16, 1400, 296},
     "block_m=16, consumer_warpgroups=1, block_n=128, stages=10, swap_ab=1",
     "swapped"},
    {"fp8_gemm", {300, 1400, 304}},
    {"fp8_gemm", {2048, 2048, 1024}},
    {"fp8_gemm",
     {136, 7000, 1408},
     "block_m=64, consumer_warpgroups=1, block_n=112, stages=4, k_chunks=2, swizzle_size=4",
     "columns112"},
    {"fp8_gemm_e5m2", {300, 1400, 304}},
    {"fp8_gemm_rowwise", {300, 1400, 304}},
    {"fp8_gemm_rowwise",
     {136, 7000, 1408},
     "block_m=64, consumer_warpgroups=1, block_n=112, stages=4, k_chunks=2, swizzle_size=4",
     "columns112"},
    {"fp8_gemm_block_scaled", {300, 1400, 304}},
    {"fp8_gemm_block_scaled", {1024, 1024, 1024}},
    {"int8_gemm", {300, 1400, 304}},
    {"int8_gemm", {2048, 2048, 1024}},
    {"int8_gemm_u8", {136, 7000, 1408}},
    {"int8_gemm_rowwise", {2048, 2048, 1024}},
    {"weight_only_gemm_i2", {33, 1400, 1024}},
    {"weight_only_gemm_i3", {128, 1024, 2048}},
    {"weight_only_gemm_i4", {33, 1400, 1024}},
    {"weight_only_gemm_u4", {128, 1024, 2048}},
    {"weight_only_gemm_i6", {33, 1400, 1024}},
    {"weight_only_gemm_i8", {128, 1024, 2048}},
    {"weight_only_gemm_f4e2m1", {33, 1400, 1024}},
    {"weight_only_gemm_f6e2m3", {128, 1024, 2048}},
    {"weight_only_gemm_f6e3m2", {33, 1400, 1024}},
    {"weight_only_gemm_f8e4m3", {128, 1024, 2048}},
    {"weight_only_repack_i4", {1400, 1024}},
    {"weight_only_repack_i3", {1024, 2048}},
};

// The weight-only GEMM on wgmma for 2, 3, 4, 6 and 8 bits, at decode and prefill sizes (each tuned,
// so every candidate of its space runs once), with f16 and with bf16 activations.
const std::vector<ExampleCase> kWeightOnlyGemmWgmma = {
    {"weight_only_gemm_wgmma_i2", {5, 1400, 1024}},
    {"weight_only_gemm_wgmma_i3", {300, 1024, 2048}},
    {"weight_only_gemm_wgmma_i4", {1, 4096, 4096}},
    {"weight_only_gemm_wgmma_i4", {1000, 1096, 1536}},
    {"weight_only_gemm_wgmma_u4", {64, 1400, 1024}},
    {"weight_only_gemm_wgmma_i6", {33, 1400, 1024}},
    {"weight_only_gemm_wgmma_i8", {300, 1024, 2048}},
    {"weight_only_gemm_wgmma_f4e2m1", {17, 1400, 1024}},
    {"weight_only_gemm_wgmma_f6e3m2", {300, 1024, 2048}},
    {"weight_only_gemm_wgmma_f8e4m3", {33, 1400, 1024}},
    // Each k-tile in two halves, at decode and at prefill sizes.
    {"weight_only_gemm_wgmma_i4",
     {5, 1400, 1024},
     "block_m=16, split_k=2, consumer_warpgroups=2, row_blocks=1, overlap=0, epilogue_tma=0, promote=1, k_slices=2, "
     "swizzle_size=8",
     "halves"},
    {"weight_only_gemm_wgmma_i2",
     {300, 1024, 2048},
     "block_m=256, split_k=1, consumer_warpgroups=2, row_blocks=1, overlap=0, epilogue_tma=1, promote=0, k_slices=2, "
     "swizzle_size=8",
     "halves"},
    {"weight_only_gemm_wgmma_i4",
     {1, 14336, 4096},
     "block_m=8, split_k=2, consumer_warpgroups=2, row_blocks=2, overlap=0, epilogue_tma=0, promote=1, k_slices=1, "
     "swizzle_size=4",
     "rows8"},
    // The consumer warpgroups on the same rows, taking the k-tiles in turn: two and three of two
    // row blocks, and four of one, split 2.
    {"weight_only_gemm_wgmma_i4",
     {1, 14336, 4096},
     "block_m=8, split_k=1, consumer_warpgroups=2, row_blocks=2, overlap=0, epilogue_tma=0, promote=1, interleave_k=1, "
     "k_slices=1, swizzle_size=4",
     "interleaved"},
    {"weight_only_gemm_wgmma_i4",
     {9, 4096, 14336},
     "block_m=16, split_k=4, consumer_warpgroups=3, row_blocks=2, overlap=0, epilogue_tma=0, promote=1, "
     "interleave_k=1, k_slices=2, swizzle_size=8",
     "interleaved3"},
    {"weight_only_gemm_wgmma_i8",
     {9, 4096, 14336},
     "block_m=8, split_k=2, consumer_warpgroups=4, row_blocks=1, overlap=0, epilogue_tma=0, promote=1, interleave_k=1, "
     "k_slices=2, swizzle_size=4",
     "interleaved4"},
    // Three warpgroups in turn over 6 stages of their own, 32 k-tiles a tile (the configuration that
    // faulted on shared stages: docs/performance.md, "Stages of their own"), and split 4, items of
    // 8 k-tiles, not a multiple of 3.
    {"weight_only_gemm_wgmma_i8",
     {1, 14336, 4096},
     "block_m=16, split_k=1, consumer_warpgroups=3, row_blocks=2, overlap=0, epilogue_tma=0, promote=1, "
     "interleave_k=1, k_slices=2, swizzle_size=8",
     "interleaved3_laps"},
    {"weight_only_gemm_wgmma_i8",
     {1, 14336, 4096},
     "block_m=16, split_k=4, consumer_warpgroups=3, row_blocks=2, overlap=0, epilogue_tma=0, promote=1, "
     "interleave_k=1, k_slices=2, swizzle_size=8",
     "interleaved3_items"},
    // bf16 activations, scales and output.
    {"weight_only_gemm_wgmma_bf16_i4", {1, 4096, 4096}},
    {"weight_only_gemm_wgmma_bf16_i3", {300, 1024, 2048}},
    {"weight_only_gemm_wgmma_bf16_i6", {33, 1400, 1024}},
    {"weight_only_gemm_wgmma_bf16_i8", {64, 1400, 1024}},
    {"weight_only_gemm_bf16_i4", {16, 4096, 4096}},
    {"weight_only_gemm_bf16_i3", {130, 1024, 2048}},
    {"weight_only_gemm_bf16_i6", {1, 1400, 1024}},
    {"weight_only_gemm_bf16_i8", {64, 1400, 1024}},
};

// sm_80 code on a later GPU, which the driver compiles from the PTX kept with it
// (runtime::module_image): the Ampere kernels as an A100 would run them, where the cases above build
// them for the GPU's own target.
const std::vector<ExampleCase> kSm80OnLaterGpus = {
    {"vector_add", {1000003}, {}, {}, "sm_80"},
    {"row_softmax", {333, 4096}, {}, {}, "sm_80"},
    {"matmul_simt", {257, 129, 95}, {}, {}, "sm_80"},
    {"ampere_v3_mma", {300, 257, 96}, {}, {}, "sm_80"},
    {"ampere_v4_pipelined", {129, 129, 40}, {}, {}, "sm_80"},
    {"ampere_v5_swizzled", {2048, 1024, 512}, {}, {}, "sm_80"},
    {"ampere_v5_swizzled_bf16", {300, 257, 96}, {}, {}, "sm_80"},
    {"ampere_v5_swizzled_tf32", {300, 257, 96}, {}, {}, "sm_80"},
    {"ampere_v5_swizzled_tf32", {1024, 1024, 512}, {}, {}, "sm_80"},
    {"weight_only_gemm_i4", {33, 1400, 1024}, {}, {}, "sm_80"},
    {"weight_only_gemm_bf16_i4", {16, 4096, 4096}, {}, {}, "sm_80"},
    {"attention_v1", {1, 4, 2, 150, 170, 64, 1}, {}, {}, "sm_80"},
};

// How gtest names a case in `ctest -N` and in failures: "hopper_v5 4096x4096x1024".
void PrintTo(const ExampleCase& c, std::ostream* os) {
  *os << fmt::format("{} {}{}{}{}{}", c.name, fmt::join(c.sizes, "x"), c.configuration.empty() ? "" : " ",
                     c.configuration, c.arch.empty() ? "" : " for ", c.arch);
}

class ExampleOnGpu : public testing::GpuTest, public ::testing::WithParamInterface<ExampleCase> {};

TEST_P(ExampleOnGpu, MatchesTheHostReference) {
  if (GetParam().arch == "sm_80" && runtime::native_target(runtime::CudaDriver::get().device_info()) == ir::Arch::Sm80)
    GTEST_SKIP() << "this GPU runs sm_80 machine code itself";
  KernelOptions options;
  options.configuration = GetParam().configuration;
  options.arch = GetParam().arch;
  const cli::RunResult r = examples::find_example(GetParam().name).run(Device::gpu(), GetParam().sizes, options);
  EXPECT_TRUE(r.ok) << r.summary;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleOnGpu, ::testing::ValuesIn(kExamples), case_name);
INSTANTIATE_TEST_SUITE_P(WeightOnlyGemmWgmma, ExampleOnGpu, ::testing::ValuesIn(kWeightOnlyGemmWgmma), case_name);
INSTANTIATE_TEST_SUITE_P(Sm80OnLaterGpus, ExampleOnGpu, ::testing::ValuesIn(kSm80OnLaterGpus), case_name);

}  // namespace
}  // namespace tessel
