// Packed tiles of every width on the GPU; skipped, visibly, without one.
#include "../any_width_kernels.hpp"
#include "../packed_types_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using PackedTypesOnGpu = GpuTest;

TEST_F(PackedTypesOnGpu, LoadsStoresConversionsAndBitcasts) {
  check_packed_tiles<i4>(Device::gpu());
  check_packed_tiles<u4>(Device::gpu());
}

TEST_F(PackedTypesOnGpu, EveryWidthLoadsStoresAndConverts) {
  for_each_any_width_type([](auto type) { check_any_width_tiles<decltype(type)>(Device::gpu()); });
}

TEST_F(PackedTypesOnGpu, F16NansNarrowWithTheirSign) { check_narrowing_from_f16(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
