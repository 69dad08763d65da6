// The language's semantics on the GPU; skipped, visibly, without one.
#include "../language_kernels.hpp"
#include "../return_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using LanguageOnGpu = GpuTest;

TEST_F(LanguageOnGpu, ClassMembersAreKernelVariables) { check_pipeline_walk(Device::gpu()); }
TEST_F(LanguageOnGpu, TupleMethodsBranchesAndWhileLoops) { check_collatz(Device::gpu()); }
TEST_F(LanguageOnGpu, AWhileConditionThatLoadsIsTestedAfresh) { check_while_condition_with_loads(Device::gpu()); }
TEST_F(LanguageOnGpu, BreakAndContinueLeaveTheLoopAndEndThePass) { check_breaks_out_of_loops(Device::gpu()); }
TEST_F(LanguageOnGpu, BreakAndContinueOfSomeLanesOfAWarp) { check_exits_of_some_lanes(Device::gpu()); }
TEST_F(LanguageOnGpu, ReturnEndsTheThreadsThatRunIt) { check_returns_early(Device::gpu()); }
TEST_F(LanguageOnGpu, AClusterBarrierWaitsOnlyForThreadsThatHaveNotReturned) {
  check_cluster_sync_after_returns(Device::gpu(), KernelOptions{.arch = "sm_90a"});
}
TEST_F(LanguageOnGpu, ThreadAndLaneIndices) { check_thread_indices(Device::gpu()); }
TEST_F(LanguageOnGpu, CastsAndElementwiseMath) { check_math_and_casts(Device::gpu()); }
TEST_F(LanguageOnGpu, FmaOfHalvesRoundsOnce) { check_half_fma(Device::gpu()); }
TEST_F(LanguageOnGpu, ReductionsOverEitherDimension) { check_reductions(Device::gpu()); }
TEST_F(LanguageOnGpu, SumsOfBoolsAndNarrowIntegersPromoteTo32Bits) { check_narrow_sums(Device::gpu()); }
TEST_F(LanguageOnGpu, SlicesOfRegisterTiles) { check_column_block_slices(Device::gpu()); }
TEST_F(LanguageOnGpu, Unsigned64BitValues) { check_unsigned_64_bit_values(Device::gpu()); }
TEST_F(LanguageOnGpu, PersistentGridOfMultiprocessorsBlocks) {
  check_persistent_tiles(Device::gpu(), {}, runtime::CudaDriver::get().device_info().sm_count);
}

}  // namespace
}  // namespace tessel::testing
