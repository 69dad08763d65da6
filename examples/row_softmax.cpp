#include "row_softmax.hpp"

#include <algorithm>
#include <cmath>

#include "examples.hpp"

namespace tessel::examples {

std::vector<float> row_softmax_reference(const std::vector<float>& x, int rows, int cols) {
  std::vector<float> want(x.size());
  for (int r = 0; r < rows; ++r) {
    const float* row = &x[size_t(r) * cols];
    double m = -INFINITY, total = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, double(row[c]));
    for (int c = 0; c < cols; ++c) total += std::exp(double(row[c]) - m);
    for (int c = 0; c < cols; ++c) want[size_t(r) * cols + c] = float(std::exp(double(row[c]) - m) / total);
  }
  return want;
}

KernelEntry row_softmax_example() {
  KernelEntry e;
  e.name = "row_softmax";
  e.description = "softmax along the rows of an [n_rows, n_cols] float matrix";
  e.size_names = {"n_rows", "n_cols"};
  e.default_sizes = {37, 300};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), cols = int(s[1]);
    auto x = random_vector<float>(size_t(rows) * cols, 3, -4.0f, 4.0f);
    Buffer<float> dx(dev, x), dy(dev, poisoned<float>(x.size()));
    Kernel<RowSoftmax> k(dev, opt);
    k(rows, cols, dx, dy);
    dev.synchronize();
    const std::vector<float> want = row_softmax_reference(x, rows, cols);
    RunResult r = compare(dy.download(), want, 1e-7, 1e-5, fmt::format("row_softmax {}x{}", rows, cols));
    r.stats = k.stats();
    return r;
  };
  add_introspection<RowSoftmax>(e, [](const std::vector<int64_t>& s) {
    float* p = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), p, p);
  });
  return e;
}

}  // namespace tessel::examples
