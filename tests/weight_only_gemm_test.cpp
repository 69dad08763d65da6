// The weight-only GEMM (examples/quantized/weight_only_gemm.hpp) and its weights' repacking for
// weights of every width on the simulator: the packed integers and floats of 1 to 7 bits and the
// 8-bit types, at sizes that are not multiples of the tiles.
#include <tuple>

#include "any_width_kernels.hpp"
#include "quantized/weight_only_gemm_check.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

template <class W, class S = examples::quantized::WeightOnlyGemm<W>, class Act = f16>
void expect_weight_only_gemm(int m, int n, int k, const KernelOptions& options = {}) {
  const std::string label = fmt::format("weight_only_gemm<{}, {}>", dtype_name(dtype_v<W>), dtype_name(dtype_v<Act>));
  const cli::RunResult r =
      examples::quantized::run_weight_only_gemm<W, S, Act>(Device::simulator(), m, n, k, options, label);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(WeightOnlyGemm, EveryWidth) {
  for_each_any_width_type([](auto type) { expect_weight_only_gemm<decltype(type)>(17, 72, 256); });
  expect_weight_only_gemm<i4>(17, 72, 256);
  expect_weight_only_gemm<u4>(17, 72, 256);
  expect_weight_only_gemm<int8_t>(17, 72, 256);
  expect_weight_only_gemm<uint8_t>(17, 72, 256);
  expect_weight_only_gemm<f8e4m3>(17, 72, 256);
  expect_weight_only_gemm<f8e5m2>(17, 72, 256);
}

template <class W> void expect_repacked(int n, int k) {
  const std::string label = fmt::format("weight_only_repack<{}>", dtype_name(dtype_v<W>));
  const cli::RunResult r = examples::quantized::run_repack_weights<W>(Device::simulator(), n, k, {}, label);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(WeightOnlyGemm, RepackedInTheFragmentsOrder) {
  for_each_any_width_type([](auto type) { expect_repacked<decltype(type)>(40, 256); });
  expect_repacked<i4>(72, 384);
  expect_repacked<int8_t>(40, 128);
  expect_repacked<f8e4m3>(40, 128);
}

TEST(WeightOnlyGemm, SizesMustFillUnits) {
  try {
    examples::quantized::run_weight_only_gemm<i3>(Device::simulator(), 4, 64, 200, {}, "weight_only_gemm<i3>");
    FAIL() << "k = 200 ran";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "weight_only_gemm<i3>: n = 64, k = 200: the repacked weights come in units of 8 rows of W by 128 of "
                 "k, so n must be a multiple of 8 and k of 128");
  }
}

// Split-K at decode sizes: k = 384 is 3 k-tiles of 128, so 4 splits take 1, 1, 1 and none.
template <class W, int SplitK, class Act = f16> struct WeightOnlySplitK : examples::quantized::WeightOnlyGemm<W, Act> {
  WeightOnlySplitK() {
    this->block_m = 16;
    this->units_per_warp = 1;
    this->split_k = SplitK;
  }
  static Space space() { return Space{}; }
};

// The prefill tile: two warps along m share each B fragment, and each warp's 4 units are renamed
// into the fragments' order.
template <class W> struct WeightOnlyPrefill : examples::quantized::WeightOnlyGemm<W> {
  WeightOnlyPrefill() {
    this->block_m = 128;
    this->warps_m = 2;
    this->warps_n = 4;
    this->units_per_warp = 4;
    this->stages = 3;
  }
  static Space space() { return Space{}; }
};

// k-tiles of two groups (the last one of k = 384 and 640 half past k) over four units per warp,
// split over two blocks.
template <class W> struct WeightOnlyDeepTiles : examples::quantized::WeightOnlyGemm<W> {
  WeightOnlyDeepTiles() {
    this->units_per_warp = 4;
    this->groups_per_tile = 2;
    this->stages = 3;
    this->split_k = 2;
  }
  static Space space() { return Space{}; }
};

TEST(WeightOnlyGemm, DeepTilesUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options())
    for (const auto& [m, n, k] : {std::tuple{5, 136, 384}, std::tuple{17, 264, 640}}) {
      const cli::RunResult r = examples::quantized::run_weight_only_gemm<i4, WeightOnlyDeepTiles<i4>>(
          Device::simulator(), m, n, k, o, "weight_only_gemm<i4> 16 x 128 x 256");
      EXPECT_TRUE(r.ok) << r.summary;
    }
}

TEST(WeightOnlyGemm, PrefillTile) {
  for (const KernelOptions& o : every_order_options()) {
    const cli::RunResult r = examples::quantized::run_weight_only_gemm<i4, WeightOnlyPrefill<i4>>(
        Device::simulator(), 130, 136, 384, o, "weight_only_gemm<i4> 128 x 128");
    EXPECT_TRUE(r.ok) << r.summary;
  }
}

TEST(WeightOnlyGemm, SplitKUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    for (const auto& [m, n, k] : {std::tuple{5, 72, 384}, std::tuple{20, 40, 128}}) {
      const cli::RunResult r = examples::quantized::run_weight_only_gemm<i4, WeightOnlySplitK<i4, 4>>(
          Device::simulator(), m, n, k, o, "weight_only_gemm<i4> split 4");
      EXPECT_TRUE(r.ok) << r.summary;
    }
    const cli::RunResult r = examples::quantized::run_weight_only_gemm<i3, WeightOnlySplitK<i3, 2>>(
        Device::simulator(), 17, 72, 256, o, "weight_only_gemm<i3> split 2");
    EXPECT_TRUE(r.ok) << r.summary;
  }
}

// bf16 activations, scales and output: the fields under bf16's exponent (every integer width and a
// packed float), and 8-bit integers converted from their words; split-K under every order.
TEST(WeightOnlyGemm, Bf16ActivationsForEveryIntegerWidth) {
  const auto each = [](auto... types) {
    (expect_weight_only_gemm<decltype(types), examples::quantized::WeightOnlyGemm<decltype(types), bf16>, bf16>(17, 72,
                                                                                                                256),
     ...);
  };
  std::apply(each, std::tuple<i1, u1, i2, u2, i3, u3, i4, u4, i5, u5, i6, u6, i7, u7, int8_t, uint8_t, f6e3m2>{});
  for (const KernelOptions& o : every_order_options()) {
    expect_weight_only_gemm<i4, WeightOnlySplitK<i4, 2, bf16>, bf16>(5, 72, 384, o);
    expect_weight_only_gemm<int8_t, WeightOnlySplitK<int8_t, 4, bf16>, bf16>(20, 40, 384, o);
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
