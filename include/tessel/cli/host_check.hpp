// Helpers for a registered kernel's host-side check (tessel/cli/registry.hpp): random inputs, a
// poisoned output, and comparison with a host reference.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "tessel/cli/registry.hpp"

namespace tessel::cli {

template <class T> std::vector<T> random_vector(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = T(dist(rng));
  return v;
}

// A value no correct kernel writes, to detect elements that were never written.
template <class T> std::vector<T> poisoned(size_t n) { return std::vector<T>(n, T(12345.0f)); }

// Compares element by element with |got - want| <= bound[i]; reports the worst.
template <class T> RunResult compare_within(const std::vector<T>& got, const std::vector<float>& want,
                                            const std::vector<double>& bound, std::string what) {
  RunResult r;
  r.ok = got.size() == want.size() && bound.size() == want.size();
  size_t worst = 0;
  for (size_t i = 0; i < got.size() && i < want.size() && i < bound.size(); ++i) {
    const double g = double(float(got[i])), w = want[i];
    const double err = g == w ? 0.0 : std::abs(g - w) / bound[i];  // equal passes a bound of 0 too
    if (!(err <= 1.0)) r.ok = false;
    if (!(err <= r.max_error)) {
      r.max_error = std::isnan(err) ? INFINITY : err;
      worst = i;
    }
  }
  r.summary =
      fmt::format("{}: {} ({} elements; worst element {}: got {}, want {})", what, r.ok ? "PASS" : "FAIL", got.size(),
                  worst, got.empty() ? 0.0 : double(float(got[worst])), want.empty() ? 0.0 : want[worst]);
  return r;
}

// Compares element by element with |got - want| <= atol + rtol * |want|; reports the worst.
template <class T> RunResult compare(const std::vector<T>& got, const std::vector<float>& want, double atol,
                                     double rtol, std::string what) {
  std::vector<double> bound(want.size());
  for (size_t i = 0; i < want.size(); ++i) bound[i] = atol + rtol * std::abs(double(want[i]));
  return compare_within(got, want, bound, std::move(what));
}

// Compares integers (or any values with ==) exactly, element by element; reports the first that
// differs and how many do. Floats of 24 bits cannot hold every 32-bit integer: this is the check
// for integer outputs.
template <class T> RunResult compare_exact(const std::vector<T>& got, const std::vector<T>& want, std::string what) {
  RunResult r;
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    if (!(got[i] == want[i]) && wrong++ == 0) first = i;
  r.ok = got.size() == want.size() && wrong == 0;
  r.max_error = wrong == 0 ? 0.0 : INFINITY;
  if (got.size() != want.size())
    r.summary = fmt::format("{}: FAIL ({} elements, want {})", what, got.size(), want.size());
  else if (wrong == 0)
    r.summary = fmt::format("{}: PASS ({} elements, all equal)", what, got.size());
  else
    r.summary = fmt::format("{}: FAIL ({} elements, {} differ; first element {}: got {}, want {})", what, got.size(),
                            wrong, first, got[first], want[first]);
  return r;
}

// How far a GEMM's output may be from the reference: `absolute` plus `relative` of its value (the
// output's rounding) plus `of_magnitude` of the sum of its products' magnitudes (what accumulating
// in f32, in an order of the tensor core's, can lose on an element near 0 from large products).
struct GemmTolerance {
  double absolute, relative, of_magnitude;
};

// For low-precision GEMMs into bf16: half an ulp of bf16 (2^-8, relative) and an absolute floor for
// the output rounding, plus 2^-11 of the products' magnitudes: the tensor cores' fp8 accumulation
// keeps about 14 bits (DeepSeek-V3's report measured it on the H800).
inline constexpr GemmTolerance kLowPrecisionGemmTolerance{2e-2, 8e-3, 1.0 / 2048};

// Checks got [m, n] against C(i, j) = sum over p < k of product(i, j, p), accumulated in double.
template <class T, class Product> RunResult check_gemm(const std::vector<T>& got, int m, int n, int k, Product product,
                                                       GemmTolerance tolerance, const std::string& what) {
  std::vector<float> want(size_t(m) * n);
  std::vector<double> bound(want.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        const double x = product(i, j, p);
        acc += x;
        magnitude += std::abs(x);
      }
      want[size_t(i) * n + j] = float(acc);
      bound[size_t(i) * n + j] =
          tolerance.absolute + tolerance.relative * std::abs(acc) + tolerance.of_magnitude * magnitude;
    }
  return compare_within(got, want, bound, fmt::format("{} {}x{}x{}", what, m, n, k));
}

}  // namespace tessel::cli
