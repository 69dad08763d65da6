// Bit operations and index tiles on the simulator (integer_tiles_kernels.hpp), and their misuse.
#include "expect_error.hpp"
#include "integer_tiles_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(IntegerTiles, BitOperatorsOnTheSimulator) { check_bit_operators(Device::simulator()); }
TEST(IntegerTiles, Int4DequantizationOnTheSimulator) { check_int4_dequantize(Device::simulator()); }
TEST(IntegerTiles, ByteDequantizationOnTheSimulator) { check_byte_dequantize_forms(Device::simulator()); }
TEST(IntegerTiles, BytesConvertToHalfFourAtATime) {
  int8_t* i = nullptr;
  uint8_t* u = nullptr;
  f16* h = nullptr;
  bf16* b = nullptr;
  const auto source = [](auto kernel, auto bytes, auto half) { return kernel.cuda_source(bytes, half, half); };
  const Device sim = Device::simulator();
  EXPECT_NE(source(Kernel<ByteDequantize<int8_t>>(sim), i, h).find("tessel_dequantize8_f16<true>("), std::string::npos);
  EXPECT_NE(source(Kernel<ByteDequantize<uint8_t>>(sim), u, h).find("tessel_dequantize8_f16<false>("),
            std::string::npos);
  EXPECT_NE(source(Kernel<ByteDequantize<int8_t, bf16>>(sim), i, b).find("tessel_dequantize8_bf16<true>("),
            std::string::npos);
  EXPECT_NE(source(Kernel<ByteDequantize<uint8_t, bf16>>(sim), u, b).find("tessel_dequantize8_bf16<false>("),
            std::string::npos);
}
TEST(IntegerTiles, BytesOfWordsConvertFromTheWords) {
  uint32_t* w = nullptr;
  f16* h = nullptr;
  bf16* b = nullptr;
  const std::string source = Kernel<ByteWordsDequantize<int8_t>>(Device::simulator()).cuda_source(w, h, h);
  EXPECT_NE(source.find("tessel_dequantize8_word_f16<true>(unsigned("), std::string::npos) << source;
  EXPECT_EQ(source.find("tessel_dequantize8_f16<"), std::string::npos) << source;
  const std::string of_bf16 = Kernel<ByteWordsDequantize<uint8_t, bf16>>(Device::simulator()).cuda_source(w, b, b);
  EXPECT_NE(of_bf16.find("tessel_dequantize8_word_bf16<false>(unsigned("), std::string::npos) << of_bf16;
}
TEST(IntegerTiles, AndOrOnTheSimulator) { check_and_or(Device::simulator()); }
TEST(IntegerTiles, AndOrAndAndXorOfValuesAreOneLop3Each) {
  uint32_t* u = nullptr;
  int32_t* i = nullptr;
  const std::string source = Kernel<AndOr>(Device::simulator()).cuda_source(u, i, 0u, u, i, u);
  size_t fused = 0;
  for (size_t at = source.find("one lop3"); at != std::string::npos; at = source.find("one lop3", at + 1)) ++fused;
  EXPECT_EQ(fused, 5u) << source;
}
TEST(IntegerTiles, CausalMaskFromIndexTilesOnTheSimulator) { check_causal_mask(Device::simulator()); }

struct ShiftOfFloats : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), t << 1, {0});
  }
};

TEST(IntegerTiles, BitOperationsOnFloatTilesAreRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<ShiftOfFloats>(x),
            source_at("tests/integer_tiles_test.cpp", "t << 1") +
                ": shl: bit operations need integer tiles, got f32; reinterpret a float's bits with .bitcast<T>() "
                "to an integer type of its width");
}

struct IndexAlongAMissingDimension : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(x, {8, 8}), arange({8, 8}, 2), {0, 0});
  }
};

TEST(IntegerTiles, AnIndexTileAlongADimensionTheTileLacksIsRefused) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>(64, 0));
  EXPECT_EQ(error_of<IndexAlongAMissingDimension>(x),
            source_at("tests/integer_tiles_test.cpp", "arange({8, 8}, 2)") +
                ": arange: dimension 2 of a tile of rank 2 (shape [8, 8]); the dimensions are 0 to 1");
}

TEST(IntegerTiles, ConditionsCombineWithAndOrNot) { check_band_or_zeros(Device::simulator()); }

struct AndOfIntegers : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), where(t && t, t, 0), {0});
  }
};

TEST(IntegerTiles, AndOfNonBoolTilesIsRefused) {
  Buffer<int32_t> x(Device::simulator(), std::vector<int32_t>(32, 3));
  EXPECT_EQ(error_of<AndOfIntegers>(x),
            source_at("tests/integer_tiles_test.cpp", "where(t && t, t, 0)") +
                ": and: && and || combine bool tiles (comparisons), got i32; compare first, as in (t > 0) && (t < 1)");
}

struct ShiftByAConstant : Script {
  void operator()(Ptr<uint32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), t << 32, {0});
  }
};

// The amounts come from memory, so only the run can tell; the first is 33.
struct ShiftByAmountsInMemory : Script {
  void operator()(Ptr<uint32_t> x, Ptr<uint32_t> amounts) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    auto a = load_global(global_view(amounts, {32}), {0}, {32});
    store_global(global_view(x, {32}), t >> a, {0});
  }
};

TEST(IntegerTiles, ShiftAmountsOutsideTheWidthAreRefused) {
  Buffer<uint32_t> x(Device::simulator(), std::vector<uint32_t>(32, 0xf0f0f0f0u));
  EXPECT_EQ(error_of<ShiftByAConstant>(x), source_at("tests/integer_tiles_test.cpp", "t << 32") +
                                               ": shl: a shift amount must lie in [0, 32) for u32 tiles, got 32");
  std::vector<uint32_t> amounts(32);
  for (uint32_t i = 0; i < 32; ++i) amounts[i] = i;
  Buffer<uint32_t> fine(Device::simulator(), amounts);
  EXPECT_EQ(error_of<ShiftByAmountsInMemory>(x, fine), "no error");
  EXPECT_EQ(x.download()[5], 0xf0f0f0f0u >> 5);
  amounts[0] = 33;
  Buffer<uint32_t> wrong(Device::simulator(), amounts);
  EXPECT_EQ(error_of<ShiftByAmountsInMemory>(x, wrong),
            source_at("tests/integer_tiles_test.cpp", "t >> a") +
                ": shr of u32 by 33: a shift amount must lie in [0, 32) in thread 0 of block (0, 0, 0)");
}

}  // namespace
}  // namespace tessel::testing
