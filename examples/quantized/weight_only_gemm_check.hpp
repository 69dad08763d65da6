#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>

#include "repack_weights.hpp"
#include "tessel/cli/host_check.hpp"
#include "weight_only_gemm.hpp"
#include "weight_only_gemm_wgmma.hpp"

namespace tessel::examples::quantized {

// The largest magnitude of type t.
inline float largest_weight(DType t) {
  if (is_float(t)) return float_from_bits(t, float_to_bits(t, INFINITY));
  return is_signed(t) ? float(1 << (dtype_bits(t) - 1)) : float((1 << dtype_bits(t)) - 1);
}

// Refuses the sizes the repacked order cannot hold, naming them.
inline void check_weight_only_sizes(int n, int k, const std::string& label) {
  if (n % WeightUnits::rows != 0 || k % WeightUnits::depth != 0)
    throw Error(
        fmt::format("{}: n = {}, k = {}: the repacked weights come in units of {} rows of W by {} of k, so n "
                    "must be a multiple of {} and k of {}",
                    label, n, k, WeightUnits::rows, WeightUnits::depth, WeightUnits::rows, WeightUnits::depth));
}

// Random weights of every finite pattern of W (the bits of each), their scales (bringing them to about 1) and zero
// points (-1, 0 or 1), per 128 of k.
struct QuantizedWeights {
  std::vector<uint32_t> fields;    // [n, k]
  std::vector<f16> scales, zeros;  // [n, k / 128]
};
inline QuantizedWeights random_quantized_weights(DType t, int n, int k) {
  std::mt19937 rng(uint32_t(k * 31 + n));
  QuantizedWeights q;
  q.fields.resize(size_t(n) * k);
  for (uint32_t& f : q.fields) do
      f = rng() & ((1u << dtype_bits(t)) - 1u);
    while (!std::isfinite(value_from_bits(t, f)));
  std::uniform_real_distribution<float> unit(0.5f, 1.0f);
  q.scales.resize(size_t(n) * (k / WeightUnits::depth));
  q.zeros.resize(q.scales.size());
  for (size_t i = 0; i < q.scales.size(); ++i) {
    q.scales[i] = f16(unit(rng) / largest_weight(t));
    q.zeros[i] = f16(float(int(rng() % 3) - 1));
  }
  return q;
}

// What the host passes for a Ptr<W>: the bytes of a packed type, the elements of an 8-bit one.
template <class W> using StoredWeight = std::conditional_t<is_packed(dtype_v<W>), uint8_t, W>;

// The 16-bit values `v` as Act (rounded to it).
template <class Act> std::vector<Act> converted(const std::vector<f16>& v) {
  std::vector<Act> out;
  for (const f16& e : v) out.push_back(Act(float(e)));
  return out;
}

// The weights of a checkpoint on the device, and RepackWeights<W, Act>'s output.
template <class Act = f16> struct RepackedWeights {
  Buffer<uint32_t> units;
  Buffer<Act> unit_scales;
};
template <class W, class Act = f16> RepackedWeights<Act> repack_on_device(const Device& dev, const QuantizedWeights& q,
                                                                          int n, int k, const KernelOptions& opt) {
  constexpr DType t = dtype_v<W>;
  const std::vector<uint8_t> bytes = pack_bits(t, q.fields);
  std::vector<StoredWeight<W>> stored(bytes.size() / sizeof(StoredWeight<W>));
  std::memcpy(stored.data(), bytes.data(), bytes.size());
  Buffer<StoredWeight<W>> w(dev, stored);
  Buffer<Act> scales(dev, converted<Act>(q.scales)), zeros(dev, converted<Act>(q.zeros));
  const size_t units = size_t(k / WeightUnits::depth) * size_t(n / WeightUnits::rows);
  RepackedWeights<Act> r{Buffer<uint32_t>(dev, cli::poisoned<uint32_t>(units * WeightUnits::lanes * dtype_bits(t))),
                         Buffer<Act>(dev, cli::poisoned<Act>(units * 2 * WeightUnits::rows))};
  // A configuration names the GEMM's hyperparameters; the repacking has none.
  KernelOptions repack_options = opt;
  repack_options.configuration.clear();
  Kernel<RepackWeights<W, Act>> repack(dev, repack_options);
  repack(n, k, w, scales, zeros, r.units, r.unit_scales);
  return r;
}

// The bytes of runs of 32 fields of type t each (`runs`, in the runs' order), stored as
// weight_units.hpp states: each run's fields at their stored positions, packed; or, for planar types,
// each plane of each run so, one after the other.
inline std::vector<uint8_t> stored_runs(DType t, const std::vector<uint32_t>& runs) {
  const auto ordered = [](DType as, const std::vector<uint32_t>& fields) {
    std::vector<uint32_t> out(fields.size());
    for (size_t i = 0; i < fields.size(); ++i)
      out[i / WeightUnits::run * WeightUnits::run +
          size_t(WeightUnits::stored_position(as, int(i % WeightUnits::run)))] = fields[i];
    return pack_bits(as, out);
  };
  if (!WeightUnits::planar(t)) return ordered(t, runs);
  const int bits = dtype_bits(t);
  const size_t count = runs.size() / WeightUnits::run;
  std::vector<uint8_t> bytes(count * size_t(bits) * 4);
  for (const WeightUnits::Plane& p : WeightUnits::planes(bits)) {
    std::vector<uint32_t> plane(runs.size());
    for (size_t i = 0; i < runs.size(); ++i)
      plane[i] = ((is_signed(t) ? runs[i] ^ (1u << (bits - 1)) : runs[i]) >> p.offset) & ((1u << p.bits) - 1u);
    const std::vector<uint8_t> packed = ordered(WeightUnits::plane_type(p.bits), plane);
    for (size_t r = 0; r < count; ++r)
      std::memcpy(&bytes[(r * size_t(bits) + size_t(p.offset)) * 4], &packed[r * size_t(p.bits) * 4],
                  size_t(p.bits) * 4);
  }
  return bytes;
}

// Runs RepackWeights<W, Act> and compares its output with the order weight_units.hpp states, bit for bit.
template <class W, class Act = f16>
cli::RunResult run_repack_weights(const Device& dev, int n, int k, const KernelOptions& opt, const std::string& label) {
  constexpr DType t = dtype_v<W>;
  check_weight_only_sizes(n, k, label);
  const QuantizedWeights q = random_quantized_weights(t, n, k);
  const RepackedWeights<Act> r = repack_on_device<W, Act>(dev, q, n, k, opt);
  dev.synchronize();
  const int groups = k / WeightUnits::depth;
  std::vector<uint32_t> runs(q.fields.size());  // each lane's run of each unit, in the runs' order
  std::vector<f16> unit_scales(size_t(n / WeightUnits::rows) * groups * 2 * WeightUnits::rows);
  for (int row = 0; row < n; ++row)
    for (int p = 0; p < k; ++p) {
      const int unit = row / 8, g = row % 8, group = p / 128, d = p % 128;
      const int lane = 4 * g + d % 8 / 2, in_run = 4 * (d / 16) + 2 * (d % 16 / 8) + d % 2;
      const size_t first = size_t(group) * size_t(n / 8) + size_t(unit);
      runs[(first * WeightUnits::lanes + size_t(lane)) * WeightUnits::run + size_t(in_run)] =
          q.fields[size_t(row) * k + p];
      if (d == 0) {
        unit_scales[(first * 2) * 8 + size_t(g)] = q.scales[size_t(row) * groups + group];
        unit_scales[(first * 2 + 1) * 8 + size_t(g)] = q.zeros[size_t(row) * groups + group];
      }
    }
  const std::vector<uint8_t> want = stored_runs(t, runs);
  const std::vector<uint32_t> got_words = r.units.download();
  std::vector<uint8_t> got(got_words.size() * 4);
  std::memcpy(got.data(), got_words.data(), got.size());
  size_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
  const std::vector<Act> got_scales = r.unit_scales.download();
  for (size_t i = 0; i < unit_scales.size(); ++i) wrong += float(got_scales[i]) != float(Act(float(unit_scales[i])));
  cli::RunResult result;
  result.ok = got.size() == want.size() && wrong == 0;
  result.max_error = double(wrong);
  result.summary = fmt::format("{}: {} ({} bytes of weights, {} scales and zero points; {} differ)", label,
                               result.ok ? "PASS" : "FAIL", want.size(), unit_scales.size(), wrong);
  return result;
}

// Runs WeightOnlyGemm<W> (or S, a configuration of it, with activations, scales and output in Act) on [m, n, k]
// after RepackWeights<W, Act>, and checks it: random weights, activations in [-1, 1] and a poisoned output. The
// reference dequantizes as the kernel does (Act rounding after the subtraction and after the product) and
// accumulates in double; each output may be off by its rounding to Act and 2^-14 of the sum of its products'
// magnitudes (f32 accumulation over k), plus Act's rounding of it where the kernel scales each k-tile's sum instead
// of each weight (the wgmma GEMM's `promote`), which skips the product's rounding.
template <class W, class S = WeightOnlyGemm<W>, class Act = f16>
cli::RunResult run_weight_only_gemm(const Device& dev, int m, int n, int k, const KernelOptions& opt,
                                    const std::string& label) {
  constexpr DType t = dtype_v<W>;
  check_weight_only_sizes(n, k, label);
  const QuantizedWeights q = random_quantized_weights(t, n, k);
  const std::vector<Act> scales = converted<Act>(q.scales);
  const int groups = k / S::group;
  const RepackedWeights<Act> r = repack_on_device<W, Act>(dev, q, n, k, opt);
  const auto x = cli::random_vector<Act>(size_t(m) * k, 3);
  Buffer<Act> dx(dev, x), dy(dev, cli::poisoned<Act>(size_t(m) * n));
  Kernel<S> kernel(dev, opt);
  kernel(m, n, k, dx, r.units, r.unit_scales, dy);
  dev.synchronize();
  std::vector<float> dequantized(q.fields.size());
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p) {
      const size_t g = size_t(j) * groups + size_t(p / S::group);
      const Act shifted(value_from_bits(t, q.fields[size_t(j) * k + p]) - float(q.zeros[g]));
      dequantized[size_t(j) * k + p] = float(Act(float(shifted) * float(scales[g])));
    }
  const auto product = [&](int i, int j, int p) {
    return double(float(x[size_t(i) * k + p])) * dequantized[size_t(j) * k + p];
  };
  // Half a unit in the last place of Act's 11 or 8 significant bits.
  const double rounding = std::is_same_v<Act, f16> ? 1.0 / 2048 : 1.0 / 256;
  cli::RunResult result =
      cli::check_gemm(dy.download(), m, n, k, product, {1e-4, 2 * rounding, rounding + 1.0 / 16384}, label);
  result.stats = kernel.stats();
  return result;
}

}  // namespace tessel::examples::quantized
