// The GEMM harness: tessel's tuned matmul (Ampere ladder step 5) against cuBLAS (cublasGemmEx) in
// the same process, on random data, timed with the same method, for square and LLM shapes in
// fp16 and bf16; a table, a CSV and an SVG chart; and the compile economics (cold compile,
// parallel tuning, warm start, launch overhead against a raw driver launch).
//   bench_gemm [--quick] [--csv FILE] [--svg FILE]
#include <cublas_v2.h>

#include <chrono>
#include <stdexcept>
#include <cstdlib>
#include <fstream>

#include "bar_chart.hpp"
#include "matmul_simt.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/kernel_compiler.hpp"
#include "timing.hpp"
#include "v1_naive.hpp"
#include "v3_tensor_core.hpp"
#include "v4_pipelined.hpp"
#include "v5_swizzled.hpp"
#include "vector_add.hpp"

using namespace tessel;
using examples::ampere::MatmulV5Swizzled;

namespace {

struct Shape {
  int m, n, k;
  std::string label() const { return fmt::format("{}x{}x{}", m, n, k); }
};

struct Row {
  std::string dtype;
  Shape shape;
  double tessel_tflops, cublas_tflops;
  std::string hyperparameters, selection;
  double max_error;  // against cuBLAS's result, relative to the largest |C|
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

template <class T> cudaDataType cuda_type() { return std::is_same_v<T, f16> ? CUDA_R_16F : CUDA_R_16BF; }

// Largest difference between two results on a strided sample, relative to the largest value.
template <class T> double sampled_difference(const T* x, const T* y, size_t n) {
  const size_t step = std::max<size_t>(1, n / 65536);
  std::vector<T> hx(n), hy(n);
  bench::check(cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost), "download");
  bench::check(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost), "download");
  double worst = 0, scale = 1e-6;
  for (size_t i = 0; i < n; i += step) {
    worst = std::max(worst, double(std::abs(float(hx[i]) - float(hy[i]))));
    scale = std::max(scale, double(std::abs(float(hy[i]))));
  }
  return worst / scale;
}

template <class T>
Row run_shape(bench::Timer& timer, cublasHandle_t handle, Kernel<MatmulV5Swizzled<T>>& kernel, const Shape& s,
              const char* dtype) {
  T* a = bench::random_device_array<T>(size_t(s.m) * s.k, 1);
  T* b = bench::random_device_array<T>(size_t(s.n) * s.k, 2);
  T* c = bench::random_device_array<T>(size_t(s.m) * s.n, 3);
  T* ref = bench::random_device_array<T>(size_t(s.m) * s.n, 4);
  const double flops = 2.0 * s.m * s.n * double(s.k);
  const float alpha = 1, beta = 0;
  // Row-major C = A B^T is column-major C^T = B A^T: op(B) = B^T with B stored [n, k] row-major.
  auto cublas = [&](T* out) {
    const cublasStatus_t status =
        cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, cuda_type<T>(), s.k, a, cuda_type<T>(),
                     s.k, &beta, out, cuda_type<T>(), s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(fmt::format("cublasGemmEx failed for {} {}: {}", dtype, s.label(), int(status)));
  };
  const double cublas_ms = timer.median_ms([&] { cublas(ref); }, 20, 3);
  kernel(s.m, s.n, s.k, a, b, c);  // tunes on the first call of a shape bucket
  const double tessel_ms = timer.median_ms([&] { kernel(s.m, s.n, s.k, a, b, c); }, 20, 3);
  Row row{dtype,
          s,
          flops / tessel_ms / 1e9,
          flops / cublas_ms / 1e9,
          kernel.stats().hyperparameters,
          std::string(selection_name(kernel.stats().selection)),
          sampled_difference(c, ref, size_t(s.m) * s.n)};
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(ref)})
    bench::free_device(p);
  return row;
}

template <class S> double cold_compile_ms() {
  Kernel<S> kernel(Device::gpu());
  f16* p = nullptr;  // compiling needs the argument types only
  kernel.cubin(4096, 4096, 4096, p, p, p);
  return kernel.stats().compile_ms + kernel.stats().codegen_ms;
}

// Host time per launch of a tiny kernel: through Kernel<S>, and through cuLaunchKernel directly
// on the same cubin.
std::pair<double, double> launch_overhead_us() {
  const int n = 1024, launches = 20000;
  float *x = bench::random_device_array<float>(n, 5), *y = bench::random_device_array<float>(n, 6),
        *z = bench::random_device_array<float>(n, 7);
  Kernel<examples::VectorAdd> kernel(Device::gpu());
  kernel(n, x, y, z);
  auto& d = runtime::CudaDriver::get();
  const runtime::KernelBinary bin = runtime::compile_kernel(*kernel.lowered(n, x, y, z), ir::Arch::Sm90a);
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  d.check(d.moduleLoadData(&mod, bin.cubin.data()), "cuModuleLoadData");
  d.check(d.moduleGetFunction(&fn, mod, bin.symbol.c_str()), "cuModuleGetFunction");
  const ir::Kernel& k = kernel.lowered(n, x, y, z);
  int nn = n;
  void* params[] = {&nn, &x, &y, &z};
  const unsigned blocks = unsigned((n + k->threads() - 1) / k->threads());
  auto per_launch = [&](const std::function<void()>& launch) {
    std::vector<double> rounds;
    for (int r = 0; r < 5; ++r) {
      d.check(d.ctxSynchronize(), "cuCtxSynchronize");
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < launches; ++i) launch();
      rounds.push_back(ms_since(t0) * 1000 / launches);
    }
    d.check(d.ctxSynchronize(), "cuCtxSynchronize");
    std::sort(rounds.begin(), rounds.end());
    return rounds[rounds.size() / 2];
  };
  const double raw = per_launch([&] {
    d.launchKernel(fn, blocks, 1, 1, unsigned(k->threads()), 1, 1, 0, nullptr, params, nullptr);
  });
  const double tessel = per_launch([&] { kernel(n, x, y, z); });
  d.moduleUnload(mod);
  for (float* p : {x, y, z}) bench::free_device(p);
  return {tessel, raw};
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string csv_path = "bench_gemm.csv", svg_path = "bench_gemm.svg";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") quick = true;
    else if (arg == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else if (arg == "--svg" && i + 1 < argc) svg_path = argv[++i];
    else {
      fmt::print(stderr, "usage: bench_gemm [--quick] [--csv FILE] [--svg FILE]\n");
      return 2;
    }
  }
  // Compile and tuning economics are measured cold: the run gets a cache of its own.
  char cache_template[] = "/tmp/tessel-bench-gemm-XXXXXX";  // mkdtemp fills in the X's
  if (!mkdtemp(cache_template)) return 1;
  setenv("TESSEL_CACHE_DIR", cache_template, 1);

  bench::Timer timer;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;

  fmt::print("compile economics (cache {}):\n", getenv("TESSEL_CACHE_DIR"));
  const std::pair<const char*, double> cold[] = {
      {"ampere_v1_naive", cold_compile_ms<examples::ampere::MatmulV1Naive>()},
      {"ampere_v2_shared", cold_compile_ms<examples::MatmulSimt>()},
      {"ampere_v3_mma", cold_compile_ms<examples::ampere::MatmulV3TensorCore>()},
      {"ampere_v4_pipelined", cold_compile_ms<examples::ampere::MatmulV4Pipelined>()},
      {"ampere_v5_swizzled", cold_compile_ms<MatmulV5Swizzled<f16>>()},
  };
  for (const auto& [name, ms] : cold) fmt::print("  cold compile {:<22} {:>8.0f} ms\n", name, ms);

  std::vector<Shape> shapes;
  for (int s : quick ? std::vector<int>{4096, 8192} : std::vector<int>{2048, 4096, 6144, 8192, 10240})
    shapes.push_back({s, s, s});
  for (int m : quick ? std::vector<int>{128, 4096} : std::vector<int>{16, 128, 1024, 4096}) shapes.push_back({m, 14336, 4096});

  std::vector<Row> rows;
  Kernel<MatmulV5Swizzled<f16>> f16_kernel(Device::gpu());
  Kernel<MatmulV5Swizzled<bf16>> bf16_kernel(Device::gpu());
  for (const Shape& s : shapes) {
    rows.push_back(run_shape(timer, handle, f16_kernel, s, "fp16"));
    if (rows.size() == 1)
      fmt::print("  tuning {} candidates of ampere_v5_swizzled at {}: {:.1f} s wall\n", f16_kernel.stats().candidates,
                 s.label(), f16_kernel.stats().tuning_wall_ms / 1000);
  }
  for (const Shape& s : shapes) rows.push_back(run_shape(timer, handle, bf16_kernel, s, "bf16"));

  {
    f16* p = bench::random_device_array<f16>(size_t(4096) * 4096, 8);  // the same buffer for a, b and c: timing only
    const auto t0 = std::chrono::steady_clock::now();
    Kernel<MatmulV5Swizzled<f16>> fresh(Device::gpu());
    fresh(4096, 4096, 4096, p, p, p);
    bench::check(cudaDeviceSynchronize(), "warm start");
    fmt::print("  warm start of a new Kernel object at 4096^3 ({}; cubin {}): {:.2f} ms to the first result\n",
               selection_name(fresh.stats().selection), fresh.stats().from_cache ? "from the cache" : "compiled",
               ms_since(t0));
    bench::free_device(p);
  }
  const auto [tessel_us, raw_us] = launch_overhead_us();
  fmt::print("  launch: {:.2f} us per Kernel call, {:.2f} us per raw cuLaunchKernel: overhead {:.2f} us\n\n", tessel_us,
             raw_us, tessel_us - raw_us);

  fmt::print("{:<5} {:>20} {:>9} {:>9} {:>7} {:>9}  {}\n", "dtype", "MxNxK", "tessel", "cuBLAS", "ratio", "max err",
             "tessel configuration");
  std::ofstream csv(csv_path);
  csv << "dtype,m,n,k,tessel_tflops,cublas_tflops,ratio,max_rel_error,hyperparameters\n";
  std::vector<bench::BarPanel> panels;
  for (const Row& r : rows) {
    fmt::print("{:<5} {:>20} {:>9.1f} {:>9.1f} {:>6.3f}x {:>9.2e}  [{}] ({})\n", r.dtype, r.shape.label(),
               r.tessel_tflops, r.cublas_tflops, r.tessel_tflops / r.cublas_tflops, r.max_error, r.hyperparameters,
               r.selection);
    csv << fmt::format("{},{},{},{},{:.2f},{:.2f},{:.4f},{:.3e},\"{}\"\n", r.dtype, r.shape.m, r.shape.n, r.shape.k,
                       r.tessel_tflops, r.cublas_tflops, r.tessel_tflops / r.cublas_tflops, r.max_error,
                       r.hyperparameters);
    if (panels.empty() || panels.back().title != r.dtype)
      panels.push_back({r.dtype, {}, {"tessel (tuned)", "cuBLAS"}, {{}, {}}});
    panels.back().labels.push_back(r.shape.label());
    panels.back().values[0].push_back(r.tessel_tflops);
    panels.back().values[1].push_back(r.cublas_tflops);
  }
  std::ofstream(svg_path) << bench::bar_chart_svg(fmt::format("C = A B^T on {}", runtime::CudaDriver::get().device_info().name),
                                                  "TFLOPS", panels);
  fmt::print("\nwrote {} and {}\n", csv_path, svg_path);
  cublasDestroy(handle);
  return 0;
}
