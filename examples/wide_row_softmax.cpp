#include "wide_row_softmax.hpp"

#include "examples.hpp"

namespace tessel::examples {

KernelEntry wide_row_softmax_example() {
  KernelEntry e;
  e.name = "wide_row_softmax";
  e.description = "softmax along wide rows of an [n_rows, n_cols] float matrix, one row per block";
  e.size_names = {"n_rows", "n_cols"};
  e.default_sizes = {37, 3000};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), cols = int(s[1]);
    // Logits up to 40 apart: a softmax without its max subtracted would overflow exp's f32 range.
    auto x = random_vector<float>(size_t(rows) * cols, 3, -40.0f, 40.0f);
    Buffer<float> dx(dev, x), dy(dev, poisoned<float>(x.size()));
    Kernel<WideRowSoftmax> k(dev, opt);
    k(rows, cols, dx, dy);
    dev.synchronize();
    const std::vector<float> want = row_softmax_reference(x, rows, cols);
    RunResult r = compare(dy.download(), want, 1e-7, 1e-5, fmt::format("wide_row_softmax {}x{}", rows, cols));
    r.stats = k.stats();
    return r;
  };
  add_introspection<WideRowSoftmax>(e, [](const std::vector<int64_t>& s) {
    float* p = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), p, p);
  });
  return e;
}

}  // namespace tessel::examples
