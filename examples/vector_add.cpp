#include "vector_add.hpp"

#include "examples.hpp"

namespace tessel::examples {

KernelEntry vector_add_example() {
  KernelEntry e;
  e.name = "vector_add";
  e.description = "c = a + b over n floats";
  e.size_names = {"n"};
  e.default_sizes = {100000};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int n = int(s[0]);
    auto a = random_vector<float>(n, 1), b = random_vector<float>(n, 2);
    Buffer<float> da(dev, a), db(dev, b), dc(dev, poisoned<float>(n));
    Kernel<VectorAdd> k(dev, opt);
    k(n, da, db, dc);
    dev.synchronize();
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
    RunResult r = compare(dc.download(), want, 0, 1e-7, fmt::format("vector_add n={}", n));
    r.stats = k.stats();
    return r;
  };
  add_introspection<VectorAdd>(e, [](const std::vector<int64_t>& s) {
    float* p = nullptr;
    return std::make_tuple(int(s[0]), p, p, p);
  });
  return e;
}

}  // namespace tessel::examples
