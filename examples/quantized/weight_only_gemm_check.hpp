#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "tessel/cli/host_check.hpp"
#include "weight_only_gemm.hpp"

namespace tessel::examples::quantized {

// The largest magnitude of type t.
inline float largest_weight(DType t) {
  if (is_float(t)) return float_from_bits(t, float_to_bits(t, INFINITY));
  return is_signed(t) ? float(1 << (dtype_bits(t) - 1)) : float((1 << dtype_bits(t)) - 1);
}

// Runs WeightOnlyGemm<W> (or S, a configuration of it) on [m, n, k] (k a multiple of 32) and checks it: random weights
// of every finite pattern of W, scales that bring them to about 1, zero points of -1, 0 or 1, activations in [-1, 1]
// and a poisoned output. The reference dequantizes as the kernel does (f16 rounding after the subtraction and after the
// product) and accumulates in double; each output may be off by its f16 rounding and 2^-14 of the sum of its products'
// magnitudes (f32 accumulation over k).
template <class W, class S = WeightOnlyGemm<W>> cli::RunResult run_weight_only_gemm(const Device& dev, int m, int n,
                                                                                    int k, const KernelOptions& opt,
                                                                                    const std::string& label) {
  constexpr DType t = dtype_v<W>;
  if (k % 32 != 0)
    throw Error(
        fmt::format("{}: k = {} is not a multiple of 32; the kernel reads each row of weights as whole "
                    "32-bit words",
                    label, k));
  const int groups = (k + S::group - 1) / S::group;
  std::mt19937 rng(uint32_t(k * 31 + n));
  std::vector<uint32_t> fields(size_t(n) * k);
  for (uint32_t& f : fields) do
      f = rng() & ((1u << dtype_bits(t)) - 1u);
    while (!std::isfinite(value_from_bits(t, f)));
  const std::vector<uint8_t> packed = pack_bits(t, fields);
  std::vector<uint32_t> w(packed.size() / 4);
  std::memcpy(w.data(), packed.data(), packed.size());
  std::uniform_real_distribution<float> unit(0.5f, 1.0f);
  std::vector<f16> scales(size_t(n) * groups), zeros(scales.size());
  for (size_t i = 0; i < scales.size(); ++i) {
    scales[i] = f16(unit(rng) / largest_weight(t));
    zeros[i] = f16(float(int(rng() % 3) - 1));
  }
  const auto x = cli::random_vector<f16>(size_t(m) * k, 3);
  Buffer<f16> dx(dev, x), dscales(dev, scales), dzeros(dev, zeros), dy(dev, cli::poisoned<f16>(size_t(m) * n));
  Buffer<uint32_t> dw(dev, w);
  Kernel<S> kernel(dev, opt);
  kernel(m, n, k, dx, dw, dscales, dzeros, dy);
  dev.synchronize();
  std::vector<float> dequantized(fields.size());
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p) {
      const size_t g = size_t(j) * groups + size_t(p / S::group);
      const f16 shifted(value_from_bits(t, fields[size_t(j) * k + p]) - float(zeros[g]));
      dequantized[size_t(j) * k + p] = float(f16(float(shifted) * float(scales[g])));
    }
  const auto product = [&](int i, int j, int p) {
    return double(float(x[size_t(i) * k + p])) * dequantized[size_t(j) * k + p];
  };
  cli::RunResult r = cli::check_gemm(dy.download(), m, n, k, product, {1e-4, 1.0 / 1024, 1.0 / 16384}, label);
  r.stats = kernel.stats();
  return r;
}

}  // namespace tessel::examples::quantized
