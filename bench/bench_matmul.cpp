// The Ampere and Hopper matmul ladders (f16 in, f32 accumulate, f16 out; C = A * B^T) next to
// cuBLAS in the same process, on random data, with the same timing method.
#include <cublas_v2.h>

#include "matmul_hopper/v1_tma_wgmma.hpp"
#include "matmul_hopper/v2_multistage.hpp"
#include "matmul_hopper/v3_warp_specialized.hpp"
#include "matmul_hopper/v4_pipeline_class.hpp"
#include "matmul_simt.hpp"
#include "timing.hpp"
#include "v1_naive.hpp"
#include "v3_tensor_core.hpp"
#include "v4_pipelined.hpp"
#include "v5_swizzled.hpp"

using namespace tessel;

namespace {

template <class S> double tessel_ms(bench::Timer& timer, int size, f16* a, f16* b, f16* c) {
  Kernel<S> kernel(Device::gpu());
  return timer.median_ms([&] { kernel(size, size, size, a, b, c); }, 10, 2);
}

}  // namespace

int main() {
  bench::Timer timer;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  fmt::print("{:<24} {:>6} {:>10} {:>10} {:>9}\n", "kernel", "size", "TFLOPS", "cuBLAS", "ratio");
  for (int size : {4096, 8192}) {
    f16* a = bench::random_device_array<f16>(size_t(size) * size, 1);
    f16* b = bench::random_device_array<f16>(size_t(size) * size, 2);
    f16* c = bench::random_device_array<f16>(size_t(size) * size, 3);
    const double flops = 2.0 * size * size * size;
    const float alpha = 1, beta = 0;
    // Row-major C = A B^T is column-major C^T = B A^T: op(B)=B^T with B stored [n, k] row-major.
    const double cublas_ms = timer.median_ms([&] {
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, size, size, size, &alpha, b, CUDA_R_16F, size, a, CUDA_R_16F, size,
                   &beta, c, CUDA_R_16F, size, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    const double cublas_tf = flops / cublas_ms / 1e9;
    const std::pair<const char*, double> steps[] = {
        {"ampere_v1_naive", tessel_ms<examples::ampere::MatmulV1Naive>(timer, size, a, b, c)},
        {"ampere_v2_shared", tessel_ms<examples::MatmulSimt>(timer, size, a, b, c)},
        {"ampere_v3_mma", tessel_ms<examples::ampere::MatmulV3TensorCore>(timer, size, a, b, c)},
        {"ampere_v4_pipelined", tessel_ms<examples::ampere::MatmulV4Pipelined>(timer, size, a, b, c)},
        {"ampere_v5_swizzled", tessel_ms<examples::ampere::MatmulV5Swizzled<f16>>(timer, size, a, b, c)},
        {"hopper_v1", tessel_ms<examples::hopper::MatmulV1TmaWgmma<f16>>(timer, size, a, b, c)},
        {"hopper_v2", tessel_ms<examples::hopper::MatmulV2Multistage<f16>>(timer, size, a, b, c)},
        {"hopper_v3", tessel_ms<examples::hopper::MatmulV3WarpSpecialized<f16>>(timer, size, a, b, c)},
        {"hopper_v4", tessel_ms<examples::hopper::MatmulV4PipelineClass<f16>>(timer, size, a, b, c)},
    };
    for (const auto& [name, ms] : steps) {
      const double tf = flops / ms / 1e9;
      fmt::print("{:<24} {:>6} {:>10.1f} {:>10.1f} {:>8.3f}x\n", name, size, tf, cublas_tf, tf / cublas_tf);
    }
    bench::free_device(a);
    bench::free_device(b);
    bench::free_device(c);
  }
  cublasDestroy(handle);
  return 0;
}
