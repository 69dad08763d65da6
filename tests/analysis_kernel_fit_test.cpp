// Whether a lowered kernel's block fits a GPU: each limit, its exact reason, and the kernels that
// fit everywhere.
#include "tessel/analysis/kernel_fit.hpp"

#include <gtest/gtest.h>

#include "examples.hpp"

namespace tessel::analysis {
namespace {

// The SIMT matmul: shared-memory tiles, 256 threads, lowered for sm_90a.
ir::Kernel simt_matmul() { return examples::find_example("matmul_simt").ir({200, 136, 96}, true); }

TEST(KernelFit, AKernelWithinEveryLimitFits) {
  const ir::Kernel k = simt_matmul();
  ASSERT_GT(k->shared_bytes, 0);
  for (const char* gpu : {"a100", "h100", "h200", "b200"}) {
    SCOPED_TRACE(gpu);
    EXPECT_EQ(thread_overflow(*k, gpu_spec(gpu)), std::nullopt);
    EXPECT_EQ(shared_memory_overflow(*k, gpu_spec(gpu)), std::nullopt);
    EXPECT_EQ(register_overflow(*k, 64, gpu_spec(gpu)), std::nullopt);
    EXPECT_EQ(tensor_memory_overflow(*k, gpu_spec(gpu)), std::nullopt);
  }
}

TEST(KernelFit, EachOverflowSaysWhatAndHowMuch) {
  const ir::Kernel k = simt_matmul();
  GpuSpec small = gpu_spec("h200");
  small.max_threads_per_block = k->threads() / 2;
  small.shared_per_block_optin = k->shared_bytes - 1;
  EXPECT_EQ(thread_overflow(*k, small),
            fmt::format("{} threads per block; H200 allows {}", k->threads(), k->threads() / 2));
  EXPECT_EQ(shared_memory_overflow(*k, small), fmt::format("needs {} bytes of shared memory per block; H200 allows {}",
                                                           k->shared_bytes, k->shared_bytes - 1));
  // 65536 registers per block: exactly full fits, one register more per thread does not.
  const int full = 65536 / k->threads();
  EXPECT_EQ(register_overflow(*k, full, gpu_spec("h200")), std::nullopt);
  EXPECT_EQ(register_overflow(*k, full + 1, gpu_spec("h200")),
            fmt::format("{} registers x {} threads exceed the 65536 registers a block may use on H200", full + 1,
                        k->threads()));
}

// Seed V0 holds one 128 x 64 f32 accumulator: 64 columns of the 512 a B200 block has.
TEST(KernelFit, TensorMemoryIsTheColumnsHeldAtOnce) {
  const ir::Kernel k = examples::find_example("blackwell_v0").ir({256, 256, 512}, true);
  EXPECT_EQ(tensor_memory_overflow(*k, gpu_spec("b200")), std::nullopt);
  GpuSpec small = gpu_spec("b200");
  small.tmem_columns = 32;
  EXPECT_EQ(tensor_memory_overflow(*k, small), "holds 64 columns of tensor memory at once; B200 has 32");
}

}  // namespace
}  // namespace tessel::analysis
