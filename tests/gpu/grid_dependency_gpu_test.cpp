// Programmatic dependent launch on the GPU (sm_90a): kernels launched as dependents of the kernel
// before them read what it wrote after their wait, exactly, back to back without the host waiting;
// and a chain of weight-only GEMM layers, each X the layer before's output, the same with the
// weights loaded before the wait as without. Skipped, visibly, without a GPU.
#include "../grid_dependency_kernels.hpp"
#include "gpu_test.hpp"
#include "quantized/weight_only_gemm_check.hpp"
#include "quantized/weight_only_gemm_wgmma.hpp"

namespace tessel::testing {
namespace {

using GridDependencyOnGpu = GpuTest;

TEST_F(GridDependencyOnGpu, DependentsReadWhatTheKernelBeforeWrote) {
  for (int n : {4 * kDependentBlock, 1 << 22}) check_dependent_launches(Device::gpu(), n, {});
}

// The decode form: 16 rows, split 2 over two warpgroups of two row blocks, the products scaled.
template <int Early> struct DecodeLayer : examples::quantized::WeightOnlyGemmWgmma<i4> {
  DecodeLayer() {
    block_m = 16;
    split_k = 2;
    row_blocks = 2;
    promote = 1;
    early_weights = Early;
  }
  static Space space() { return Space{}; }
};

// Four layers of 4096 x 4096 i4 weights (the same values, in buffers of their own), each layer's X the output of the
// one before, launched back to back: the outputs of every layer are the same bits with early weights as without.
TEST_F(GridDependencyOnGpu, ALayerChainWithEarlyWeightsComputesTheSameBits) {
  const Device gpu = Device::gpu();
  const int m = 16, n = 4096, layers = 4;
  // Each layer's weights of its own, each read from DRAM.
  examples::quantized::QuantizedWeights q = examples::quantized::random_quantized_weights(DType::I4, n, n);
  for (f16& s : q.scales) s = f16(float(s) / 16);  // each layer's outputs about as large as its inputs
  std::vector<examples::quantized::RepackedWeights<f16>> weights;
  for (int l = 0; l < layers; ++l) weights.push_back(examples::quantized::repack_on_device<i4>(gpu, q, n, n, {}));
  const auto chain = [&](auto& kernel) {
    std::vector<Buffer<f16>> out;
    out.emplace_back(gpu, cli::random_vector<f16>(size_t(m) * n, 5));
    for (int l = 0; l < layers; ++l) out.emplace_back(gpu, cli::poisoned<f16>(size_t(m) * n));
    for (int l = 0; l < layers; ++l) kernel(m, n, n, out[l], weights[l].units, weights[l].unit_scales, out[l + 1]);
    std::vector<std::vector<f16>> got;
    for (int l = 1; l <= layers; ++l) got.push_back(out[l].download());
    return got;
  };
  Kernel<DecodeLayer<0>> plain(gpu);
  Kernel<DecodeLayer<1>> early(gpu);
  const auto expected = chain(plain), got = chain(early);
  for (int l = 0; l < layers; ++l)
    for (size_t i = 0; i < expected[l].size(); ++i) {
      ASSERT_TRUE(std::isfinite(float(expected[l][i]))) << "layer " << l << " element " << i;
      ASSERT_EQ(got[l][i].bits, expected[l][i].bits) << "layer " << l << " element " << i;
    }
}

}  // namespace
}  // namespace tessel::testing
