// Simulator semantics of dot: each warp multiplies the parts of A and B its lanes hold into the
// part of C they hold. Products of f16/bf16 values are exact in f32; sums are f32.
#include <cmath>

#include "machine.hpp"

namespace tessel::sim {

void exec_Dot(Warp& w, const ir::DotNode& n, Mask mask) {
  const int m = n.c->shape()[0], nn = n.c->shape()[1], k = n.a->shape()[1];
  // The warp's view of A and B as dense matrices (NaN where no lane of this warp holds an element).
  auto gather = [&](const ir::RegisterTensor& t, int rows, int cols) {
    std::vector<float> dense(size_t(rows) * cols, NAN);
    const auto& table = w.cta.tables.coords(t.get());
    const auto& values = w.tile(t.get());
    const int local = t->layout.local_size();
    for (int lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1)) continue;
      const int th = w.thread_in_group(lane);
      for (int s = 0; s < local; ++s) {
        const int* c = &table[(size_t(th) * local + s) * 2];
        dense[size_t(c[0]) * cols + c[1]] = float(values[size_t(lane) * local + s].f);
      }
    }
    return dense;
  };
  const std::vector<float> a = gather(n.a, m, k), b = gather(n.b, k, nn);
  const auto& table = w.cta.tables.coords(n.out.get());
  const auto& acc = w.tile(n.c.get());
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(th) * local + s) * 2];
      float sum = float(acc[size_t(lane) * local + s].f);
      for (int kk = 0; kk < k; ++kk) {
        const float x = a[size_t(c[0]) * k + kk], y = b[size_t(kk) * nn + c[1]];
        sum += x * y;
      }
      out[size_t(lane) * local + s] = ir::Scalar{.f = sum};
    }
  }
}

}  // namespace tessel::sim
