// Ampere step 5 run on views that start anywhere: the pointers a call passes may break the
// alignment facts of another call's variant, which must then not be reused. Run on the simulator
// (tests/specialization_test.cpp) and on the GPU (tests/gpu/specialization_gpu_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include "tessel/cli/host_check.hpp"
#include "tessel/tessel.hpp"
#include "v5_swizzled.hpp"

namespace tessel::testing {

// C = A Bᵀ through `kernel`, with A, B and C starting `offset` elements into their buffers, against
// a host loop. Elements of C's buffer outside the result must keep their poison.
template <class S> void check_matmul_at_offset(Kernel<S>& kernel, const Device& dev, int m, int n, int k, int offset) {
  using T = f16;
  const auto a = cli::random_vector<T>(size_t(m) * k + offset, uint64_t(m * 7 + offset));
  const auto b = cli::random_vector<T>(size_t(n) * k + offset, uint64_t(n * 11 + offset));
  Buffer<T> da(dev, a), db(dev, b), dc(dev, cli::poisoned<T>(size_t(m) * n + offset));
  kernel(m, n, k, da.data() + offset, db.data() + offset, dc.data() + offset);
  const std::vector<T> c = dc.download();
  const float poison = float(cli::poisoned<T>(1)[0]);
  for (int i = 0; i < offset; ++i) ASSERT_EQ(float(c[size_t(i)]), poison) << "written before the view";
  std::vector<float> want(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p)
        acc += float(a[size_t(offset) + size_t(i) * k + p]) * float(b[size_t(offset) + size_t(j) * k + p]);
      want[size_t(i) * n + j] = acc;
    }
  const cli::RunResult r = cli::compare(std::vector<T>(c.begin() + offset, c.end()), want, 2e-2, 2e-2,
                                        fmt::format("{}x{}x{} at element offset {}", m, n, k, offset));
  EXPECT_TRUE(r.ok) << r.summary;
}

}  // namespace tessel::testing
