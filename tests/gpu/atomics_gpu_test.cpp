// Atomics and reductions across warps on the GPU; skipped, visibly, without one.
#include "../atomics_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using AtomicsOnGpu = GpuTest;

TEST_F(AtomicsOnGpu, OnePassColumnSums) {
  check_column_sums<int32_t>(Device::gpu(), 4099);
  check_column_sums<float>(Device::gpu(), 4099);
}
TEST_F(AtomicsOnGpu, TicketsArePermutations) { check_tickets(Device::gpu()); }
TEST_F(AtomicsOnGpu, MinMaxBitwiseAndClaims) { check_combine_and_claim(Device::gpu()); }
// Both blocks of the grid are resident together on any GPU, so either may wait for the other.
TEST_F(AtomicsOnGpu, ReleaseAndAcquireHandADataTileBetweenBlocks) {
  for (int i = 0; i < 20; ++i) {
    check_flag_handoff<0>(Device::gpu());
    check_flag_handoff<1>(Device::gpu());
  }
}
// A relaxed flag ordered by fences on each side; fence.sc as well as fence.acq_rel.
TEST_F(AtomicsOnGpu, FencesOrderARelaxedFlagBetweenBlocks) {
  for (int i = 0; i < 20; ++i) {
    check_fenced_flag_handoff<0, false>(Device::gpu());
    check_fenced_flag_handoff<1, true>(Device::gpu());
  }
}
TEST_F(AtomicsOnGpu, ScatterHistogramAndTokenPlaces) {
  check_histogram(Device::gpu());
  check_token_places(Device::gpu());
}
TEST_F(AtomicsOnGpu, RowsAcrossWarps) {
  check_rows_across_warps<float>(Device::gpu());
  check_rows_across_warps<int32_t>(Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
