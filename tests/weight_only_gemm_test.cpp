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

// Split-K at decode sizes: k = 384 is 6 k-tiles of 64, so 4 splits take 2, 2, 2 and none.
template <class W, int SplitK> struct WeightOnlySplitK : examples::quantized::WeightOnlyGemm<W> {
  WeightOnlySplitK() {
    this->block_m = 16;
    this->block_n = 32;
    this->split_k = SplitK;
  }
  static Space space() { return Space{}; }
};

TEST(WeightOnlyGemm, SplitKUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    for (const auto& [m, n, k] : {std::tuple{5, 72, 384}, std::tuple{20, 40, 128}}) {
      const cli::RunResult r = examples::quantized::run_weight_only_gemm<i4, WeightOnlySplitK<i4, 4>>(
          Device::simulator(), m, n, k, o, "weight_only_gemm<i4> split 4");
      EXPECT_TRUE(r.ok) << r.summary;
    }
    const cli::RunResult r = examples::quantized::run_weight_only_gemm<i3, WeightOnlySplitK<i3, 2>>(
        Device::simulator(), 17, 72, 224, o, "weight_only_gemm<i3> split 2");
    EXPECT_TRUE(r.ok) << r.summary;
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
