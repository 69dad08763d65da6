// The GEMM harness, against cuBLAS (cublasGemmEx) in the same process, on random data, timed with
// the same method:
//   - the ladders: every step of the Ampere and Hopper matmul ladders at its first configuration,
//     at 4096^3 and 8192^3, in fp16 and (where the step has it) bf16;
//   - the flagship tuned (Hopper step 5 on sm_90 GPUs, Ampere step 5 elsewhere) over square and
//     LLM shapes in fp16 and bf16: a table, a CSV and an SVG chart;
//   - the compile economics (cold compile, parallel tuning, warm start, launch overhead against a
//     raw driver launch);
//   - Ampere step 5 tuned at 4096^3 and 8192^3, the mma.sync kernel whose generated code
//     docs/performance.md's "where the time goes" examines.
//   bench_gemm [--quick] [--csv FILE] [--svg FILE]
//   bench_gemm --shapes MxNxK,... [--each] [--members "block_m=64, stages=8" ...]: the flagship
//     tuned at those shapes only; --each adds a row for every candidate of its space, and each
//     --members a row for a script object with those members set (any of them, tuned or not), for
//     finding what a shape needs;
//   bench_gemm --ampere [--cache DIR] [--cubins DIR] [--profile]: Ampere step 5 tuned only;
//     --cache keeps the compile cache and tuning results in DIR (a second run finds the same
//     winners), --cubins writes each winner's cubin into DIR, --profile brackets one launch of each
//     winner with cudaProfilerStart/Stop for `ncu --profile-from-start off`
//     (bench/profile_main_loop.sh).
#include <cublas_v2.h>
#include <cuda_profiler_api.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bar_chart.hpp"
#include "matmul_hopper/v1_tma_wgmma.hpp"
#include "matmul_hopper/v2_multistage.hpp"
#include "matmul_hopper/v3_warp_specialized.hpp"
#include "matmul_hopper/v4_pipeline_class.hpp"
#include "matmul_hopper/v5_persistent.hpp"
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
using examples::hopper::MatmulV5Persistent;

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

// Operands of one shape, random, with cuBLAS's result.
template <class T> class Problem {
 public:
  Problem(cublasHandle_t handle, const Shape& s, const char* dtype) : shape(s), dtype(dtype) {
    a = bench::random_device_array<T>(size_t(s.m) * s.k, 1);
    b = bench::random_device_array<T>(size_t(s.n) * s.k, 2);
    c = bench::random_device_array<T>(size_t(s.m) * s.n, 3);
    ref = bench::random_device_array<T>(size_t(s.m) * s.n, 4);
    // Row-major C = A B^T is column-major C^T = B A^T: op(B) = B^T with B stored [n, k] row-major.
    cublas = [this, handle, s, dtype] {
      const float alpha = 1, beta = 0;
      const cublasStatus_t status =
          cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, cuda_type<T>(), s.k, a,
                       cuda_type<T>(), s.k, &beta, ref, cuda_type<T>(), s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cublasGemmEx failed for {} {}: {}", dtype, s.label(), int(status)));
    };
    cublas();
  }
  ~Problem() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(ref)})
      bench::free_device(p);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  double flops() const { return 2.0 * shape.m * shape.n * double(shape.k); }

  template <class S> void launch(Kernel<S>& kernel) { kernel(shape.m, shape.n, shape.k, a, b, c); }
  // The cubin of the variant `kernel` runs for this problem.
  template <class S> std::vector<char> cubin_of(Kernel<S>& kernel) {
    return kernel.cubin(shape.m, shape.n, shape.k, a, b, c);
  }

  // Times `kernel` (after a first call, which tunes for a new shape bucket) against cuBLAS and
  // checks its result. The two are timed in alternating rounds, so that both meet the GPU in the
  // same state: its clocks fall as it heats up under load, and tuning has just kept it busy. Each
  // figure is the median over the rounds of a round's median.
  template <class S> Row run(bench::Timer& timer, Kernel<S>& kernel) {
    cudaMemset(c, 0xFF, size_t(shape.m) * shape.n * sizeof(T));  // NaN: a result never written shows
    kernel(shape.m, shape.n, shape.k, a, b, c);
    const double error = sampled_difference(c, ref, size_t(shape.m) * shape.n);
    std::vector<double> ours, theirs;
    for (int round = 0; round < kRounds; ++round) {
      ours.push_back(timer.median_ms([&] { kernel(shape.m, shape.n, shape.k, a, b, c); }, kRunsPerRound, 2));
      theirs.push_back(timer.median_ms(cublas, kRunsPerRound, 2));
    }
    return Row{dtype,
               shape,
               flops() / median(ours) / 1e9,
               flops() / median(theirs) / 1e9,
               kernel.stats().hyperparameters,
               std::string(selection_name(kernel.stats().selection)),
               error};
  }

  const Shape shape;
  const char* const dtype;

 private:
  static constexpr int kRounds = 5, kRunsPerRound = 10;
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

  T *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr;
  std::function<void()> cublas;
};

// A ladder step at the configuration its text starts with: the first candidate of its space.
template <class S> struct FirstCandidate : S {
  static Space space() { return Space{}; }
};

struct LadderRow {
  std::string step;
  Row row;
};

template <class S, class T>
void ladder_step(bench::Timer& timer, Problem<T>& p, const char* name, std::vector<LadderRow>& rows) {
  Kernel<FirstCandidate<S>> kernel(Device::gpu());
  rows.push_back({name, p.run(timer, kernel)});
}

template <class T> void hopper_ladder(bench::Timer& timer, Problem<T>& p, std::vector<LadderRow>& rows) {
  namespace h = examples::hopper;
  ladder_step<h::MatmulV1TmaWgmma<T>>(timer, p, "hopper_v1", rows);
  ladder_step<h::MatmulV2Multistage<T>>(timer, p, "hopper_v2", rows);
  ladder_step<h::MatmulV3WarpSpecialized<T>>(timer, p, "hopper_v3", rows);
  ladder_step<h::MatmulV4PipelineClass<T>>(timer, p, "hopper_v4", rows);
  ladder_step<h::MatmulV5Persistent<T>>(timer, p, "hopper_v5", rows);
}

// Every step of both ladders at 4096^3 and 8192^3, fp16 and bf16 (the steps that have bf16).
std::vector<LadderRow> ladders(bench::Timer& timer, cublasHandle_t handle, bool hopper) {
  std::vector<LadderRow> rows;
  for (int size : {4096, 8192}) {
    const Shape shape{size, size, size};
    Problem<f16> half(handle, shape, "fp16");
    namespace a = examples::ampere;
    ladder_step<a::MatmulV1Naive>(timer, half, "ampere_v1_naive", rows);
    ladder_step<examples::MatmulSimt>(timer, half, "ampere_v2_shared", rows);
    ladder_step<a::MatmulV3TensorCore>(timer, half, "ampere_v3_mma", rows);
    ladder_step<a::MatmulV4Pipelined>(timer, half, "ampere_v4_pipelined", rows);
    ladder_step<MatmulV5Swizzled<f16>>(timer, half, "ampere_v5_swizzled", rows);
    if (hopper) hopper_ladder(timer, half, rows);
    Problem<bf16> brain(handle, shape, "bf16");
    ladder_step<MatmulV5Swizzled<bf16>>(timer, brain, "ampere_v5_swizzled", rows);
    if (hopper) hopper_ladder(timer, brain, rows);
  }
  return rows;
}

// The flagship, tuned, over `shapes` in fp16 and bf16.
template <template <class> class Flagship> std::vector<Row> flagship_rows(bench::Timer& timer, cublasHandle_t handle,
                                                                          const std::vector<Shape>& shapes,
                                                                          const char* name) {
  std::vector<Row> rows;
  Kernel<Flagship<f16>> f16_kernel(Device::gpu());
  Kernel<Flagship<bf16>> bf16_kernel(Device::gpu());
  for (const Shape& s : shapes) {
    Problem<f16> p(handle, s, "fp16");
    rows.push_back(p.run(timer, f16_kernel));
    if (rows.size() == 1)
      fmt::print("  tuning {} candidates of {} at {}: {:.1f} s wall\n", f16_kernel.stats().candidates, name, s.label(),
                 f16_kernel.stats().tuning_wall_ms / 1000);
  }
  for (const Shape& s : shapes) {
    Problem<bf16> p(handle, s, "bf16");
    rows.push_back(p.run(timer, bf16_kernel));
  }
  return rows;
}

// What --ampere does besides timing: where the winners' cubins go, and whether one launch of each
// is bracketed for a profiler.
struct AmpereOutputs {
  std::string cubin_dir;
  bool profile = false;
};

template <class T> Row ampere_tuned_row(bench::Timer& timer, cublasHandle_t handle, int size, const char* dtype,
                                        const AmpereOutputs& outputs) {
  Problem<T> p(handle, Shape{size, size, size}, dtype);
  Kernel<MatmulV5Swizzled<T>> kernel(Device::gpu());
  const Row row = p.run(timer, kernel);
  if (!outputs.cubin_dir.empty()) {
    const std::string path = fmt::format("{}/ampere_v5_{}_{}.cubin", outputs.cubin_dir, dtype, size);
    const std::vector<char> cubin = p.cubin_of(kernel);
    std::ofstream(path, std::ios::binary).write(cubin.data(), std::streamsize(cubin.size()));
    fmt::print("  wrote {} [{}]\n", path, row.hyperparameters);
  }
  if (outputs.profile) {
    bench::check(cudaProfilerStart(), "cudaProfilerStart");
    p.launch(kernel);
    bench::check(cudaDeviceSynchronize(), "profiled launch");
    bench::check(cudaProfilerStop(), "cudaProfilerStop");
  }
  return row;
}

// Ampere step 5 tuned at 4096^3 and 8192^3 in fp16 and bf16.
void print_ampere_tuned(bench::Timer& timer, cublasHandle_t handle, const AmpereOutputs& outputs) {
  std::vector<Row> rows;
  for (int size : {4096, 8192}) {
    rows.push_back(ampere_tuned_row<f16>(timer, handle, size, "fp16", outputs));
    rows.push_back(ampere_tuned_row<bf16>(timer, handle, size, "bf16", outputs));
  }
  fmt::print("\nampere_v5_swizzled tuned:\n");
  fmt::print("{:<5} {:>16} {:>9} {:>9} {:>7} {:>9}  {}\n", "dtype", "MxNxK", "tessel", "cuBLAS", "ratio", "max err",
             "tessel configuration");
  for (const Row& r : rows)
    fmt::print("{:<5} {:>16} {:>9.1f} {:>9.1f} {:>6.3f}x {:>9.2e}  [{}] ({})\n", r.dtype, r.shape.label(),
               r.tessel_tflops, r.cublas_tflops, r.tessel_tflops / r.cublas_tflops, r.max_error, r.hyperparameters,
               r.selection);
}

void print_row(const Row& r, const std::string& configuration) {
  fmt::print("{:<5} {:>20} {:>9.1f} {:>9.1f} {:>6.3f}x {:>9.2e}  [{}]\n", r.dtype, r.shape.label(), r.tessel_tflops,
             r.cublas_tflops, r.tessel_tflops / r.cublas_tflops, r.max_error, configuration);
}

// A Hopper step 5 script with the members `assignments` ("block_m=64, stages=8") set.
template <class T> MatmulV5Persistent<T> flagship_with(const std::string& assignments) {
  MatmulV5Persistent<T> script;
  const std::map<std::string, int MatmulV5Persistent<T>::*> members = {
      {"block_m", &MatmulV5Persistent<T>::block_m},
      {"block_n", &MatmulV5Persistent<T>::block_n},
      {"block_k", &MatmulV5Persistent<T>::block_k},
      {"stages", &MatmulV5Persistent<T>::stages},
      {"swizzle_size", &MatmulV5Persistent<T>::swizzle_size},
      {"consumer_warpgroups", &MatmulV5Persistent<T>::consumer_warpgroups},
      {"split_k", &MatmulV5Persistent<T>::split_k},
      {"swap_ab", &MatmulV5Persistent<T>::swap_ab},
      {"k_chunks", &MatmulV5Persistent<T>::k_chunks}};
  std::stringstream in(assignments);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t eq = item.find('=');
    std::string name = eq == std::string::npos ? item : item.substr(0, eq);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    const auto member = members.find(name);
    if (eq == std::string::npos || member == members.end())
      throw std::runtime_error(fmt::format("--members: '{}' is not member=value of a step 5 member", item));
    script.*(member->second) = std::stoi(item.substr(eq + 1));
  }
  return script;
}

// The flagship at `shapes`, tuned, with `each` at every candidate of its space, and as a script
// object with each of `members` set.
template <class T> void print_shapes(bench::Timer& timer, cublasHandle_t handle, const std::vector<Shape>& shapes,
                                     const char* dtype, bool each, const std::vector<std::string>& members) {
  for (const Shape& s : shapes) {
    Problem<T> p(handle, s, dtype);
    Kernel<MatmulV5Persistent<T>> tuned(Device::gpu());
    const Row row = p.run(timer, tuned);
    print_row(row, "tuned: " + row.hyperparameters);
    for (const std::string& m : members) {
      Kernel<MatmulV5Persistent<T>> object(flagship_with<T>(m), Device::gpu());
      print_row(p.run(timer, object), "members: " + m);
    }
    if (!each) continue;
    const Space space = MatmulV5Persistent<T>::space();
    for (const Space::Candidate& c : space.candidates()) {
      Kernel<MatmulV5Persistent<T>> configured(Device::gpu(), KernelOptions{.configuration = Space::describe(c)});
      print_row(p.run(timer, configured), Space::describe(c));
    }
  }
}

std::vector<Shape> parse_shapes(const std::string& list) {
  std::vector<Shape> shapes;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    Shape s{};
    char x1 = 0, x2 = 0;
    std::stringstream one(item);
    if (!(one >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' || s.m < 1 || s.n < 1 || s.k < 1)
      throw std::runtime_error(fmt::format("--shapes: '{}' is not MxNxK with positive extents", item));
    shapes.push_back(s);
  }
  return shapes;
}

template <class S> double cold_compile_ms() {
  Kernel<S> kernel(Device::gpu());
  f16* p = nullptr;  // compiling needs the argument types only
  kernel.cubin(4096, 4096, 4096, p, p, p);
  return kernel.stats().compile_ms + kernel.stats().codegen_ms;
}

// Milliseconds from a new Kernel object to its first result at 4096^3, once the shape was tuned
// and compiled in this process: the tuning database, the cubin cache and a module load.
template <class S> double warm_start_ms() {
  f16* p = bench::random_device_array<f16>(size_t(4096) * 4096, 8);  // the same buffer for a, b and c: timing only
  const auto t0 = std::chrono::steady_clock::now();
  Kernel<S> fresh(Device::gpu());
  fresh(4096, 4096, 4096, p, p, p);
  bench::check(cudaDeviceSynchronize(), "warm start");
  const double ms = ms_since(t0);
  if (fresh.stats().selection != Selection::FromDatabase || !fresh.stats().from_cache)
    fmt::print("  (the warm start was not warm: {}, cubin {})\n", selection_name(fresh.stats().selection),
               fresh.stats().from_cache ? "from the cache" : "compiled");
  bench::free_device(p);
  return ms;
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
  const double raw =
      per_launch([&] { d.launchKernel(fn, blocks, 1, 1, unsigned(k->threads()), 1, 1, 0, nullptr, params, nullptr); });
  const double tessel = per_launch([&] { kernel(n, x, y, z); });
  d.moduleUnload(mod);
  for (float* p : {x, y, z}) bench::free_device(p);
  return {tessel, raw};
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, ampere_only = false, each = false;
  std::vector<Shape> only_shapes;
  std::vector<std::string> members;
  AmpereOutputs ampere_outputs;
  std::string csv_path = "bench_gemm.csv", svg_path = "bench_gemm.svg", cache_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick")
      quick = true;
    else if (arg == "--csv" && i + 1 < argc)
      csv_path = argv[++i];
    else if (arg == "--svg" && i + 1 < argc)
      svg_path = argv[++i];
    else if (arg == "--ampere")
      ampere_only = true;
    else if (arg == "--shapes" && i + 1 < argc)
      only_shapes = parse_shapes(argv[++i]);
    else if (arg == "--each")
      each = true;
    else if (arg == "--members" && i + 1 < argc)
      members.push_back(argv[++i]);
    else if (arg == "--cubins" && i + 1 < argc)
      ampere_outputs.cubin_dir = argv[++i];
    else if (arg == "--profile")
      ampere_outputs.profile = true;
    else if (arg == "--cache" && i + 1 < argc)
      cache_dir = argv[++i];
    else {
      fmt::print(stderr,
                 "usage: bench_gemm [--quick] [--csv FILE] [--svg FILE]\n"
                 "       bench_gemm --shapes MxNxK,... [--each] [--members \"block_m=64, stages=8\" ...]\n"
                 "       bench_gemm --ampere [--cache DIR] [--cubins DIR] [--profile]\n");
      return 2;
    }
  }
  // Compile and tuning economics are measured cold: the run gets a cache of its own, unless it is
  // given one to share with another run.
  char cache_template[] = "/tmp/tessel-bench-gemm-XXXXXX";  // mkdtemp fills in the X's
  if (cache_dir.empty() && !mkdtemp(cache_template)) return 1;
  setenv("TESSEL_CACHE_DIR", cache_dir.empty() ? cache_template : cache_dir.c_str(), 1);

  bench::Timer timer;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;

  const runtime::CudaDriver::DeviceInfo& device = runtime::CudaDriver::get().device_info();
  const bool hopper = device.cc_major == 9;  // wgmma and TMA: the Hopper ladder and flagship
  const char* flagship = hopper ? "hopper_v5" : "ampere_v5_swizzled";
  fmt::print("{} (cc {}.{}, {} SMs); flagship {}\n\n", device.name, device.cc_major, device.cc_minor, device.sm_count,
             flagship);
  if (!only_shapes.empty()) {
    if (!hopper) throw std::runtime_error("--shapes measures the Hopper flagship, which needs an sm_90 GPU");
    fmt::print("{:<5} {:>20} {:>9} {:>9} {:>7} {:>9}  {}\n", "dtype", "MxNxK", "tessel", "cuBLAS", "ratio", "max err",
               "tessel configuration");
    print_shapes<f16>(timer, handle, only_shapes, "fp16", each, members);
    print_shapes<bf16>(timer, handle, only_shapes, "bf16", each, members);
    cublasDestroy(handle);
    return 0;
  }
  if (ampere_only) {
    print_ampere_tuned(timer, handle, ampere_outputs);
    cublasDestroy(handle);
    return 0;
  }

  fmt::print("compile economics (cache {}):\n", getenv("TESSEL_CACHE_DIR"));
  std::vector<std::pair<const char*, double>> cold = {
      {"ampere_v1_naive", cold_compile_ms<examples::ampere::MatmulV1Naive>()},
      {"ampere_v2_shared", cold_compile_ms<examples::MatmulSimt>()},
      {"ampere_v3_mma", cold_compile_ms<examples::ampere::MatmulV3TensorCore>()},
      {"ampere_v4_pipelined", cold_compile_ms<examples::ampere::MatmulV4Pipelined>()},
      {"ampere_v5_swizzled", cold_compile_ms<MatmulV5Swizzled<f16>>()},
  };
  if (hopper) cold.push_back({"hopper_v5", cold_compile_ms<MatmulV5Persistent<f16>>()});
  for (const auto& [name, ms] : cold) fmt::print("  cold compile {:<22} {:>8.0f} ms\n", name, ms);

  std::vector<Shape> shapes;
  for (int s : quick ? std::vector<int>{4096, 8192} : std::vector<int>{2048, 4096, 6144, 8192, 10240})
    shapes.push_back({s, s, s});
  for (int m : quick ? std::vector<int>{128, 4096} : std::vector<int>{16, 128, 1024, 4096})
    shapes.push_back({m, 14336, 4096});

  const std::vector<Row> rows = hopper ? flagship_rows<MatmulV5Persistent>(timer, handle, shapes, flagship)
                                       : flagship_rows<MatmulV5Swizzled>(timer, handle, shapes, flagship);

  const double warm_ms = hopper ? warm_start_ms<MatmulV5Persistent<f16>>() : warm_start_ms<MatmulV5Swizzled<f16>>();
  fmt::print("  warm start of a new {} Kernel object at 4096^3: {:.2f} ms to the first result\n", flagship, warm_ms);
  const auto [tessel_us, raw_us] = launch_overhead_us();
  fmt::print("  launch: {:.2f} us per Kernel call, {:.2f} us per raw cuLaunchKernel: overhead {:.2f} us\n\n", tessel_us,
             raw_us, tessel_us - raw_us);

  fmt::print("the ladders, each step at its first configuration:\n");
  fmt::print("{:<20} {:<5} {:>16} {:>9} {:>9} {:>7} {:>9}\n", "step", "dtype", "MxNxK", "tessel", "cuBLAS", "ratio",
             "max err");
  for (const LadderRow& l : ladders(timer, handle, hopper))
    fmt::print("{:<20} {:<5} {:>16} {:>9.1f} {:>9.1f} {:>6.3f}x {:>9.2e}\n", l.step, l.row.dtype, l.row.shape.label(),
               l.row.tessel_tflops, l.row.cublas_tflops, l.row.tessel_tflops / l.row.cublas_tflops, l.row.max_error);

  fmt::print("\n{} tuned:\n", flagship);
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
      panels.push_back({r.dtype, {}, {fmt::format("tessel {} (tuned)", flagship), "cuBLAS"}, {{}, {}}});
    panels.back().labels.push_back(r.shape.label());
    panels.back().values[0].push_back(r.tessel_tflops);
    panels.back().values[1].push_back(r.cublas_tflops);
  }
  if (hopper) print_ampere_tuned(timer, handle, ampere_outputs);
  std::ofstream(svg_path) << bench::bar_chart_svg(fmt::format("C = A B^T on {}", device.name), "TFLOPS", panels);
  fmt::print("\nwrote {} and {}\n", csv_path, svg_path);
  cublasDestroy(handle);
  return 0;
}
