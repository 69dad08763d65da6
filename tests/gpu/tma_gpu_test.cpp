// TMA stores and loads on the GPU: tensor maps encoded at launch, against the host reference; the host cost of
// a launch that passes a tensor map. Skipped, visibly, without a GPU.
#include <chrono>

#include "../bulk_copy_kernels.hpp"
#include "../tma_kernels.hpp"
#include "gpu_test.hpp"
#include "tessel/runtime/loaded_kernel.hpp"
#include "vector_add.hpp"

namespace tessel::testing {
namespace {

using TmaOnGpu = GpuTest;

template <class S, class T> void check_on_gpu(int m, int n) {
  check_store_tile<T>(Device::gpu(), m, n, [](int m, int n, auto& in, auto& out) {
    Kernel<S> k(Device::gpu());
    k(m, n, in, out);
    Device::gpu().synchronize();
  });
}

TEST_F(TmaOnGpu, StoresTilesAtMultipleAndNonMultipleSizes) {
  for (auto [m, n] : {std::pair{64, 96}, std::pair{45, 76}, std::pair{1000, 1000}})
    check_on_gpu<StoreTileByTma<float, 32, 32, Swizzle::none>, float>(m, n);
  for (auto [m, n] : {std::pair{64, 128}, std::pair{70, 88}, std::pair{1024, 2048}})
    check_on_gpu<StoreTileByTma<f16, 32, 64, Swizzle::b128>, f16>(m, n);
  check_on_gpu<StoreTileByTma<bf16, 16, 32, Swizzle::b64>, bf16>(33, 40);
}

TEST_F(TmaOnGpu, LoadsTilesAtMultipleAndNonMultipleSizes) {
  for (auto [m, n] : {std::pair{64, 96}, std::pair{45, 76}, std::pair{1000, 1000}})
    check_on_gpu<LoadTileByTma<float, 32, 32, Swizzle::none>, float>(m, n);
  for (auto [m, n] : {std::pair{64, 128}, std::pair{70, 88}, std::pair{1024, 2048}})
    check_on_gpu<LoadTileByTma<f16, 32, 64, Swizzle::b128>, f16>(m, n);
  check_on_gpu<LoadTileByTma<bf16, 16, 32, Swizzle::b64>, bf16>(33, 40);
}

// Host microseconds per call of `kernel` with `args`, after a first call that compiles and encodes.
template <class K, class... A> double microseconds_per_call(K& kernel, const A&... args) {
  const int calls = 20000;
  kernel(args...);
  Device::gpu().synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) kernel(args...);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  Device::gpu().synchronize();
  return us / calls;
}

TEST_F(TmaOnGpu, ATensorMapAddsLittleToALaunchOnceEncoded) {
  const int n = 1024;
  Buffer<float> x(Device::gpu(), std::vector<float>(n, 1.0f)), y(Device::gpu(), std::vector<float>(n, 2.0f)),
      z(Device::gpu(), n);
  Kernel<examples::VectorAdd> plain(Device::gpu());
  Buffer<f16> in(Device::gpu(), std::vector<f16>(64 * 128, f16(1.0f))), out(Device::gpu(), 64 * 128);
  Kernel<StoreTileByTma<f16, 32, 64, Swizzle::b128>> with_map(Device::gpu());
  const double plain_us = microseconds_per_call(plain, n, x, y, z);
  const double map_us = microseconds_per_call(with_map, 64, 128, in, out);
  std::printf("launch: %.2f us without a tensor map, %.2f us with one (cached)\n", plain_us, map_us);
  EXPECT_LT(map_us - plain_us, 2.0);
}

TEST_F(TmaOnGpu, RowsGatheredAndScatteredByBulkCopies) {
  const auto target = runtime::native_target(runtime::CudaDriver::get().device_info());
  if (target != ir::Arch::Sm90a && target != ir::Arch::Sm100a) GTEST_SKIP() << "bulk copies need sm_90a or sm_100a";
  check_gathers_and_scatters(Device::gpu(), 64, 32, {});
  check_gathers_and_scatters(Device::gpu(), 5000, 2048, {});
}

}  // namespace
}  // namespace tessel::testing
