#include "matmul_example.hpp"

namespace tessel::examples {

std::vector<float> matmul_reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  std::vector<float> c(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += double(a[size_t(i) * k + p]) * double(b[size_t(j) * k + p]);
      c[size_t(i) * n + j] = float(acc);
    }
  return c;
}

}  // namespace tessel::examples
