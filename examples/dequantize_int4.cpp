#include "dequantize_int4.hpp"

#include "examples.hpp"

namespace tessel::examples {

KernelEntry dequantize_int4_example() {
  KernelEntry e;
  e.name = "dequantize_int4";
  e.description = "f16 weights from signed 4-bit ones (packed two to a byte) and f16 scales per group of 128 rows";
  e.size_names = {"k", "n"};
  e.default_sizes = {300, 1000};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int k = int(s[0]), n = int(s[1]), groups = (k + 127) / 128;
    const int64_t elements = int64_t(k) * n;
    std::mt19937 rng(5);
    std::vector<uint8_t> q(size_t((elements + 1) / 2));
    for (uint8_t& b : q) b = uint8_t(rng());
    auto scales = random_vector<f16>(size_t(groups) * n, 6, -0.1f, 0.1f);
    Buffer<uint8_t> dq(dev, q);
    Buffer<f16> ds(dev, scales), dw(dev, poisoned<f16>(size_t(elements)));
    Kernel<DequantizeInt4> kernel(dev, opt);
    kernel(k, n, dq, ds, dw);
    dev.synchronize();
    // Element i is the low nibble of byte i / 2 for even i, the high one for odd i; the f16 product
    // of two f16 values is rounded once.
    std::vector<float> want(static_cast<size_t>(elements));
    for (int64_t i = 0; i < elements; ++i) {
      const int nibble = q[size_t(i / 2)] >> (4 * (i % 2)) & 0xf;
      const float scale = float(scales[size_t(i / n / 128 * n + i % n)]);
      want[size_t(i)] = float(f16(float(nibble >= 8 ? nibble - 16 : nibble) * scale));
    }
    RunResult r = compare(dw.download(), want, 1e-30, 0, fmt::format("dequantize_int4 {}x{}", k, n));
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<DequantizeInt4>(e, [](const std::vector<int64_t>& s) {
    uint8_t* q = nullptr;
    f16* h = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), q, h, h);
  });
  return e;
}

}  // namespace tessel::examples
