// The fp8 activation quantization's registration: bf16 rows in, e4m3 and M-major scales out.
#include "quantize_fp8_groups.hpp"

#include <algorithm>
#include <cmath>

#include "examples.hpp"

namespace tessel::examples {

// Random rows with outliers (every 300th value 100 times larger, as activations have), one group
// of zeros, poisoned outputs (NaN: every group holds a ±448, the saturated poison of other
// examples), and a reference that rounds each value to e4m3 on the host: the values and the scales
// must match exactly (1e-30 is the comparison's bound).
KernelEntry quantize_fp8_groups_example() {
  using S = quantized::QuantizeFp8Groups;
  KernelEntry e;
  e.name = "quantize_fp8_groups";
  e.description = "bf16 rows to e4m3 with a scale per 128 columns (DeepSeek-V3's), the scales M-major";
  e.size_names = {"m", "k"};
  e.default_sizes = {37, 640};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), k = int(s[1]), groups = k / 128;
    auto x = random_vector<bf16>(size_t(m) * k, 8, -3.0f, 3.0f);
    for (size_t i = 0; i < x.size(); i += 300) x[i] = bf16(float(x[i]) * 100.0f);
    if (m > 1 && groups > 1) std::fill_n(x.begin() + k + 128, 128, bf16(0.0f));
    Buffer<bf16> dx(dev, x);
    Buffer<f8e4m3> dq(dev, std::vector<f8e4m3>(x.size(), f8e4m3(NAN)));
    Buffer<float> dscales(dev, poisoned<float>(size_t(groups) * m));
    Kernel<S> kernel(dev, opt);
    kernel(m, k, dx, dq, dscales);
    dev.synchronize();
    std::vector<float> want_scales(size_t(groups) * m), want_q(x.size());
    for (int r = 0; r < m; ++r)
      for (int g = 0; g < groups; ++g) {
        const bf16* group = &x[size_t(r) * k + size_t(g) * 128];
        float amax = 0;
        for (int c = 0; c < 128; ++c) amax = std::max(amax, std::fabs(float(group[c])));
        const float scale = std::max(amax, 1e-4f) * (1.0f / 448.0f);
        want_scales[size_t(g) * m + r] = scale;
        for (int c = 0; c < 128; ++c)
          want_q[size_t(r) * k + size_t(g) * 128 + c] = float(f8e4m3(float(group[c]) * (1.0f / scale)));
      }
    const std::string label = fmt::format("quantize_fp8_groups {}x{}", m, k);
    RunResult r = compare(dscales.download(), want_scales, 1e-30, 0, label + " scales");
    if (r.ok) r = compare(dq.download(), want_q, 1e-30, 0, label);
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    bf16* x = nullptr;
    f8e4m3* q = nullptr;
    float* scales = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), x, q, scales);
  });
  return e;
}

}  // namespace tessel::examples
