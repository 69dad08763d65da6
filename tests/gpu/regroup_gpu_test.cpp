// Register regroupings on the GPU; skipped, visibly, without one.
#include "../regroup_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using RegroupOnGpu = GpuTest;

TEST_F(RegroupOnGpu, ReshapePermuteConcatAndInterleave) {
  check_regroupings(Device::gpu());
  check_regroupings<RegroupingsOfDefaultLayouts>(Device::gpu());
}
TEST_F(RegroupOnGpu, ConvertLayoutByWarpShuffles) { check_layout_conversions(Device::gpu()); }
TEST_F(RegroupOnGpu, ConvertLayoutAcrossWarps) { check_layout_conversions_across_warps(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
