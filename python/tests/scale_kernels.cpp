// A kernel of e8m0 scales for the Python tests of float8_e8m0fnu tensors:
// `tessel.load(...).widen_scales(n, scales, out)` writes each scale as an f32.
#include "tessel/cli/main.hpp"
#include "tessel/tessel.hpp"

using namespace tessel;

struct WidenScales : Script {
  static constexpr const char* param_names[] = {"n", "scales", "out"};
  void operator()(Int32 n, Ptr<e8m0> scales, Ptr<float> out) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    auto s = load_global(global_view(scales, {n}), {blockIdx.x * 128}, {128});
    store_global(global_view(out, {n}), s.to<float>(), {blockIdx.x * 128});
  }
};

TESSEL_KERNELS(kernels) {
  kernels.add<WidenScales>({"widen_scales", "e8m0 scales widened to f32", {"n"}, {1024}}, [](const cli::Sizes& s) {
    e8m0* scales = nullptr;
    float* out = nullptr;
    return std::make_tuple(int(s[0]), scales, out);
  });
}
