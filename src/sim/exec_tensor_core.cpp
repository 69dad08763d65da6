// Simulator semantics of dot: each warp multiplies the parts of A and B its lanes hold into the
// part of C they hold. f16/bf16 products are exact in f32 and summed in f32; i8/u8 products are
// summed exactly and the accumulator wraps modulo 2^32, as mma.sync without .satfinite does.
#include <cmath>

#include "machine.hpp"
#include "tessel/ir/evaluate.hpp"

namespace tessel::sim {

namespace {

// The warp's view of a tile as a dense row-major matrix; `missing` where no lane of the warp
// holds an element.
template <class T>
std::vector<T> gather(Warp& w, const ir::RegisterTensor& t, Mask mask, T missing, T (*value)(ir::Scalar)) {
  const int cols = t->shape()[1];
  std::vector<T> dense(size_t(t->shape()[0]) * cols, missing);
  const auto& table = w.cta.tables.coords(t.get());
  const auto& values = w.tile(t.get());
  const int local = t->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(th) * local + s) * 2];
      dense[size_t(c[0]) * cols + c[1]] = value(values[size_t(lane) * local + s]);
    }
  }
  return dense;
}

// out[i, j] = c[i, j] + sum_k a[i, k] * b[k, j] over the elements the warp's lanes hold.
template <class T>
void multiply(Warp& w, const ir::DotNode& n, Mask mask, T missing, T (*value)(ir::Scalar), ir::Scalar (*result)(T)) {
  const int nn = n.c->shape()[1], k = n.a->shape()[1];
  const std::vector<T> a = gather(w, n.a, mask, missing, value), b = gather(w, n.b, mask, missing, value);
  const auto& table = w.cta.tables.coords(n.out.get());
  const auto& acc = w.tile(n.c.get());
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(th) * local + s) * 2];
      T sum = value(acc[size_t(lane) * local + s]);
      for (int kk = 0; kk < k; ++kk) sum += a[size_t(c[0]) * k + kk] * b[size_t(kk) * nn + c[1]];
      out[size_t(lane) * local + s] = result(sum);
    }
  }
}

}  // namespace

void exec_Dot(Warp& w, const ir::DotNode& n, Mask mask) {
  if (n.out->dtype == DType::I32) {
    // i8 and u8 elements hold their values, whatever the mix of signedness. No byte is 2^40: a
    // missing element makes the sum visibly wrong instead of contributing 0.
    multiply<int64_t>(
        w, n, mask, int64_t(1) << 40, [](ir::Scalar v) { return v.i; },
        [](int64_t x) { return ir::normalize(DType::I32, ir::Scalar{.i = x}); });
  } else {
    multiply<float>(
        w, n, mask, NAN, [](ir::Scalar v) { return float(v.f); }, [](float x) { return ir::Scalar{.f = x}; });
  }
}

}  // namespace tessel::sim
