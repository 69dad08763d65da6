// Cache hints and read-only views on the GPU: hinted and read-only (ld.global.nc) loads, stores,
// TMA copies and packed words compute what the same kernels without them do. Skipped, visibly,
// without a GPU.
#include "../read_only_kernels.hpp"
#include "gpu_test.hpp"
#include "tessel/runtime/loaded_kernel.hpp"

namespace tessel::testing {
namespace {

using CacheHintsOnGpu = GpuTest;

TEST_F(CacheHintsOnGpu, HintedAccessesComputeWhatUnhintedOnesDo) {
  for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{1000, 999}}) {
    check_hinted_loads_and_stores<float>(Device::gpu(), m, n, {});
    check_hinted_loads_and_stores<f16>(Device::gpu(), m, n, {});
    check_hinted_loads_and_stores<int8_t>(Device::gpu(), m, n, {});
  }
  check_hinted_packed_load(Device::gpu(), 1000, {});
}

TEST_F(CacheHintsOnGpu, HintedAtomicsComputeWhatUnhintedOnesDo) {
  for (int blocks : {1, 7, 300}) check_hinted_atomics(Device::gpu(), blocks, {});
}

TEST_F(CacheHintsOnGpu, ReadOnlyAndL1HintedAccessesComputeWhatPlainOnesDo) {
  for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{1000, 999}}) {
    check_qualified_loads_and_stores<float>(Device::gpu(), m, n, {});
    check_qualified_loads_and_stores<f16>(Device::gpu(), m, n, {});
    check_qualified_loads_and_stores<int8_t>(Device::gpu(), m, n, {});
  }
  check_read_only_packed_load(Device::gpu(), 1000, {});
}

TEST_F(CacheHintsOnGpu, Sm80CodeWithHintsRunsFromItsPtx) {
  if (runtime::native_target(runtime::CudaDriver::get().device_info()) == ir::Arch::Sm80)
    GTEST_SKIP() << "this GPU runs sm_80 machine code itself";
  check_hinted_loads_and_stores<f16>(Device::gpu(), 45, 100, KernelOptions{"sm_80"});
  check_hinted_packed_load(Device::gpu(), 70, KernelOptions{"sm_80"});
  check_hinted_atomics(Device::gpu(), 300, KernelOptions{"sm_80"});
  check_qualified_loads_and_stores<f16>(Device::gpu(), 45, 100, KernelOptions{"sm_80"});
  check_read_only_packed_load(Device::gpu(), 70, KernelOptions{"sm_80"});
}

TEST_F(CacheHintsOnGpu, HintedTmaCopiesComputeWhatUnhintedOnesDo) {
  const auto target = runtime::native_target(runtime::CudaDriver::get().device_info());
  if (target != ir::Arch::Sm90a && target != ir::Arch::Sm100a) GTEST_SKIP() << "TMA needs sm_90a or sm_100a";
  check_hinted_tma_copies<float>(Device::gpu(), 1000, 1000, {});
  check_hinted_tma_copies<f16>(Device::gpu(), 64, 128, {});
}

}  // namespace
}  // namespace tessel::testing
