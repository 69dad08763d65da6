// Packed 4-bit tiles on the GPU; skipped, visibly, without one.
#include "../packed_types_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using PackedTypesOnGpu = GpuTest;

TEST_F(PackedTypesOnGpu, LoadsStoresConversionsAndBitcasts) {
  check_packed_tiles<i4>(Device::gpu());
  check_packed_tiles<u4>(Device::gpu());
}

}  // namespace
}  // namespace tessel::testing
