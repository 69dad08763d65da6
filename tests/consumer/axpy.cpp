// A kernel of the consumer's own, run on the simulator and checked against a host loop on random
// data. Exits with 1 when any element differs.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "axpy.hpp"

using namespace tessel;

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
