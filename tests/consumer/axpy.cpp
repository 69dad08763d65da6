// A kernel of the consumer's own, run on the simulator and checked against a host loop on random
// data. Exits with 1 when any element differs.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tessel/tessel.hpp"

using namespace tessel;

// out = alpha * x + y over n floats; each block handles `block` of them.
struct Axpy : Script {
  int block = 1024;
  void operator()(Int32 n, Float32 alpha, Ptr<float> x, Ptr<float> y, Ptr<float> out) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = 4;
    Int32 offset = blockIdx.x * block;
    auto rx = load_global(global_view(x, {n}), {offset}, {block});
    auto ry = load_global(global_view(y, {n}), {offset}, {block});
    store_global(global_view(out, {n}), alpha * rx + ry, {offset});
  }
};

int main() {
  const int n = 5000;  // not a whole number of blocks: the last one is masked
  const float alpha = 1.75f;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = uniform(rng);
    y[i] = uniform(rng);
  }

  const Device sim = Device::simulator();
  Buffer<float> dx(sim, x), dy(sim, y), dout(sim, std::vector<float>(n, NAN));
  Kernel<Axpy> axpy(sim);
  axpy(n, alpha, dx, dy, dout);
  sim.synchronize();

  const std::vector<float> out = dout.download();
  for (int i = 0; i < n; ++i) {
    const float want = alpha * x[i] + y[i];
    if (!(std::fabs(out[i] - want) <= 1e-6f * (1.0f + std::fabs(want)))) {
      std::printf("axpy: out[%d] = %g, the host computes %g\n", i, out[i], want);
      return 1;
    }
  }
  std::printf("axpy on the simulator: %d elements match the host\n", n);
  return 0;
}
