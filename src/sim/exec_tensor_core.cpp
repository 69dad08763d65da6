// Simulator semantics of dot: each warp multiplies the parts of A and B its lanes hold into the
// part of C they hold, summed as tensor_core_sums.hpp says.
#include <type_traits>

#include "machine.hpp"
#include "tensor_core_sums.hpp"

namespace tessel::sim {

namespace {

// The warp's view of a tile as a dense row-major matrix; Sums::missing where no lane of the warp
// holds an element.
template <class Sums> std::vector<typename Sums::Value> gather(Warp& w, const ir::RegisterTensor& t, Mask mask) {
  const int cols = t->shape()[1];
  std::vector<typename Sums::Value> dense(size_t(t->shape()[0]) * cols, Sums::missing);
  const auto& table = w.cta.tables.coords(t.get());
  const auto& values = w.tile(t.get());
  const int local = t->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(th) * local + s) * 2];
      dense[size_t(c[0]) * cols + c[1]] = Sums::value(operand_value(t->dtype, values[size_t(lane) * local + s]));
    }
  }
  return dense;
}

// out[i, j] = c[i, j] + sum_k a[i, k] * b[k, j] over the elements the warp's lanes hold.
template <class Sums> void multiply(Warp& w, const ir::DotNode& n, Mask mask) {
  const int nn = n.c->shape()[1], k = n.a->shape()[1];
  const auto a = gather<Sums>(w, n.a, mask), b = gather<Sums>(w, n.b, mask);
  const auto& table = w.cta.tables.coords(n.out.get());
  const auto& acc = w.tile(n.c.get());
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int s = 0; s < local; ++s) {
      const int* c = &table[(size_t(th) * local + s) * 2];
      typename Sums::Value sum = Sums::value(acc[size_t(lane) * local + s]);
      for (int kk = 0; kk < k; ++kk) {
        sum += a[size_t(c[0]) * k + kk] * b[size_t(kk) * nn + c[1]];
        if constexpr (std::is_same_v<Sums, IntegerSums>)
          if (n.saturate && (kk + 1) % IntegerSums::saturation_step == 0) sum = IntegerSums::saturated(sum);
      }
      out[size_t(lane) * local + s] = Sums::result(sum);
    }
  }
}

}  // namespace

void exec_Dot(Warp& w, const ir::DotNode& n, Mask mask) {
  if (mask != 0xffffffffu)
    throw Error(n.loc, fmt::format("dot (mma.sync) is executed by whole warps, but only {} lanes of warp {} reach it "
                                   "(is it inside an if_ that part of the warp takes?){}",
                                   popcount(mask), w.id, w.returned_note(~mask)));
  if (n.out->dtype == DType::I32)
    multiply<IntegerSums>(w, n, mask);
  else
    multiply<FloatSums>(w, n, mask);
}

}  // namespace tessel::sim
