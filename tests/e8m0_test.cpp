// e8m0 on the host and the simulator: the host type's roundings at their edges, conversions and an
// MXFP8 quantizer against host references, and the misuse refused at the user's line.
#include "e8m0_kernels.hpp"
#include "expect_error.hpp"
#include "tessel/ir/evaluate.hpp"

namespace tessel::testing {
namespace {

uint8_t down(float v) { return e8m0::round_down(v).bits; }
uint8_t up(float v) { return e8m0::round_up(v).bits; }
float bits(uint32_t b) { return std::bit_cast<float>(b); }

TEST(E8m0, HostRoundingsAtTheirEdges) {
  EXPECT_EQ(down(1.0f), 127);
  EXPECT_EQ(up(1.0f), 127);
  EXPECT_EQ(down(1.5f), 127);
  EXPECT_EQ(up(1.5f), 128);
  EXPECT_EQ(down(-3.0f), 128);  // the magnitude's: the sign is dropped
  EXPECT_EQ(up(-3.0f), 129);
  EXPECT_EQ(down(0.0f), 0);  // no zero: 2^-127, the least
  EXPECT_EQ(up(0.0f), 0);
  EXPECT_EQ(up(bits(0x00400000u)), 0);  // 2^-127 itself
  EXPECT_EQ(up(bits(0x00400001u)), 1);  // above it: 2^-126
  EXPECT_EQ(down(bits(0x00400001u)), 0);
  EXPECT_EQ(up(bits(0x00000001u)), 0);  // below 2^-127: the least
  EXPECT_EQ(up(bits(0x003fffffu)), 0);
  EXPECT_EQ(up(bits(0x007fffffu)), 1);  // the largest subnormal: 2^-126
  EXPECT_EQ(down(bits(0x007fffffu)), 0);
  EXPECT_EQ(down(bits(0x00800000u)), 1);
  EXPECT_EQ(down(0x1p127f), 254);         // the largest
  EXPECT_EQ(up(bits(0x7f000001u)), 254);  // beyond it: saturated
  EXPECT_EQ(up(bits(0x7f7fffffu)), 254);  // f32's largest
  EXPECT_EQ(down(INFINITY), 254);         // satfinite
  EXPECT_EQ(up(-INFINITY), 254);
  EXPECT_EQ(down(NAN), 255);
  EXPECT_EQ(up(-NAN), 255);
  EXPECT_EQ(std::bit_cast<uint32_t>(float(e8m0::from_bits(0))), 0x00400000u);  // 2^-127, an f32 subnormal
  EXPECT_EQ(float(e8m0::from_bits(127)), 1.0f);
  EXPECT_EQ(float(e8m0::from_bits(254)), 0x1p127f);
  EXPECT_EQ(std::bit_cast<uint32_t>(float(e8m0::from_bits(255))), 0x7fffffffu);
}

TEST(E8m0, ConversionsMatchTheHost) {
  const std::vector<float> x = e8m0_inputs(512);
  const std::vector<double> d = e8m0_double_inputs(512);
  check_e8m0_conversions(x, d, run_e8m0_conversions(Device::simulator(), x, d));
}

TEST(E8m0, HostRoundingsMatchTheirDefinition) {
  for (float v : e8m0_inputs(4096)) {
    EXPECT_EQ(down(v), e8m0_reference(v, false)) << std::hex << std::bit_cast<uint32_t>(v);
    EXPECT_EQ(up(v), e8m0_reference(v, true)) << std::hex << std::bit_cast<uint32_t>(v);
  }
}

// A 64-bit integer rounds once, to f32, before it becomes a scale, as (float)x does on the GPU.
TEST(E8m0, WideIntegersRoundOnceToF32) {
  const int64_t i = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  EXPECT_EQ(ir::convert(DType::I64, DType::F32, ir::Scalar{.i = i}).f, double(float(i)));
  EXPECT_EQ(float(i), 0x1p60f + 0x1p37f);
  EXPECT_EQ(ir::bits_of(DType::E8M0, ir::convert_to_e8m0(DType::I64, ir::Scalar{.i = i}, true)), 127u + 61u);
}

TEST(E8m0, MxQuantizationMatchesTheHost) { check_mx_quantize(Device::simulator(), 16); }

int line = 0;

struct E8m0WithoutRounding : Script {
  void operator()(Ptr<float> x, Ptr<e8m0> s) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    line = __LINE__ + 1;
    store_global(global_view(s, {32}), t.to<e8m0>(), {0});
  }
};

struct RoundingOfF16 : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    line = __LINE__ + 1;
    auto h = t.to<f16>(Rounding::up);
  }
};

struct ProductOfScales : Script {
  void operator()(Ptr<e8m0> s) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g = global_view(s, {32});
    auto t = load_global(g, {0}, {32});
    line = __LINE__ + 1;
    store_global(g, t * t, {0});
  }
};

struct FillOfScales : Script {
  void operator()(Ptr<e8m0> s, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto t = load_global(global_view(s, {30}), {0}, {32}, {}, 3.0);
    store_global(global_view(out, {32}), t.to<float>(), {0});
  }
};

std::string at_line() { return std::string(__FILE__) + ":" + std::to_string(line) + ": "; }

TEST(E8m0, AConversionWithoutARoundingIsRefused) {
  const std::string got = error_of<E8m0WithoutRounding>((float*)nullptr, (e8m0*)nullptr);
  EXPECT_EQ(got, at_line() + "to<e8m0>() of the tile reg<f32>[32] (created at " + std::string(__FILE__) + ":" +
                     std::to_string(line - 2) +
                     "): an e8m0 scale is a power of two, so state how the magnitude rounds to one: "
                     "to<e8m0>(Rounding::up), the least power of two not below it (a scale under which the scaled "
                     "values stay in range), or to<e8m0>(Rounding::down), the greatest not above it");
}

TEST(E8m0, ARoundingForAnotherTypeIsRefused) {
  const std::string got = error_of<RoundingOfF16>((float*)nullptr);
  EXPECT_NE(got.find(at_line() + "to<f16>(Rounding::up) of "), std::string::npos) << got;
  EXPECT_NE(got.find(": a rounding is stated for conversions to e8m0, whose scales are powers of two; to<f16>() "
                     "rounds as docs/language.md's \"Conversions\" states"),
            std::string::npos)
      << got;
}

TEST(E8m0, ArithmeticOnScalesIsRefused) {
  const std::string got = error_of<ProductOfScales>((e8m0*)nullptr);
  EXPECT_NE(got.find(at_line()), std::string::npos) << got;
  EXPECT_NE(got.find("does not take e8m0 elements"), std::string::npos) << got;
  EXPECT_NE(
      got.find("; e8m0 tiles are scales, which are loaded, stored, copied, shuffled, sliced, reshaped, bitcast and "
               "converted: "
               "convert it with .to<float>() first (exact: every e8m0 value is a power of two that f32 holds)"),
      std::string::npos)
      << got;
}

TEST(E8m0, AFillThatIsNoPowerOfTwoIsRefused) {
  const std::string got = error_of<FillOfScales>((e8m0*)nullptr, (float*)nullptr);
  EXPECT_EQ(got, at_line() + "load_global: the fill 3 is no e8m0 and would become 4; give a fill that e8m0 holds");
}

struct ScaleTileFromAValue : Script {
  void operator()(Float32 v, Ptr<e8m0> s) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto t = register_tensor<e8m0>({32}, v);
    store_global(global_view(s, {32}), t, {0});
  }
};

TEST(E8m0, AScaleTileFromAKernelValueIsRefused) {
  const std::string got = error_of<ScaleTileFromAValue>(2.0f, (e8m0*)nullptr);
  EXPECT_EQ(got, at_line() +
                     "register_tensor<e8m0>: the initial value is an f32 kernel value, and a conversion to e8m0 states "
                     "its rounding; create the tile as f32 and convert it with .to<e8m0>(Rounding::up) or "
                     ".to<e8m0>(Rounding::down)");
}

// Outside the view a masked load fills with 1 (e8m0 has no zero).
struct MaskedScales : Script {
  void operator()(Ptr<e8m0> s, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(s, {30}), {0}, {32});
    store_global(global_view(out, {32}), t.to<float>(), {0});
  }
};

TEST(E8m0, AMaskedLoadFillsWithOne) {
  std::vector<e8m0> s(30);
  for (size_t i = 0; i < s.size(); ++i) s[i] = e8m0::from_bits(uint8_t(100 + i));
  Buffer<e8m0> ds(Device::simulator(), s);
  Buffer<float> out(Device::simulator(), std::vector<float>(32, -1.0f));
  Kernel<MaskedScales> k(Device::simulator());
  k(ds, out);
  const std::vector<float> got = out.download();
  for (size_t i = 0; i < 30; ++i) EXPECT_EQ(got[i], float(s[i]));
  EXPECT_EQ(got[30], 1.0f);
  EXPECT_EQ(got[31], 1.0f);
}

}  // namespace
}  // namespace tessel::testing
