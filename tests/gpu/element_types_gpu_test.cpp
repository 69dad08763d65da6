// The narrow element types, bit operations and index tiles on the GPU; skipped, visibly, without one.
#include "../element_types_kernels.hpp"
#include "../integer_tiles_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ElementTypesOnGpu = GpuTest;

TEST_F(ElementTypesOnGpu, Fp8ConversionsMatchTheHostBitForBit) { check_fp8_conversions(Device::gpu()); }
TEST_F(ElementTypesOnGpu, Tf32ConversionsMatchTheHostBitForBit) { check_tf32_conversions(Device::gpu()); }
TEST_F(ElementTypesOnGpu, NarrowIntegersAndBitcasts) { check_narrow_integers_and_bitcasts(Device::gpu()); }
TEST_F(ElementTypesOnGpu, FloatsToIntegersSaturateAsPtxCvt) { check_floats_to_integers(Device::gpu()); }
TEST_F(ElementTypesOnGpu, SaturatingConversions) { check_saturating_conversions(Device::gpu()); }
TEST_F(ElementTypesOnGpu, BitOperators) { check_bit_operators(Device::gpu()); }
TEST_F(ElementTypesOnGpu, AndOr) { check_and_or(Device::gpu()); }
TEST_F(ElementTypesOnGpu, Int4Dequantization) { check_int4_dequantize(Device::gpu()); }
TEST_F(ElementTypesOnGpu, ByteDequantization) { check_byte_dequantize_forms(Device::gpu()); }
TEST_F(ElementTypesOnGpu, CausalMaskFromIndexTiles) { check_causal_mask(Device::gpu()); }
TEST_F(ElementTypesOnGpu, ConditionsCombineWithAndOrNot) { check_band_or_zeros(Device::gpu()); }

TEST_F(ElementTypesOnGpu, FloatConversionsGiveTheSimulatorsBitsNaNsIncluded) {
  const FloatConversionResults gpu = float_conversion_bits(Device::gpu()),
                               sim = float_conversion_bits(Device::simulator());
  const auto hex = [](const auto& v) {
    std::string s;
    for (auto x : v) s += fmt::format("{:x} ", x);
    return s;
  };
  EXPECT_EQ(hex(gpu.half_to_single), hex(sim.half_to_single));
  EXPECT_EQ(hex(gpu.brain_to_single), hex(sim.brain_to_single));
  EXPECT_EQ(hex(gpu.single_to_half), hex(sim.single_to_half));
  EXPECT_EQ(hex(gpu.single_to_brain), hex(sim.single_to_brain));
  EXPECT_EQ(hex(gpu.half_to_brain), hex(sim.half_to_brain));
}

template <class FP8> void expect_fp8_widening_as_simulated(const std::string& arch) {
  const Fp8WideningBits gpu = fp8_widening_bits<FP8>(Device::gpu(), arch),
                        sim = fp8_widening_bits<FP8>(Device::simulator(), arch);
  EXPECT_EQ(gpu.singles, sim.singles) << arch;
  EXPECT_EQ(gpu.halves, sim.halves) << arch;
  EXPECT_EQ(gpu.brains, sim.brains) << arch;
}

// sm_90a's cvt, and sm_80's decoding in integer arithmetic, which a later GPU runs from its PTX.
TEST_F(ElementTypesOnGpu, Fp8WideningGivesTheSimulatorsBitsNaNsIncluded) {
  for (const char* arch : {"sm_90a", "sm_80"}) {
    expect_fp8_widening_as_simulated<f8e4m3>(arch);
    expect_fp8_widening_as_simulated<f8e5m2>(arch);
  }
}

// sm_80 has no cvt to fp8: its rounding and saturation in integer arithmetic, NaNs included.
TEST_F(ElementTypesOnGpu, Fp8ConversionsOfSm80CodeMatchTheHostBitForBit) {
  check_fp8_conversions(Device::gpu(), KernelOptions{"sm_80"});
}

}  // namespace
}  // namespace tessel::testing
