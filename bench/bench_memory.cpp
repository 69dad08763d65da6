// Memory-bound kernels against the device-to-device copy bandwidth measured in the same run:
// vector add (reads 2, writes 1), row softmax, one warp per row, one block per row and one cluster
// of blocks per row (reads 1, writes 1), LayerNorm (reads 1, writes 1; gamma and beta stay in L2),
// the dequantization of 4-bit weights to f16 (reads half a byte and writes 2 per weight, plus the
// scales), and the fp8 quantization of bf16 activations (reads 2 bytes and writes 1 per value,
// plus the scales).
#include <cstdio>

#include "cluster_row_softmax.hpp"
#include "dequantize_int4.hpp"
#include "layer_norm.hpp"
#include "quantized/quantize_fp8_groups.hpp"
#include "row_softmax.hpp"
#include "timing.hpp"
#include "vector_add.hpp"
#include "wide_row_softmax.hpp"

using namespace tessel;

int main() {
  bench::Timer timer;
  const size_t copy_n = size_t(1) << 28;  // 1 GiB of floats
  float* src = bench::random_device_array<float>(copy_n, 1);
  float* dst = bench::random_device_array<float>(copy_n, 2);
  const double copy_ms =
      timer.median_ms([&] { bench::check(cudaMemcpyAsync(dst, src, copy_n * 4, cudaMemcpyDeviceToDevice), "copy"); });
  const double copy_gbs = 2.0 * copy_n * 4 / copy_ms / 1e6;
  fmt::print("device-to-device copy: {:.1f} GB/s (read + write, {} MiB)\n\n", copy_gbs, copy_n * 4 >> 20);
  fmt::print("{:<34} {:>10} {:>10} {:>12}\n", "kernel", "time ms", "GB/s", "of copy BW");

  Kernel<examples::VectorAdd> add(Device::gpu());
  for (size_t n : {size_t(1) << 24, size_t(1) << 26, size_t(1) << 28}) {
    float* c = bench::random_device_array<float>(n, 3);
    const double ms = timer.median_ms([&] { add(int(n), src, dst, c); });
    const double gbs = 3.0 * n * 4 / ms / 1e6;
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("vector_add n=2^{}", __builtin_ctzll(n)), ms, gbs,
               100 * gbs / copy_gbs);
    bench::free_device(c);
  }

  Kernel<examples::RowSoftmax> softmax(Device::gpu());
  for (auto [rows, cols] : {std::pair{65536, 1024}, std::pair{16384, 4096}, std::pair{262144, 256}}) {
    float* y = bench::random_device_array<float>(size_t(rows) * cols, 4);
    const double ms = timer.median_ms([&] { softmax(rows, cols, src, y); });
    const double gbs = 2.0 * rows * cols * 4 / ms / 1e6;
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("row_softmax {}x{}", rows, cols), ms, gbs,
               100 * gbs / copy_gbs);
    bench::free_device(y);
  }
  Kernel<examples::WideRowSoftmax> wide_softmax(Device::gpu());
  Kernel<examples::LayerNorm> layer_norm(Device::gpu());
  float* gamma = bench::random_device_array<float>(8192, 5);
  float* beta = bench::random_device_array<float>(8192, 6);
  for (auto [rows, cols] : {std::pair{16384, 4096}, std::pair{8192, 8192}, std::pair{65536, 1024}}) {
    float* y = bench::random_device_array<float>(size_t(rows) * cols, 4);
    const double bytes = 2.0 * rows * cols * 4;
    const double softmax_ms = timer.median_ms([&] { wide_softmax(rows, cols, src, y); });
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("wide_row_softmax {}x{}", rows, cols), softmax_ms,
               bytes / softmax_ms / 1e6, 100 * bytes / softmax_ms / 1e6 / copy_gbs);
    const double norm_ms = timer.median_ms([&] { layer_norm(rows, cols, src, gamma, beta, y); });
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("layer_norm {}x{}", rows, cols), norm_ms,
               bytes / norm_ms / 1e6, 100 * bytes / norm_ms / 1e6 / copy_gbs);
    bench::free_device(y);
  }
  bench::free_device(gamma);
  bench::free_device(beta);

  // Rows too wide for one block's registers: one block per row against one cluster per row (one
  // block would hold 512 values a thread at 262144 columns, so only the cluster runs there).
  Kernel<examples::ClusterRowSoftmax> cluster_softmax(Device::gpu());
  for (auto [rows, cols] :
       {std::pair{2048, 16384}, std::pair{1024, 32768}, std::pair{512, 65536}, std::pair{128, 262144}}) {
    float* y = bench::random_device_array<float>(size_t(rows) * cols, 4);
    const double bytes = 2.0 * rows * cols * 4;
    for (const bool clustered : {false, true}) {
      if (!clustered && cols > 65536) continue;
      const double ms = clustered ? timer.median_ms([&] { cluster_softmax(rows, cols, src, y); })
                                  : timer.median_ms([&] { wide_softmax(rows, cols, src, y); });
      fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n",
                 fmt::format("{} {}x{}", clustered ? "cluster_row_softmax" : "wide_row_softmax", rows, cols), ms,
                 bytes / ms / 1e6, 100 * bytes / ms / 1e6 / copy_gbs);
    }
    bench::free_device(y);
  }

  Kernel<examples::DequantizeInt4> dequantize(Device::gpu());
  for (auto [k, n] : {std::pair{4096, 14336}, std::pair{14336, 4096}}) {
    const auto* q = reinterpret_cast<const uint8_t*>(src);
    const auto* scales = reinterpret_cast<const f16*>(src) + size_t(k) * n / 4;
    auto* w = reinterpret_cast<f16*>(dst);
    const double ms = timer.median_ms([&] { dequantize(k, n, q, scales, w); });
    const double bytes = double(k) * n * 2.5 + double(k) / 128 * n * 2;
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("dequantize_int4 {}x{}", k, n), ms,
               bytes / ms / 1e6, 100 * bytes / ms / 1e6 / copy_gbs);
  }

  // The activations of fp8_gemm_block_scaled: bf16 in, e4m3 and a scale per 128 columns out.
  Kernel<examples::quantized::QuantizeFp8Groups> quantize(Device::gpu());
  for (auto [m, k] : {std::pair{4096, 7168}, std::pair{16384, 7168}, std::pair{128, 7168}}) {
    const auto* x = reinterpret_cast<const bf16*>(src);
    auto* q = reinterpret_cast<f8e4m3*>(dst);
    auto* scales = reinterpret_cast<float*>(dst) + size_t(m) * k / 4;
    const double ms = timer.median_ms([&] { quantize(m, k, x, q, scales); });
    const double bytes = double(m) * k * 3 + double(m) * k / 128 * 4;
    fmt::print("{:<34} {:>10.3f} {:>10.1f} {:>11.1f}%\n", fmt::format("quantize_fp8_groups {}x{}", m, k), ms,
               bytes / ms / 1e6, 100 * bytes / ms / 1e6 / copy_gbs);
  }
  bench::free_device(src);
  bench::free_device(dst);
  return 0;
}
