// The consumer's own kernels under the tessel command line: `kernels list`, `kernels run axpy`,
// `kernels check axpy`, `kernels ir|cuda|compile|space|aot axpy`, as the tessel command gives for
// its examples; and from Python, `tessel.load("kernels.cpp").axpy(n, alpha, x, y, out)`.
#include <cmath>

#include "axpy.hpp"
#include "tessel/cli/host_check.hpp"
#include "tessel/cli/main.hpp"

using namespace tessel;

TESSEL_KERNELS(kernels) {
  kernels.add<Axpy>(
      {"axpy", "out = alpha x + y over n floats", {"n"}, {5000}},
      [](const cli::Sizes& s) {
        float* p = nullptr;  // the commands that only build the kernel pass no data
        return std::make_tuple(int(s[0]), 1.75f, p, p, p);
      },
      [](const Device& dev, const cli::Sizes& s, Kernel<Axpy>& kernel) {
        const int n = int(s[0]);
        const std::vector<float> x = cli::random_vector<float>(n, 1), y = cli::random_vector<float>(n, 2);
        Buffer<float> dx(dev, x), dy(dev, y), dout(dev, cli::poisoned<float>(n));
        kernel(n, 1.75f, dx, dy, dout);
        std::vector<float> want(n);
        for (int i = 0; i < n; ++i) want[i] = 1.75f * x[i] + y[i];
        return cli::compare(dout.download(), want, 1e-6, 1e-6, fmt::format("axpy n={}", n));
      });
}

int main(int argc, char** argv) { return cli::run(argc, argv, *tessel_kernels()); }
