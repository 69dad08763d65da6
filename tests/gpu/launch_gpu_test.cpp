// The launch path on the GPU: parameters of every type through the argument block, pointers no
// launch accepts, calls that allocate nothing, and cluster launches through cuLaunchKernelEx.
#include <atomic>
#include <cstdlib>
#include <new>

#include "../launch_kernels.hpp"
#include "gpu_test.hpp"
#include "tessel/runtime/launch.hpp"
#include "vector_add.hpp"

namespace {
// Counts the allocations of this test program, so that a test can see a call make none.
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t bytes) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes ? bytes : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace tessel::testing {
namespace {

using LaunchOnGpu = GpuTest;

TEST_F(LaunchOnGpu, EveryParameterTypeReachesTheKernel) { check_every_parameter_type(Device::gpu()); }

TEST_F(LaunchOnGpu, NullAndUnalignedPointersAreRefusedBeforeLaunch) { check_bad_pointers_are_refused(Device::gpu()); }

TEST_F(LaunchOnGpu, ACallAllocatesNothing) {
  const Device gpu = Device::gpu();
  const int n = 1 << 16;
  Buffer<float> a(gpu, std::vector<float>(n, 1.0f)), b(gpu, std::vector<float>(n, 2.0f)), c(gpu, n);
  Kernel<examples::VectorAdd> add(gpu);
  add(n, a, b, c);  // the first call compiles and loads
  const long before = allocations.load();
  for (int i = 0; i < 100; ++i) add(n, a, b, c);
  const long during = allocations.load() - before;
  gpu.synchronize();
  EXPECT_EQ(during, 0);
  EXPECT_EQ(c.download(), std::vector<float>(n, 3.0f));
}

// Code of a target this GPU does not run is refused at the first call with the target it needs,
// where the driver would say only CUDA_ERROR_NO_BINARY_FOR_GPU.
TEST_F(LaunchOnGpu, CodeForAnotherGpuNamesTheTargetThisOneNeeds) {
  const auto info = runtime::CudaDriver::get().device_info();
  const auto native = runtime::native_target(info);
  if (!native) GTEST_SKIP() << info.name << " has no target of its own";
  const std::string other = native == ir::Arch::Sm100a ? "sm_90a" : "sm_100a";
  const Device gpu = Device::gpu();
  Buffer<float> a(gpu, std::vector<float>(64, 1.0f)), b(gpu, std::vector<float>(64, 2.0f)), c(gpu, 64);
  Kernel<examples::VectorAdd> add(gpu, KernelOptions{.arch = other});
  try {
    add(64, a, b, c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(
        e.message(),
        fmt::format("kernel VectorAdd is built for {}, which runs on GPUs of compute capability {} only; this GPU, "
                    "{}, has compute capability {}.{}: build it for {} (KernelOptions::arch, or --arch on the "
                    "command line)",
                    other, other == "sm_90a" ? "9.0" : "10.0", info.name, info.cc_major, info.cc_minor,
                    ir::arch_name(*native)));
  }
}

// Writes its block index at that index.
struct BlockIds : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = n;
    attrs.warps = 1;
    single_thread(
        [&] { store_global(global_view(out, {n}), register_tensor<int32_t>({1}, blockIdx.x), {blockIdx.x}); });
  }
};

TEST_F(LaunchOnGpu, ClusterLaunchRunsEveryBlock) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "clusters need sm_90 or newer";
  const Device gpu = Device::gpu();
  const int n = 8;
  Buffer<int32_t> out(gpu, std::vector<int32_t>(n, -1));
  Kernel<BlockIds> k(gpu);
  const ir::Kernel lowered = k.lowered(n, out);
  const runtime::KernelBinary binary = runtime::compile_kernel(*lowered, ir::parse_arch(k.stats().arch));
  const runtime::LoadedKernel loaded(binary, *lowered);
  runtime::LaunchShape shape;
  shape.grid = {n, 1, 1};
  shape.cluster = {2, 1, 1};
  shape.threads = unsigned(lowered->threads());
  shape.shared_bytes = unsigned(lowered->shared_bytes);
  const std::vector<ir::Scalar> values = {{.i = n}, {.i = int64_t(reinterpret_cast<uintptr_t>(out.data()))}};
  runtime::launch(loaded, shape, values, nullptr);
  gpu.synchronize();
  EXPECT_EQ(out.download(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));

  shape.grid = {7, 1, 1};
  try {
    runtime::launch(loaded, shape, values, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "kernel BlockIds: a grid of 7 x 1 x 1 blocks is not a whole number of 2 x 1 x 1 clusters");
  }
}

}  // namespace
}  // namespace tessel::testing
