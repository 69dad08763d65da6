// The narrow element types: the host's fp8 encoding against the OCP specification's values, the
// kernels of element_types_kernels.hpp on the simulator, and misuse.
#include "element_types_kernels.hpp"
#include "expect_error.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Fp8Encoding, MatchesTheSpecificationsValues) {
  // OCP 8-bit floating point specification, tables of E4M3 and E5M2.
  EXPECT_EQ(f8e4m3(1.0f).bits, 0x38);
  EXPECT_EQ(f8e4m3(448.0f).bits, 0x7e);
  EXPECT_EQ(f8e4m3(std::ldexp(1.0f, -6)).bits, 0x08);  // smallest normal
  EXPECT_EQ(f8e4m3(std::ldexp(1.0f, -9)).bits, 0x01);  // smallest subnormal
  EXPECT_EQ(float(f8e4m3::from_bits(0x7e)), 448.0f);
  EXPECT_TRUE(std::isnan(float(f8e4m3::from_bits(0x7f))));
  EXPECT_EQ(f8e5m2(1.0f).bits, 0x3c);
  EXPECT_EQ(f8e5m2(57344.0f).bits, 0x7b);
  EXPECT_EQ(f8e5m2(std::ldexp(1.0f, -16)).bits, 0x01);
  EXPECT_EQ(float(f8e5m2::from_bits(0x7c)), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(float(f8e5m2::from_bits(0x7d))));
}

TEST(Fp8Encoding, RoundsToNearestEvenAndSaturatesToTheLargestFiniteValue) {
  EXPECT_EQ(f8e4m3(1.0625f).bits, 0x38);  // halfway between 1 and 1.125: the even one
  EXPECT_EQ(f8e4m3(1.1875f).bits, 0x3a);  // halfway between 1.125 and 1.25: the even one
  EXPECT_EQ(f8e4m3(1.07f).bits, 0x39);    // nearer 1.125
  EXPECT_EQ(f8e4m3(464.0f).bits, 0x7e);   // beyond 448 saturates
  EXPECT_EQ(f8e4m3(-1e9f).bits, 0xfe);
  EXPECT_EQ(f8e4m3(std::numeric_limits<float>::infinity()).bits, 0x7e);
  EXPECT_EQ(f8e5m2(-std::numeric_limits<float>::infinity()).bits, 0xfb);
  EXPECT_EQ(f8e5m2(61440.0f).bits, 0x7b);
  EXPECT_EQ(f8e4m3(std::ldexp(1.0f, -10)).bits, 0x00);  // half the smallest subnormal: ties to even zero
  EXPECT_EQ(f8e4m3(std::ldexp(3.0f, -11)).bits, 0x01);  // three quarters of it: rounds up
  EXPECT_EQ(f8e4m3(-0.0f).bits, 0x80);
  EXPECT_EQ(f8e4m3(std::numeric_limits<float>::quiet_NaN()).bits, 0x7f);
  EXPECT_EQ(f8e5m2(-std::numeric_limits<float>::quiet_NaN()).bits, 0x7f);  // without its sign, as an H200 gives it
}

TEST(Fp8Encoding, EveryValueOfBothFormatsRoundTrips) {
  for (int b = 0; b < 256; ++b) {
    const float v4 = float(f8e4m3::from_bits(uint8_t(b)));
    if (!std::isnan(v4)) EXPECT_EQ(f8e4m3(v4).bits, b) << b;
    const float v5 = float(f8e5m2::from_bits(uint8_t(b)));
    if (!std::isnan(v5) && !std::isinf(v5)) EXPECT_EQ(f8e5m2(v5).bits, b) << b;
  }
}

TEST(ElementTypes, Fp8ConversionsOnTheSimulator) { check_fp8_conversions(Device::simulator()); }

TEST(Tf32Encoding, RoundsToNearestTiesAwayAndReadsF32DataTowardZero) {
  const auto at = [](uint32_t bits) { return std::bit_cast<float>(bits); };
  EXPECT_EQ(tf32(1.0f).bits, 0x3f800000u);
  EXPECT_EQ(tf32(at(0x3f801000u)).bits, 0x3f802000u);  // a tie above an even last place: away from zero
  EXPECT_EQ(tf32(at(0x3f803000u)).bits, 0x3f804000u);  // a tie above an odd one: away too
  EXPECT_EQ(tf32(at(0xbf801000u)).bits, 0xbf802000u);
  EXPECT_EQ(tf32(at(0x3f800fffu)).bits, 0x3f800000u);    // below the tie
  EXPECT_EQ(tf32(at(0x7f7fffffu)).bits, 0x7f800000u);    // the largest finite f32 rounds to infinity
  EXPECT_EQ(tf32(at(0x7fc01fffu)).bits, 0x7fc00000u);    // a NaN loses its low bits,
  EXPECT_EQ(tf32(at(0x7f800001u)).bits, 0x7f800000u);    // all of its payload if it lies there (an H200's cvt)
  EXPECT_EQ(float(tf32::from_bits(0x3f801fffu)), 1.0f);  // f32 data read as tf32: toward zero
}

TEST(ElementTypes, Tf32ConversionsOnTheSimulator) { check_tf32_conversions(Device::simulator()); }

TEST(ElementTypes, NarrowIntegersAndBitcastsOnTheSimulator) { check_narrow_integers_and_bitcasts(Device::simulator()); }

TEST(ElementTypes, FloatsToIntegersSaturateAsPtxCvtOnTheSimulator) { check_floats_to_integers(Device::simulator()); }
TEST(ElementTypes, SaturatingConversionsRoundToEvenAndClamp) { check_saturating_conversions(Device::simulator()); }

struct SaturatingToAFloat : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});  // to be saturated
    t.to<f16>(saturate);
  }
};

TEST(ElementTypes, SaturationIsForIntegerTargets) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.5f));
  EXPECT_EQ(error_of<SaturatingToAFloat>(x),
            source_at("tests/element_types_test.cpp", "t.to<f16>(saturate)") +
                ": to<f16>(saturate) of the tile reg<f32>[32] (created at " +
                source_at("tests/element_types_test.cpp", "// to be saturated") +
                "): saturation clamps to the range of an integer type of at most 32 bits (i1 to i7 and u1 to u7 "
                "packed, i8, u8, i16, u16, i32, u32); f16 is not one");
}

struct BitcastToBool : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});  // to be bitcast
    store_global(global_view(x, {32}), t.bitcast<bool>().to<float>(), {0});
  }
};

TEST(ElementTypes, ABitcastToBoolIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<BitcastToBool>(x),
            source_at("tests/element_types_test.cpp", "t.bitcast<bool>()") +
                ": bitcast<bool>() of the tile reg<f32>[32] (created at " +
                source_at("tests/element_types_test.cpp", "// to be bitcast") +
                "): f32 is 32 bits wide and bool is a predicate; a bitcast keeps the bits of each element, and bool "
                "has none");
}

struct Tf32Arithmetic : Script {
  void operator()(Ptr<tf32> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});  // of tf32
    store_global(global_view(x, {32}), t + t, {0});
  }
};

TEST(ElementTypes, ArithmeticOnTf32TilesNamesTheConversion) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<Tf32Arithmetic>(x),
            source_at("tests/element_types_test.cpp", "t + t, {0});") +
                ": an elementwise operation does not take tf32 elements (the register tile created at " +
                source_at("tests/element_types_test.cpp", "// of tf32") +
                "); tf32 tiles are loaded, stored, copied, sliced, reshaped, bitcast, converted and multiplied by "
                "the tensor cores: convert it with .to<float>() first");
}

// Slices and regroupings move tf32 elements as they are, each its whole word.
struct Tf32Regrouped : Script {
  void operator()(Ptr<tf32> x, Ptr<tf32> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {256}), {0}, {256}, Layout::spatial({32}) * Layout::local({8}));
    store_global(global_view(y, {32, 4}), reshape(t, {32, 8}).slice({0, 2}, {32, 4}), {0, 0});
  }
};

TEST(ElementTypes, Tf32TilesAreSlicedAndReshapedWithTheirWords) {
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::bit_cast<float>(0x3f800000u + uint32_t(i * 977));
  Buffer<float> dx(Device::simulator(), x), y(Device::simulator(), std::vector<float>(128, -1.0f));
  Kernel<Tf32Regrouped> k(Device::simulator());
  k(dx, y);
  const std::vector<float> got = y.download();
  for (size_t r = 0; r < 32; ++r)
    for (size_t c = 0; c < 4; ++c)
      EXPECT_EQ(std::bit_cast<uint32_t>(got[r * 4 + c]), std::bit_cast<uint32_t>(x[r * 8 + 2 + c])) << r << ", " << c;
}

// The GPU's cvt (measured on an H200 by the GPU test of the same kernel): a NaN converted between
// f32, f16 and bf16 becomes the target's canonical NaN, except bf16 to f32, a shift that keeps every
// bit; the other values convert as the host's types do.
TEST(ElementTypes, FloatConversionsGiveTheGpusBitsNaNsIncluded) {
  const FloatConversionResults r = float_conversion_bits(Device::simulator());
  const int nans = 8;
  for (size_t i = 0; i < r.halves.size(); ++i) {
    const bool nan = int(i) < nans;
    const float h = float(f16::from_bits(r.halves[i])), f = std::bit_cast<float>(r.singles[i]);
    EXPECT_EQ(r.half_to_single[i], nan ? 0x7fffffffu : std::bit_cast<uint32_t>(h)) << i;
    EXPECT_EQ(r.single_to_half[i], nan ? 0x7fff : f16(f).bits) << i;
    EXPECT_EQ(r.single_to_brain[i], nan ? 0x7fff : bf16(f).bits) << i;
    EXPECT_EQ(r.half_to_brain[i], nan ? 0x7fff : bf16(h).bits) << i;
    EXPECT_EQ(r.brain_to_single[i], uint32_t(r.brains[i]) << 16) << i;
  }
}

// An fp8 NaN widens to the canonical NaN of f32, f16 and bf16, without its sign or payload (the GPU
// widens fp8 through f16, and the GPU test of the same kernel compares the bits); every other code
// to its exact value.
template <class FP8> void expect_fp8_widening(const std::string& arch) {
  const Fp8WideningBits r = fp8_widening_bits<FP8>(Device::simulator(), arch);
  for (int code = 0; code < 256; ++code) {
    const float v = float(FP8::from_bits(uint8_t(code)));
    const size_t i = size_t(code);
    EXPECT_EQ(r.singles[i], std::isnan(v) ? 0x7fffffffu : std::bit_cast<uint32_t>(v)) << arch << " code " << code;
    EXPECT_EQ(r.halves[i], std::isnan(v) ? 0x7fff : f16(v).bits) << arch << " code " << code;
    EXPECT_EQ(r.brains[i], std::isnan(v) ? 0x7fff : bf16(v).bits) << arch << " code " << code;
  }
}

TEST(ElementTypes, Fp8NaNsWidenToTheCanonicalNaN) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    expect_fp8_widening<f8e4m3>(arch);
    expect_fp8_widening<f8e5m2>(arch);
  }
}

// The host's f16 and bf16 give a NaN the bits the kernel's conversion gives it, so that a host
// reference matches NaNs bit for bit; infinities keep their sign.
TEST(ElementTypes, TheHostTypesGiveANaNTheCanonicalBits) {
  const float inf = std::numeric_limits<float>::infinity();
  for (const uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffc12345u}) {
    const float v = std::bit_cast<float>(nan);
    EXPECT_EQ(f16(v).bits, 0x7fff) << std::hex << nan;
    EXPECT_EQ(bf16(v).bits, 0x7fff) << std::hex << nan;
    EXPECT_EQ(float_to_bits(DType::F16, v), 0x7fffu) << std::hex << nan;
  }
  EXPECT_EQ(f16(inf).bits, 0x7c00);
  EXPECT_EQ(f16(-inf).bits, 0xfc00);
  EXPECT_EQ(bf16(-inf).bits, 0xff80);
}

}  // namespace
}  // namespace tessel::testing
