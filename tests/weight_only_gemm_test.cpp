// The weight-only GEMM (examples/quantized/weight_only_gemm.hpp) for weights of every width on the
// simulator: the packed integers and floats of 1 to 7 bits and the 8-bit types, at sizes that are
// not multiples of the tiles.
#include "any_width_kernels.hpp"
#include "quantized/weight_only_gemm_check.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

template <class W> void expect_weight_only_gemm(int m, int n, int k, const KernelOptions& options = {}) {
  const std::string label = fmt::format("weight_only_gemm<{}>", dtype_name(dtype_v<W>));
  const cli::RunResult r = examples::quantized::run_weight_only_gemm<W>(Device::simulator(), m, n, k, options, label);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(WeightOnlyGemm, EveryWidth) {
  for_each_any_width_type([](auto type) { expect_weight_only_gemm<decltype(type)>(17, 72, 224); });
  expect_weight_only_gemm<i4>(17, 72, 224);
  expect_weight_only_gemm<u4>(17, 72, 224);
  expect_weight_only_gemm<int8_t>(17, 72, 224);
  expect_weight_only_gemm<uint8_t>(17, 72, 224);
  expect_weight_only_gemm<f8e4m3>(17, 72, 224);
  expect_weight_only_gemm<f8e5m2>(17, 72, 224);
}

TEST(WeightOnlyGemm, KMustBeAMultipleOf32) {
  try {
    examples::quantized::run_weight_only_gemm<i3>(Device::simulator(), 4, 64, 200, {}, "weight_only_gemm<i3>");
    FAIL() << "k = 200 ran";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "weight_only_gemm<i3>: k = 200 is not a multiple of 32; the kernel reads each row of weights as "
                 "whole 32-bit words");
  }
}

TEST(WeightOnlyGemm, EveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_weight_only_gemm<i3>(20, 136, 384, o);
    expect_weight_only_gemm<f4e2m1>(20, 136, 384, o);
  }
}

}  // namespace
}  // namespace tessel::testing
