// The SIMT matmul (f16 in, f32 accumulate, f16 out; C = A * B^T) next to cuBLAS in the same
// process, on random data, with the same timing method.
#include <cublas_v2.h>

#include "matmul_simt.hpp"
#include "timing.hpp"

using namespace tessel;

int main() {
  bench::Timer timer;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  Kernel<examples::MatmulSimt> simt(Device::gpu());
  fmt::print("{:<22} {:>12} {:>12} {:>10}\n", "m x n x k", "tessel TFLOPS", "cuBLAS TFLOPS", "ratio");
  for (int size : {2048, 4096, 8192}) {
    const int m = size, n = size, k = size;
    f16* a = bench::random_device_array<f16>(size_t(m) * k, 1);
    f16* b = bench::random_device_array<f16>(size_t(n) * k, 2);
    f16* c = bench::random_device_array<f16>(size_t(m) * n, 3);
    const double flops = 2.0 * m * n * k;
    const double t_ms = timer.median_ms([&] { simt(m, n, k, a, b, c); }, 10, 2);
    const float alpha = 1, beta = 0;
    // Row-major C = A B^T is column-major C^T = B A^T: op(B)=B^T with B stored [n, k] row-major.
    const double c_ms = timer.median_ms([&] {
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16F, k, a, CUDA_R_16F, k, &beta, c,
                   CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    const double t_tf = flops / t_ms / 1e9, c_tf = flops / c_ms / 1e9;
    fmt::print("{:<22} {:>12.1f} {:>12.1f} {:>9.3f}x\n", fmt::format("{} x {} x {}", m, n, k), t_tf, c_tf, t_tf / c_tf);
    bench::free_device(a);
    bench::free_device(b);
    bench::free_device(c);
  }
  cublasDestroy(handle);
  return 0;
}
