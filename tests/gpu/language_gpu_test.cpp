// The language's semantics on the GPU; skipped, visibly, without one.
#include "../language_kernels.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::testing {
namespace {

class LanguageOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& d = runtime::CudaDriver::get();
    if (!d.available()) GTEST_SKIP() << "no GPU: " << d.unavailable_reason();
  }
};

TEST_F(LanguageOnGpu, ClassMembersAreKernelVariables) { check_pipeline_walk(Device::gpu()); }
TEST_F(LanguageOnGpu, TupleMethodsBranchesAndWhileLoops) { check_collatz(Device::gpu()); }
TEST_F(LanguageOnGpu, CastsAndElementwiseMath) { check_math_and_casts(Device::gpu()); }
TEST_F(LanguageOnGpu, ReductionsOverEitherDimension) { check_reductions(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
