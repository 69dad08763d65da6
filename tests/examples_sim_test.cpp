// Every example on the simulator, on sizes that are and are not multiples of the tile sizes,
// under several warp interleavings, against its host reference on random data.
#include <set>

#include <gtest/gtest.h>

#include "examples.hpp"

namespace tessel {
namespace {

struct Case {
  std::string example;
  std::vector<int64_t> sizes;
};

// How gtest names a case in `ctest -N` and in failures: "hopper_v5 130x600x208".
void PrintTo(const Case& c, std::ostream* os) { *os << fmt::format("{} {}", c.example, fmt::join(c.sizes, "x")); }

class ExampleOnSimulator : public ::testing::TestWithParam<Case> {};

TEST_P(ExampleOnSimulator, MatchesTheHostReference) {
  const Case& c = GetParam();
  const auto& e = examples::find_example(c.example);
  for (uint64_t seed : {0, 3}) {
    const cli::RunResult r = e.run(Device::simulator(), c.sizes, KernelOptions{.sim = {.seed = seed}});
    EXPECT_TRUE(r.ok) << r.summary << " (seed " << seed << ")";
  }
}

const auto kCases = ::testing::Values(
    Case{"vector_add", {1}}, Case{"vector_add", {2048}}, Case{"vector_add", {5000}}, Case{"vector_add", {12289}},
    Case{"row_softmax", {4, 128}}, Case{"row_softmax", {5, 1}}, Case{"row_softmax", {9, 300}},
    Case{"row_softmax", {3, 1000}}, Case{"wide_row_softmax", {3, 4096}}, Case{"dequantize_int4", {256, 512}},
    Case{"dequantize_int4", {300, 1000}}, Case{"dequantize_int4", {17, 7}}, Case{"wide_row_softmax", {2, 3000}},
    Case{"greedy_sampling", {3, 9000}}, Case{"greedy_sampling", {2, 4096}}, Case{"greedy_sampling", {4, 100}},
    Case{"cluster_row_softmax", {3, 20000}}, Case{"cluster_row_softmax", {2, 5000}}, Case{"layer_norm", {3, 4096}},
    Case{"layer_norm", {2, 1000}}, Case{"quantize_fp8_groups", {37, 640}}, Case{"moe_permute", {37, 100}},
    Case{"moe_permute", {64, 1024}}, Case{"moe_unpermute", {37, 100, 2}}, Case{"moe_unpermute", {64, 1024, 8}},
    Case{"moe_grouped_gemm", {200, 136, 96, 4}}, Case{"moe_grouped_gemm", {37, 64, 64, 8}},
    Case{"moe_grouped_gemm", {513, 264, 128, 16}}, Case{"moe_grouped_gemm", {600, 72, 64, 2}},
    Case{"moe_grouped_gemm_fp8", {200, 136, 160, 4}}, Case{"moe_grouped_gemm_fp8", {37, 64, 64, 8}},
    Case{"moe_grouped_gemm_fp8", {600, 72, 272, 2}}, Case{"moe_grouped_gemm_fp8_block_scaled", {200, 264, 320, 4}},
    Case{"moe_grouped_gemm_fp8_block_scaled", {37, 64, 64, 8}}, Case{"quantize_fp8_groups", {9, 7168}},
    Case{"matmul_simt", {128, 128, 32}}, Case{"matmul_simt", {100, 72, 80}}, Case{"matmul_simt", {1, 130, 7}},
    Case{"ampere_v1_naive", {70, 65, 33}}, Case{"ampere_v2_shared", {129, 64, 16}},
    Case{"ampere_v3_mma", {128, 128, 64}}, Case{"ampere_v3_mma", {130, 200, 40}},
    Case{"ampere_v4_pipelined", {128, 128, 128}}, Case{"ampere_v4_pipelined", {150, 129, 72}},
    Case{"ampere_v4_pipelined", {40, 33, 200}}, Case{"ampere_v5_swizzled", {128, 128, 128}},
    Case{"ampere_v5_swizzled", {150, 129, 72}}, Case{"ampere_v5_swizzled_bf16", {150, 129, 72}},
    Case{"ampere_v5_swizzled_tf32", {150, 129, 72}}, Case{"hopper_v1", {130, 72, 80}},
    Case{"hopper_v1_bf16", {64, 128, 64}}, Case{"hopper_v2", {130, 72, 208}}, Case{"hopper_v2_bf16", {64, 128, 256}},
    Case{"hopper_v3", {130, 72, 208}}, Case{"hopper_v3_bf16", {64, 256, 128}}, Case{"hopper_v4", {130, 600, 208}},
    Case{"hopper_v4_bf16", {64, 256, 128}}, Case{"hopper_v5", {130, 600, 208}}, Case{"hopper_v5_bf16", {64, 256, 128}},
    Case{"hopper_v5_tf32", {130, 600, 104}}, Case{"blackwell_tf32", {130, 72, 96}}, Case{"blackwell_v0", {130, 72, 80}},
    Case{"blackwell_v1", {130, 72, 80}}, Case{"blackwell_v2", {130, 72, 80}}, Case{"blackwell_v3", {130, 72, 80}},
    Case{"blackwell_v4", {130, 72, 80}}, Case{"blackwell_v5", {130, 72, 80}}, Case{"blackwell_v6", {130, 72, 80}},
    Case{"blackwell_fp8", {130, 72, 96}}, Case{"blackwell_fp8_e5m2", {64, 136, 64}},
    Case{"blackwell_fp6_fp4", {130, 72, 96}}, Case{"blackwell_fp6_fp8", {64, 136, 64}},
    Case{"blackwell_int8", {130, 72, 96}}, Case{"blackwell_int8_u8", {64, 136, 160}},
    Case{"blackwell_mxfp8", {130, 136, 320}}, Case{"blackwell_mxfp4", {130, 72, 320}},
    Case{"blackwell_nvfp4", {130, 136, 192}}, Case{"fp8_gemm", {130, 304, 208}}, Case{"fp8_gemm_e5m2", {64, 256, 128}},
    Case{"fp8_gemm_rowwise", {130, 304, 208}}, Case{"fp8_gemm_block_scaled", {132, 304, 1008}},
    Case{"int8_gemm", {130, 304, 208}}, Case{"int8_gemm_u8", {64, 256, 384}}, Case{"int8_gemm_rowwise", {64, 232, 384}},
    Case{"weight_only_gemm_i2", {33, 136, 640}}, Case{"weight_only_gemm_i3", {33, 136, 640}},
    Case{"weight_only_gemm_i4", {33, 136, 640}}, Case{"weight_only_gemm_u4", {1, 72, 256}},
    Case{"weight_only_gemm_i6", {33, 136, 640}}, Case{"weight_only_gemm_i8", {33, 136, 640}},
    Case{"weight_only_gemm_f4e2m1", {33, 136, 640}}, Case{"weight_only_gemm_f6e2m3", {33, 136, 640}},
    Case{"weight_only_gemm_f6e3m2", {5, 104, 256}}, Case{"weight_only_gemm_f8e4m3", {33, 136, 640}},
    Case{"weight_only_gemm_wgmma_i2", {130, 136, 384}}, Case{"weight_only_gemm_wgmma_i3", {5, 200, 384}},
    Case{"weight_only_gemm_wgmma_i4", {130, 136, 640}}, Case{"weight_only_gemm_wgmma_u4", {17, 72, 256}},
    Case{"weight_only_gemm_wgmma_i6", {130, 136, 384}}, Case{"weight_only_gemm_wgmma_i8", {5, 200, 384}},
    Case{"weight_only_gemm_wgmma_f4e2m1", {130, 136, 384}}, Case{"weight_only_gemm_wgmma_f6e2m3", {5, 200, 384}},
    Case{"weight_only_gemm_wgmma_f6e3m2", {130, 136, 384}}, Case{"weight_only_gemm_wgmma_f8e4m3", {5, 200, 384}},
    Case{"weight_only_repack_i2", {40, 256}}, Case{"weight_only_repack_i3", {40, 256}},
    Case{"weight_only_repack_i4", {40, 256}}, Case{"weight_only_repack_u4", {40, 256}},
    Case{"weight_only_repack_i6", {40, 256}}, Case{"weight_only_repack_i8", {40, 256}},
    Case{"weight_only_repack_f4e2m1", {40, 256}}, Case{"weight_only_repack_f6e2m3", {40, 256}},
    Case{"weight_only_repack_f6e3m2", {40, 256}}, Case{"weight_only_repack_f8e4m3", {40, 256}},
    Case{"weight_only_gemm_wgmma_bf16_i3", {5, 200, 384}}, Case{"weight_only_gemm_wgmma_bf16_i4", {130, 136, 640}},
    Case{"weight_only_gemm_wgmma_bf16_i6", {5, 200, 384}}, Case{"weight_only_gemm_wgmma_bf16_i8", {130, 136, 384}},
    Case{"weight_only_repack_bf16_i3", {40, 256}}, Case{"weight_only_repack_bf16_i4", {40, 256}},
    Case{"weight_only_repack_bf16_i6", {40, 256}}, Case{"weight_only_repack_bf16_i8", {40, 256}},
    Case{"weight_only_gemm_bf16_i3", {17, 72, 256}}, Case{"weight_only_gemm_bf16_i4", {40, 200, 384}},
    Case{"weight_only_gemm_bf16_i6", {5, 136, 256}}, Case{"weight_only_gemm_bf16_i8", {17, 72, 384}});

INSTANTIATE_TEST_SUITE_P(Sizes, ExampleOnSimulator, kCases, [](const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.example;
  for (int64_t s : info.param.sizes) name += "_" + std::to_string(s);
  return name;
});

// The cases above run each example's first candidate; these forms of quantize_fp8_groups split a row
// over several blocks, the last of which reaches past k.
TEST(ExampleOnSimulator, QuantizeFp8GroupsSplitsARowOverBlocks) {
  const auto& e = examples::find_example("quantize_fp8_groups");
  for (const char* configuration : {"warps=4, passes=1", "warps=4, passes=2", "warps=8, passes=1"})
    for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{9, 7168}, std::vector<int64_t>{37, 640}}) {
      const cli::RunResult r = e.run(Device::simulator(), sizes, KernelOptions{.configuration = configuration});
      EXPECT_TRUE(r.ok) << r.summary << " [" << configuration << "]";
    }
}

TEST(ExampleOnSimulator, EveryExampleIsCovered) {
  std::set<std::string> covered = {"broken_sync"};
  for (const Case& c : ::testing::internal::ParamGenerator<Case>(kCases)) covered.insert(c.example);
  for (const auto& e : examples::registry().entries()) {
    if (e.name.starts_with("attention_")) continue;  // tests/attention_ladder_test.cpp runs the attention ladder
    EXPECT_TRUE(covered.count(e.name)) << e.name << " has no simulator test";
  }
}

TEST(ExampleOnSimulator, BrokenSyncIsReportedAsADeadlock) {
  try {
    examples::find_example("broken_sync").run(Device::simulator(), {256}, {});
    FAIL() << "no deadlock reported";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken_sync.cpp:20: deadlock in block (0, 0, 0) of kernel BrokenSync"), std::string::npos)
        << what;
    EXPECT_NE(what.find("warp 1 (threads 32..63): waiting at sync() at"), std::string::npos) << what;
    EXPECT_NE(what.find("warp 3 (threads 96..127): finished"), std::string::npos) << what;
    EXPECT_NE(what.find("barrier of sync(): 64 of 128 threads arrived"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tessel
