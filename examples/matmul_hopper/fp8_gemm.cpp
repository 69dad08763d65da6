// The 8-bit GEMM's registrations: fp8 (e4m3 x e4m3 and e5m2 x e4m3) into bf16 with per-tensor
// scales, e4m3 x e4m3 with row scales and with block scales, and 8-bit integers (i8 x i8, u8 x i8)
// into bf16 with per-tensor scales, and i8 x i8 with row scales.
#include "fp8_gemm.hpp"

#include <cmath>
#include <type_traits>
#include <utility>

#include "examples.hpp"

namespace tessel::examples {

namespace {

// D = A Bᵀ with product (i, j, p) scaled by scale(i, j, p), checked against `got` within `tolerance`.
template <class A, class B, class Scale>
RunResult check_8bit_gemm(const std::vector<bf16>& got, const std::vector<A>& a, const std::vector<B>& b, int m, int n,
                          int k, Scale scale, cli::GemmTolerance tolerance, const std::string& label) {
  const auto product = [&](int i, int j, int p) {
    return double(float(a[size_t(i) * k + p])) * double(float(b[size_t(j) * k + p])) * scale(i, j, p);
  };
  return cli::check_gemm(got, m, n, k, product, tolerance, label);
}

// Where random operands of type T lie: fp8 values spread over [-4, 4] (products up to 4^2), 8-bit
// integers over their type's whole range.
template <class T> std::pair<float, float> operand_range() {
  if constexpr (!std::is_integral_v<T>)
    return {-4.0f, 4.0f};
  else if constexpr (std::is_signed_v<T>)
    return {-128.9f, 127.9f};
  else
    return {0.0f, 255.9f};
}

// Random operands, per-tensor scales or random row scales (RowScales), a poisoned output, and a
// reference that decodes every value exactly and accumulates in double precision. fp8 sums keep
// about 14 bits at the tensor cores (kLowPrecisionGemmTolerance); integer sums are exact, so only the
// f32 scaling and the rounding to bf16 (2^-8 relative) are allowed.
template <class A, class B, class Scaling = hopper::TensorScales>
KernelEntry scaled_example(std::string name, std::string description) {
  using S = hopper::MatmulFp8<A, B, bf16, Scaling>;
  constexpr bool integer = std::is_integral_v<A>, row_scaled = S::row_scaled;
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"m", "n", "k"};
  e.default_sizes = {200, 136, 384};
  e.targets = {"sm_90a"};
  e.runner = [label = e.name](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), n = int(s[1]), k = int(s[2]);
    const float scale_a = integer ? 1.0f / 64 : 0.25f, scale_b = integer ? 1.0f / 128 : 0.5f;
    const auto [a_low, a_high] = operand_range<A>();
    const auto [b_low, b_high] = operand_range<B>();
    auto a = random_vector<A>(size_t(m) * k, 4, a_low, a_high), b = random_vector<B>(size_t(n) * k, 5, b_low, b_high);
    Buffer<A> da(dev, a);
    Buffer<B> db(dev, b);
    Buffer<bf16> dd(dev, poisoned<bf16>(size_t(m) * n));
    Kernel<S> kernel(dev, opt);
    // Per-tensor scales are the row scales' special case, so one reference serves both.
    std::vector<float> token_scales(size_t(m), scale_a), channel_scales(size_t(n), scale_b);
    if constexpr (row_scaled) {
      token_scales = random_vector<float>(size_t(m), 6, scale_a / 2, scale_a * 2);
      channel_scales = random_vector<float>(size_t(n), 7, scale_b / 2, scale_b * 2);
    }
    Buffer<float> d_token_scales(dev, token_scales), d_channel_scales(dev, channel_scales);
    if constexpr (row_scaled)
      kernel(m, n, k, d_token_scales, d_channel_scales, da, db, dd);
    else
      kernel(m, n, k, scale_a, scale_b, da, db, dd);
    const auto scale = [&](int i, int j, int) { return double(token_scales[size_t(i)]) * channel_scales[size_t(j)]; };
    dev.synchronize();
    RunResult r =
        check_8bit_gemm(dd.download(), a, b, m, n, k, scale,
                        integer ? cli::GemmTolerance{1e-6, 1.0 / 256, 0} : cli::kLowPrecisionGemmTolerance, label);
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    A* pa = nullptr;
    B* pb = nullptr;
    bf16* pd = nullptr;
    if constexpr (row_scaled) {
      float* scales = nullptr;
      return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), scales, scales, pa, pb, pd);
    } else {
      return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), 1.0f, 1.0f, pa, pb, pd);
    }
  });
  return e;
}

// The block-scaled form: random scales per row and 128 columns of A (stored M-major, [k / 128, m])
// and per 128 x 128 block of B.
KernelEntry fp8_gemm_block_scaled_example() {
  using S = hopper::MatmulFp8<f8e4m3, f8e4m3, bf16, hopper::BlockScales>;
  KernelEntry e;
  e.name = "fp8_gemm_block_scaled";
  e.description =
      "fp8 GEMM with DeepSeek-V3's block scales (1 x 128 for A, stored M-major as [k / 128, m]; 128 x 128 for B), "
      "promoted to f32 every k-tile";
  e.size_names = {"m", "n", "k"};
  e.default_sizes = {200, 136, 384};
  e.targets = {"sm_90a"};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), n = int(s[1]), k = int(s[2]), kb = (k + 127) / 128, nb = (n + 127) / 128;
    auto a = random_vector<f8e4m3>(size_t(m) * k, 4, -4.0f, 4.0f),
         b = random_vector<f8e4m3>(size_t(n) * k, 5, -4.0f, 4.0f);
    auto scale_a = random_vector<float>(size_t(m) * kb, 6, 0.01f, 1.0f);
    auto scale_b = random_vector<float>(size_t(nb) * kb, 7, 0.01f, 1.0f);
    Buffer<f8e4m3> da(dev, a), db(dev, b);
    Buffer<float> dsa(dev, scale_a), dsb(dev, scale_b);
    Buffer<bf16> dd(dev, poisoned<bf16>(size_t(m) * n));
    Kernel<S> kernel(dev, opt);
    kernel(m, n, k, dsa, dsb, da, db, dd);
    dev.synchronize();
    const auto scale = [&](int i, int j, int p) {
      return double(scale_a[size_t(p / 128) * m + i]) * scale_b[size_t(j / 128) * kb + p / 128];
    };
    RunResult r =
        check_8bit_gemm(dd.download(), a, b, m, n, k, scale, cli::kLowPrecisionGemmTolerance, "fp8_gemm_block_scaled");
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    f8e4m3* p = nullptr;
    float* scales = nullptr;
    bf16* pd = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), scales, scales, p, p, pd);
  });
  return e;
}

}  // namespace

std::vector<KernelEntry> fp8_gemm_examples() {
  using hopper::RowScales;
  return {scaled_example<f8e4m3, f8e4m3>("fp8_gemm",
                                         "fp8 GEMM (e4m3 x e4m3 into bf16, per-tensor scales): wgmma m64nNk32 in "
                                         "the Hopper ladder's persistent, warp-specialized structure"),
          scaled_example<f8e5m2, f8e4m3>("fp8_gemm_e5m2", "fp8 GEMM with e5m2 A (gradients) and e4m3 B"),
          scaled_example<f8e4m3, f8e4m3, RowScales>(
              "fp8_gemm_rowwise", "fp8 GEMM with a scale per row of A (token) and per row of B (output channel)"),
          fp8_gemm_block_scaled_example(),
          scaled_example<int8_t, int8_t>("int8_gemm",
                                         "int8 GEMM (i8 x i8, exact s32 sums, into bf16 with per-tensor scales): "
                                         "the fp8 GEMM's structure with wgmma m64nNk32.s32"),
          scaled_example<uint8_t, int8_t>("int8_gemm_u8",
                                          "int8 GEMM with u8 A (asymmetrically quantized activations) and i8 B"),
          scaled_example<int8_t, int8_t, RowScales>(
              "int8_gemm_rowwise", "int8 GEMM with per-token and per-channel scales (SmoothQuant's W8A8)")};
}

}  // namespace tessel::examples
