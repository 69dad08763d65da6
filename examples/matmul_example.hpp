// The registration shared by the matmul examples (C = A * B^T, T in, f32 accumulate, T out; or tf32
// in and f32 out): random inputs, a poisoned output, and a host reference in double precision.
#pragma once

#include <bit>
#include <cmath>

#include "examples.hpp"

namespace tessel::examples {

// C = A * B^T (A [m, k], B [n, k]) summed in double precision and rounded to f32. It lives in
// matmul_example.cpp, compiled once with the library's optimization, not in every program that
// registers a matmul (the tests build without optimization).
std::vector<float> matmul_reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k);

// Elements [begin, begin + count) of `v` as floats, a reference's operand (a group's rows).
template <class T> std::vector<float> as_float(const std::vector<T>& v, size_t begin, size_t count) {
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i) f[i] = float(v[begin + i]);
  return f;
}

// The registration of a matmul S over operands of host type H and a C of type Out: random
// operands, a poisoned C, and `check`'s verdict of C against the operands (check(c, a, b, m, n, k,
// label)).
template <class S, class H, class Out, class Check>
KernelEntry matmul_entry(std::string name, std::string description, Check check) {
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"m", "n", "k"};
  e.default_sizes = {200, 136, 96};
  e.runner = [label = e.name, check](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), n = int(s[1]), k = int(s[2]);
    const auto a = random_vector<H>(size_t(m) * k, 4), b = random_vector<H>(size_t(n) * k, 5);
    Buffer<H> da(dev, a), db(dev, b);
    Buffer<Out> dc(dev, poisoned<Out>(size_t(m) * n));
    Kernel<S> kernel(dev, opt);
    kernel(m, n, k, da, db, dc);
    dev.synchronize();
    RunResult r = check(dc.download(), a, b, m, n, k, fmt::format("{} {}x{}x{}", label, m, n, k));
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    H* p = nullptr;
    Out* c = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), p, p, c);
  });
  return e;
}

template <class S, class T = f16> KernelEntry matmul_example(std::string name, std::string description) {
  return matmul_entry<S, T, T>(std::move(name), std::move(description),
                               [](const std::vector<T>& c, const std::vector<T>& a, const std::vector<T>& b, int m,
                                  int n, int k, const std::string& label) {
                                 const std::vector<float> want =
                                     matmul_reference(as_float(a, 0, a.size()), as_float(b, 0, b.size()), m, n, k);
                                 // Half an ulp of output rounding (f16: 2^-11, bf16: 2^-8) plus f32 accumulation error.
                                 const double rtol = std::is_same_v<T, bf16> ? 8e-3 : 2e-3;
                                 return compare(c, want, 1e-2, rtol, label);
                               });
}

// The same for tf32 operands into an f32 output: the inputs are f32 with every mantissa bit random,
// which the kernel reads as tf32 (tessel/dtype.hpp: the low 13 bits cleared), so the reference
// multiplies the operands so cleared. Their products are exact in f32; the sums of k of them in f32
// are within k units of f32's last place of the sum of their magnitudes.
template <class S> KernelEntry tf32_matmul_example(std::string name, std::string description) {
  return matmul_entry<S, float, float>(
      std::move(name), std::move(description),
      [](const std::vector<float>& c, const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
         const std::string& label) {
        const auto as_tf32 = [](const std::vector<float>& v, bool magnitude) {
          std::vector<float> t(v.size());
          for (size_t i = 0; i < v.size(); ++i) {
            t[i] = float(tf32::from_bits(std::bit_cast<uint32_t>(v[i])));
            if (magnitude) t[i] = std::fabs(t[i]);
          }
          return t;
        };
        const std::vector<float> want = matmul_reference(as_tf32(a, false), as_tf32(b, false), m, n, k);
        const std::vector<float> magnitudes = matmul_reference(as_tf32(a, true), as_tf32(b, true), m, n, k);
        std::vector<double> bound(want.size());
        for (size_t i = 0; i < bound.size(); ++i) bound[i] = double(k) * 0x1p-23 * magnitudes[i] + 1e-30;
        return compare_within(c, want, bound, label);
      });
}

}  // namespace tessel::examples
