#include "grouped_gemm.hpp"

#include <algorithm>

#include "matmul_example.hpp"

namespace tessel::examples {

namespace {

// Where each of `groups` groups of `rows` rows ends, cut at random places: groups of every size,
// empty ones and ones of a partial tile among them.
std::vector<int32_t> random_group_ends(int rows, int groups, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> place(0, rows);
  std::vector<int32_t> ends(static_cast<size_t>(groups));
  for (int32_t& end : ends) end = place(rng);
  std::sort(ends.begin(), ends.end());
  ends.back() = rows;
  return ends;
}

// The group of each of `rows` rows, for groups that end at `ends`.
std::vector<int> group_of_rows(int rows, const std::vector<int32_t>& ends) {
  std::vector<int> group_of(static_cast<size_t>(rows));
  for (int g = 0, begin = 0; g < int(ends.size()); begin = ends[size_t(g)], ++g)
    std::fill(group_of.begin() + begin, group_of.begin() + ends[size_t(g)], g);
  return group_of;
}

// The arguments both fp8 kernels take at sizes `s` (rows, n, k, groups), for introspection.
auto fp8_grouped_arguments(const std::vector<int64_t>& s) {
  f8e4m3* p = nullptr;
  int32_t* i = nullptr;
  float* f = nullptr;
  bf16* y = nullptr;
  return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), int(s[3]), p, p, i, f, f, y);
}

KernelEntry moe_grouped_gemm_example() {
  using T = bf16;
  KernelEntry e;
  e.name = "moe_grouped_gemm";
  e.description =
      "a mixture of experts' GEMMs as one grouped GEMM (bf16): each group's rows times its expert's weights";
  e.size_names = {"rows", "n", "k", "groups"};
  e.default_sizes = {200, 136, 96, 4};
  e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), n = int(s[1]), k = int(s[2]), groups = int(s[3]);
    const std::vector<int32_t> ends = random_group_ends(rows, groups, 21);
    auto x = random_vector<T>(size_t(rows) * k, 22), w = random_vector<T>(size_t(groups) * n * k, 23);
    Buffer<T> dx(dev, x), dw(dev, w), dy(dev, poisoned<T>(size_t(rows) * n));
    Buffer<int32_t> dends(dev, ends);
    Kernel<MoeGroupedGemm<T>> kernel(dev, opt);
    kernel(rows, n, k, groups, dx, dw, dends, dy);
    dev.synchronize();
    std::vector<float> want;
    want.reserve(size_t(rows) * n);
    for (int g = 0, begin = 0; g < groups; begin = ends[size_t(g)], ++g) {
      const int group_rows = ends[size_t(g)] - begin;
      const std::vector<float> y = matmul_reference(as_float(x, size_t(begin) * k, size_t(group_rows) * k),
                                                    as_float(w, size_t(g) * n * k, size_t(n) * k), group_rows, n, k);
      want.insert(want.end(), y.begin(), y.end());
    }
    // As the Hopper ladder's bf16 GEMMs: half an ulp of bf16 plus f32 accumulation error.
    RunResult r = compare(dy.download(), want, 1e-2, 8e-3,
                          fmt::format("moe_grouped_gemm ({} groups) {}x{}x{}", groups, rows, n, k));
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<MoeGroupedGemm<T>>(e, [](const std::vector<int64_t>& s) {
    T* p = nullptr;
    int32_t* i = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), int(s[3]), p, p, i, p);
  });
  return e;
}

// fp8 operands over [-4, 4] with random row and channel scales; the reference decodes every value
// exactly and sums in double precision, within the tolerance of fp8 sums at the tensor cores.
KernelEntry moe_grouped_gemm_fp8_example() {
  using T = f8e4m3;
  KernelEntry e;
  e.name = "moe_grouped_gemm_fp8";
  e.description =
      "moe_grouped_gemm in fp8 (e4m3 rows and weights, an f32 scale per row and per expert's output channel, bf16 "
      "out)";
  e.size_names = {"rows", "n", "k", "groups"};
  e.default_sizes = {200, 136, 160, 4};
  e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), n = int(s[1]), k = int(s[2]), groups = int(s[3]);
    const std::vector<int32_t> ends = random_group_ends(rows, groups, 21);
    auto x = random_vector<T>(size_t(rows) * k, 22, -4.0f, 4.0f),
         w = random_vector<T>(size_t(groups) * n * k, 23, -4.0f, 4.0f);
    auto scale_x = random_vector<float>(size_t(rows), 24, 0.125f, 0.5f),
         scale_w = random_vector<float>(size_t(groups) * n, 25, 0.25f, 1.0f);
    Buffer<T> dx(dev, x), dw(dev, w);
    Buffer<float> dscale_x(dev, scale_x), dscale_w(dev, scale_w);
    Buffer<bf16> dy(dev, poisoned<bf16>(size_t(rows) * n));
    Buffer<int32_t> dends(dev, ends);
    Kernel<MoeGroupedGemmFp8> kernel(dev, opt);
    kernel(rows, n, k, groups, dx, dw, dends, dscale_x, dscale_w, dy);
    dev.synchronize();
    const std::vector<int> group_of = group_of_rows(rows, ends);
    const auto product = [&](int i, int j, int p) {
      const size_t g = size_t(group_of[size_t(i)]);
      return double(float(x[size_t(i) * k + p])) * double(float(w[(g * n + size_t(j)) * k + p])) * scale_x[size_t(i)] *
             scale_w[g * n + size_t(j)];
    };
    RunResult r = cli::check_gemm(dy.download(), rows, n, k, product, cli::kLowPrecisionGemmTolerance,
                                  fmt::format("moe_grouped_gemm_fp8 ({} groups)", groups));
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<MoeGroupedGemmFp8>(e, fp8_grouped_arguments);
  return e;
}

// Block scales as DeepSeek-V3 takes them: random scales per row and 128 of k, stored M-major with
// each row of them padded to a multiple of 4 (poisoned past the rows, so that a read of the padding
// shows), and per 128 x 128 block of each expert's weights.
KernelEntry moe_grouped_gemm_fp8_block_scaled_example() {
  using T = f8e4m3;
  KernelEntry e;
  e.name = "moe_grouped_gemm_fp8_block_scaled";
  e.description =
      "moe_grouped_gemm in fp8 with DeepSeek-V3's block scales (1 x 128 per row, stored M-major; 128 x 128 per "
      "block of each expert's weights), promoted to f32 every k-tile";
  e.size_names = {"rows", "n", "k", "groups"};
  e.default_sizes = {200, 264, 320, 4};
  e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), n = int(s[1]), k = int(s[2]), groups = int(s[3]);
    const int k_blocks = (k + 127) / 128, n_blocks = (n + 127) / 128, stride = (rows + 3) / 4 * 4;
    const std::vector<int32_t> ends = random_group_ends(rows, groups, 21);
    auto x = random_vector<T>(size_t(rows) * k, 22, -4.0f, 4.0f),
         w = random_vector<T>(size_t(groups) * n * k, 23, -4.0f, 4.0f);
    auto scale_x = poisoned<float>(size_t(k_blocks) * stride);
    const auto row_scales = random_vector<float>(size_t(k_blocks) * rows, 24, 0.01f, 1.0f);
    for (int b = 0; b < k_blocks; ++b)
      std::copy_n(row_scales.begin() + ptrdiff_t(b) * rows, rows, scale_x.begin() + ptrdiff_t(b) * stride);
    auto scale_w = random_vector<float>(size_t(groups) * n_blocks * k_blocks, 25, 0.01f, 1.0f);
    Buffer<T> dx(dev, x), dw(dev, w);
    Buffer<float> dscale_x(dev, scale_x), dscale_w(dev, scale_w);
    Buffer<bf16> dy(dev, poisoned<bf16>(size_t(rows) * n));
    Buffer<int32_t> dends(dev, ends);
    Kernel<MoeGroupedGemmFp8BlockScaled> kernel(dev, opt);
    kernel(rows, n, k, groups, dx, dw, dends, dscale_x, dscale_w, dy);
    dev.synchronize();
    const std::vector<int> group_of = group_of_rows(rows, ends);
    const auto product = [&](int i, int j, int p) {
      const size_t g = size_t(group_of[size_t(i)]), b = size_t(p / 128);
      return double(float(x[size_t(i) * k + p])) * double(float(w[(g * n + size_t(j)) * k + p])) *
             scale_x[b * stride + size_t(i)] * scale_w[(g * n_blocks + size_t(j / 128)) * k_blocks + b];
    };
    RunResult r = cli::check_gemm(dy.download(), rows, n, k, product, cli::kLowPrecisionGemmTolerance,
                                  fmt::format("moe_grouped_gemm_fp8_block_scaled ({} groups)", groups));
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<MoeGroupedGemmFp8BlockScaled>(e, fp8_grouped_arguments);
  return e;
}

}  // namespace

std::vector<KernelEntry> moe_grouped_gemm_examples() {
  return {moe_grouped_gemm_example(), moe_grouped_gemm_fp8_example(), moe_grouped_gemm_fp8_block_scaled_example()};
}

}  // namespace tessel::examples
