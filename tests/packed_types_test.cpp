// Packed tiles on the simulator (packed_types_kernels.hpp for 4-bit integers, any_width_kernels.hpp
// for every other width) under every order, the targets they compile for, and their misuse.
#include "any_width_kernels.hpp"
#include "expect_error.hpp"
#include "packed_types_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(PackedTypes, LoadsStoresConversionsAndBitcasts) {
  for (const sim::Options& o : every_order()) {
    check_packed_tiles<i4>(Device::simulator(), o);
    check_packed_tiles<u4>(Device::simulator(), o);
  }
}

TEST(PackedTypes, AnElementsValueFromItsBits) {
  EXPECT_EQ(value_from_bits(dtype_v<i3>, 0b111), -1.0f);
  EXPECT_EQ(value_from_bits(dtype_v<i3>, 0b100), -4.0f);
  EXPECT_EQ(value_from_bits(dtype_v<i3>, 0b011), 3.0f);
  EXPECT_EQ(value_from_bits(dtype_v<u3>, 0b111), 7.0f);
  EXPECT_EQ(value_from_bits(dtype_v<int8_t>, 0x80), -128.0f);
  EXPECT_EQ(value_from_bits(dtype_v<uint16_t>, 0xffff), 65535.0f);
  EXPECT_EQ(value_from_bits(dtype_v<f4e2m1>, 0b0111), 6.0f);   // 2^(3 - 1) x 1.5
  EXPECT_EQ(value_from_bits(dtype_v<f4e2m1>, 0b1001), -0.5f);  // subnormal: 0.5 x 2^0
  EXPECT_EQ(value_from_bits(dtype_v<f16>, 0x3c00), 1.0f);
  EXPECT_THROW(value_from_bits(dtype_v<int32_t>, 1), std::exception);
}

TEST(PackedTypes, EveryWidthLoadsStoresAndConverts) {
  for_each_any_width_type([](auto type) {
    for (const sim::Options& o : every_order()) check_any_width_tiles<decltype(type)>(Device::simulator(), o);
  });
}

// Every width for the H200; a packed integer, an OCP float and the IEEE-style one for the other
// targets (the packed code does not depend on the target).
template <class T> void expect_compiles(const std::vector<const char*>& arches) {
  for (const char* arch : arches) {
    uint8_t* p = nullptr;
    float* f = nullptr;
    f16* h = nullptr;
    bf16* b = nullptr;
    uint32_t* w = nullptr;
    EXPECT_GT(Kernel<AnyWidthTiles<T>>(Device::simulator(), KernelOptions{arch})
                  .cubin(p, f, p, p, f, h, b, p, f, w, f, w)
                  .size(),
              0u)
        << dtype_name(dtype_v<T>) << " on " << arch;
  }
}

TEST(PackedTypes, F16NansNarrowWithTheirSign) {
  check_narrowing_from_f16(Device::simulator());
  f16* h = nullptr;
  uint8_t* packed = nullptr;
  EXPECT_FALSE(Kernel<NarrowsHalves<f6e2m3>>(Device::simulator(), KernelOptions{"sm_90a"}).cubin(h, packed).empty());
  EXPECT_FALSE(Kernel<NarrowsHalves<u3>>(Device::simulator(), KernelOptions{"sm_90a"}).cubin(h, packed).empty());
}

TEST(PackedTypesSweep, EveryWidthCompilesForEveryTarget) {
  for_each_any_width_type([](auto type) { expect_compiles<decltype(type)>({"sm_90a"}); });
  expect_compiles<i3>({"sm_80", "sm_100a"});
  expect_compiles<f4e2m1>({"sm_80", "sm_100a"});
  expect_compiles<f7e5m1>({"sm_80", "sm_100a"});
}

TEST(PackedTypes, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    uint8_t* p = nullptr;
    uint32_t* w = nullptr;
    int32_t* i = nullptr;
    f16* h = nullptr;
    bf16* b = nullptr;
    EXPECT_GT(Kernel<PackedTiles<u4>>(Device::simulator(), KernelOptions{arch})
                  .cubin(p, w, i, p, p, h, b, i, p, i, w, i)
                  .size(),
              0u)
        << arch;
  }
}

TEST(PackedTypes, TheDequantizationIsAWordAtATime) {
  uint8_t* p = nullptr;
  uint32_t* w = nullptr;
  int32_t* i = nullptr;
  f16* h = nullptr;
  bf16* b = nullptr;
  const std::string cuda = Kernel<PackedTiles<i4>>(Device::simulator()).cuda_source(p, w, i, p, p, h, b, i, p, i, w, i);
  EXPECT_NE(cuda.find("tessel_dequantize4_f16<true>("), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("tessel_dequantize4_bf16<true>("), std::string::npos) << cuda;
}

// The generated source of AnyWidthTiles<T>.
template <class T> std::string any_width_source() {
  uint8_t* p = nullptr;
  float* f = nullptr;
  f16* h = nullptr;
  bf16* b = nullptr;
  uint32_t* w = nullptr;
  return Kernel<AnyWidthTiles<T>>(Device::simulator()).cuda_source(p, f, p, p, f, h, b, p, f, w, f, w);
}

TEST(PackedTypes, APackedFloatConvertsToHalfTwoElementsAtATime) {
  const std::string cuda = any_width_source<f4e2m1>();
  EXPECT_NE(cuda.find("tessel_fma_f16x2(tessel_float_bits_pair<2, 1, 10>("), std::string::npos) << cuda;
}

TEST(PackedTypes, APackedIntegerConvertsToHalfTwoElementsAtATime) {
  const std::string cuda = any_width_source<i3>();
  // The sign bits flipped (excess 4), under 1024 (f16) and 128 (bf16), and -(magic + 4) added.
  EXPECT_NE(cuda.find("tessel_fma_f16x2((((tessel_packed_field<3>("), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("^ 0x40004u) | 0x64006400u), 0x3c003c00u, 0xe404e404u)"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("^ 0x40004u) | 0x43004300u), 0x3f803f80u, 0xc304c304u)"), std::string::npos) << cuda;
}

struct ArithmeticOnPackedTile : Script {
  void operator()(Ptr<u4> x, Ptr<int32_t> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 32}), {0, 0}, {8, 32});  // added to itself
    store_global(global_view(y, {8, 32}), t + t, {0, 0});
  }
};

TEST(PackedTypes, ArithmeticOnAPackedTileIsRefused) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(128, 1));
  Buffer<int32_t> y(Device::simulator(), std::vector<int32_t>(256, 0));
  EXPECT_EQ(error_of<ArithmeticOnPackedTile>(x, y),
            source_at("tests/packed_types_test.cpp", "t + t") +
                ": an elementwise operation does not take packed u4 elements (the register tile created at " +
                source_at("tests/packed_types_test.cpp", "// added to itself") +
                "); packed tiles are loaded, stored, copied, bitcast and converted: convert it with .to<T>() first "
                "(to i8, i32 or f16, for instance)");
}

struct ConvertLayoutOfPackedTile : Script {
  void operator()(Ptr<u4> x, Ptr<uint8_t> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 32}), {0, 0}, {8, 32});  // moved to other lanes
    store_global(global_view(y, {8, 32}),
                 convert_layout(t, Layout::local({1, 8}) * Layout::spatial({8, 4})).to<uint8_t>(), {0, 0});
  }
};

TEST(PackedTypes, ConvertLayoutOfAPackedTileIsRefused) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(128, 1)), y(Device::simulator(), 256);
  EXPECT_EQ(error_of<ConvertLayoutOfPackedTile>(x, y),
            source_at("tests/packed_types_test.cpp", "convert_layout(t,") +
                ": convert_layout does not take packed u4 elements (the register tile created at " +
                source_at("tests/packed_types_test.cpp", "// moved to other lanes") +
                "); packed tiles are loaded, stored, copied, bitcast and converted: convert it first (.to<i8>()), "
                "or bitcast it to 32-bit words and convert the layout of those");
}

struct StridedPackedView : Script {
  void operator()(Ptr<i4> x, int ld) {
    attrs.blocks = 1;
    attrs.warps = 1;
    load_global(global_view(x, {8, 32}, {1, ld}), {0, 0}, {8, 32});
  }
};

TEST(PackedTypes, APackedViewMustBeContiguousAlongItsLastDimension) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(128, 1));
  EXPECT_EQ(error_of<StridedPackedView>(x, 8),
            source_at("tests/packed_types_test.cpp", "global_view(x, {8, 32}, {1, ld})") +
                ": global_view of packed i4 elements: the last stride must be the constant 1, since i4 elements are "
                "packed 4 bits each along the last dimension (docs/language.md, \"Packed types\")");
}

struct SharedRowsOfHalfWords : Script {
  void operator()() {
    attrs.blocks = 1;
    attrs.warps = 1;
    shared_tensor<u4>({4, 12});
  }
};

TEST(PackedTypes, SharedRowsMustBeWholeWords) {
  EXPECT_EQ(error_of<SharedRowsOfHalfWords>(),
            source_at("tests/packed_types_test.cpp", "shared_tensor<u4>({4, 12})") +
                ": shared_tensor<u4>: rows of 12 packed u4 elements are 48 bits; packed rows must be whole 32-bit "
                "words, a multiple of 8 elements, so that no two threads share a byte");
}

struct CopyAsyncOfPackedElements : Script {
  void operator()(Ptr<i4> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<i4>({4, 32});
    copy_async(global_view(x, {4, 32}), s, {0, 0});
    copy_async_wait_all();
  }
};

TEST(PackedTypes, CopyAsyncOfPackedElementsIsRefused) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(64, 1));
  EXPECT_EQ(error_of<CopyAsyncOfPackedElements>(x),
            source_at("tests/packed_types_test.cpp", "copy_async(global_view(x, {4, 32}), s, {0, 0})") +
                ": copy_async: cp.async does not move packed i4 elements; copy their bytes as u32 words "
                "(as_pointer<uint32_t>(x.address(), 16) of the view's pointer x, a shared tile of u32) and read the "
                "tile's words with bitcast<i4>()");
}

struct TooFewPackedElementsPerThread : Script {
  void operator()(Ptr<u4> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {4, 8}), {0, 0}, {4, 8}, Layout::spatial({4, 8}));
    store_global(global_view(x, {4, 8}), t, {0, 0});
  }
};

TEST(PackedTypes, APackedTileFillsWholeRegisters) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(16, 1));
  EXPECT_EQ(error_of<TooFewPackedElementsPerThread>(x),
            source_at("tests/packed_types_test.cpp", "auto t = load_global(global_view(x, {4, 8})") +
                ": load_global of packed u4 elements: each thread holds 1 of them in "
                "layout[4,8](d0=4 d1=8; threads=d0.0,d1.0; local=-), and a packed tile must fill whole 32-bit "
                "registers, a multiple of 8 elements per thread; give it more elements per thread (a larger tile, "
                "fewer threads, or a layout)");
}

struct SwizzledThreeBitTile : Script {
  void operator()() {
    attrs.blocks = 1;
    attrs.warps = 1;
    shared_tensor<u3>({8, 512}, Swizzle::b128);
  }
};

TEST(PackedTypes, AWidthThatSplitsBytesHasNoSwizzle) {
  EXPECT_EQ(error_of<SwizzledThreeBitTile>(),
            source_at("tests/packed_types_test.cpp", "shared_tensor<u3>({8, 512}, Swizzle::b128)") +
                ": shared_tensor<u3>: a swizzle moves 16-byte chunks, which would split elements of 3 bits between "
                "them; give this tile Swizzle::none");
}

struct FloatToPacked : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 32}), {0, 0}, {8, 32});  // converted to i4
    t.to<i4>();
  }
};

TEST(PackedTypes, AFloatConvertsToAPackedIntegerThroughAnInteger) {
  Buffer<float> x(Device::simulator(), std::vector<float>(256, 1.5f));
  EXPECT_EQ(error_of<FloatToPacked>(x),
            source_at("tests/packed_types_test.cpp", "t.to<i4>()") +
                ": to<i4>() of the tile reg<f32>[8, 32] (created at " +
                source_at("tests/packed_types_test.cpp", "// converted to i4") +
                "): a float converts to a packed integer through an integer type (.to<i32>().to<i4>()) or with "
                "saturation (.to<i4>(saturate)), so that the rounding is stated");
}

struct WordsOfAnUnevenRow : Script {
  void operator()(Ptr<u4> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {8, 36}), {0, 0}, {8, 36});  // bitcast to words
    t.bitcast<uint32_t>();
  }
};

TEST(PackedTypes, ABitcastToWordsNeedsWholeWordsPerRow) {
  Buffer<uint8_t> x(Device::simulator(), std::vector<uint8_t>(144, 1));
  EXPECT_EQ(error_of<WordsOfAnUnevenRow>(x),
            source_at("tests/packed_types_test.cpp", "t.bitcast<uint32_t>()") +
                ": bitcast<u32>() of the tile reg<u4>[8, 36] (created at " +
                source_at("tests/packed_types_test.cpp", "// bitcast to words") +
                "): u4 is 4 bits wide and u32 is 32 bits wide; 8 consecutive elements of the last dimension make one "
                "u32 element, and its extent 36 is not a "
                "multiple of 8");
}

}  // namespace
}  // namespace tessel::testing
