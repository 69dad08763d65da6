#include "layer_norm.hpp"

#include "examples.hpp"

namespace tessel::examples {

KernelEntry layer_norm_example() {
  KernelEntry e;
  e.name = "layer_norm";
  e.description = "LayerNorm along the rows of an [n_rows, n_cols] float matrix, one row per block";
  e.size_names = {"n_rows", "n_cols"};
  e.default_sizes = {37, 3000};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), cols = int(s[1]);
    // A large common offset: a variance computed as E[x^2] - E[x]^2 would lose it to cancellation.
    auto x = random_vector<float>(size_t(rows) * cols, 5, 90.0f, 110.0f);
    auto gamma = random_vector<float>(size_t(cols), 6, 0.5f, 1.5f);
    auto beta = random_vector<float>(size_t(cols), 7, -1.0f, 1.0f);
    Buffer<float> dx(dev, x), dgamma(dev, gamma), dbeta(dev, beta), dy(dev, poisoned<float>(x.size()));
    Kernel<LayerNorm> k(dev, opt);
    k(rows, cols, dx, dgamma, dbeta, dy);
    dev.synchronize();
    std::vector<float> want(x.size());
    for (int r = 0; r < rows; ++r) {
      const float* row = &x[size_t(r) * cols];
      double mean = 0, var = 0;
      for (int c = 0; c < cols; ++c) mean += row[c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
      var /= cols;
      for (int c = 0; c < cols; ++c)
        want[size_t(r) * cols + c] =
            float((row[c] - mean) / std::sqrt(var + 1e-5) * gamma[size_t(c)] + beta[size_t(c)]);
    }
    RunResult r = compare(dy.download(), want, 1e-4, 1e-4, fmt::format("layer_norm {}x{}", rows, cols));
    r.stats = k.stats();
    return r;
  };
  add_introspection<LayerNorm>(e, [](const std::vector<int64_t>& s) {
    float* p = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), p, p, p, p);
  });
  return e;
}

}  // namespace tessel::examples
