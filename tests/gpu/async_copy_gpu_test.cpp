// cp.async on the GPU; skipped, visibly, without one.
#include "../async_copy_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using AsyncCopyOnGpu = GpuTest;

TEST_F(AsyncCopyOnGpu, CopiesATileAndZeroFillsBeyondTheView) {
  for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{1, 3}, std::pair{1000, 999}}) {
    check_copy_tile<float>(Device::gpu(), m, n);
    check_copy_tile<f16>(Device::gpu(), m, n);
  }
}

TEST_F(AsyncCopyOnGpu, ATileOfFewFactorsOfTwoIsCopiedByEveryThreadInTurn) { check_copies_taken_in_turn(Device::gpu()); }

TEST_F(AsyncCopyOnGpu, MultiStagePipeline) {
  check_pipelined_row_sum(Device::gpu(), 70, 300, 0);
  check_pipelined_row_sum(Device::gpu(), 4096, 4096, 0);
}

}  // namespace
}  // namespace tessel::testing
