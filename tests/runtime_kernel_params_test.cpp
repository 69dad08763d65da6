// The argument block of a launch: each parameter at the offset and size the compiled kernel
// expects, with the bytes the generated code declares, for any number of parameters.
#include "tessel/runtime/kernel_params.hpp"

#include <cstring>

#include <gtest/gtest.h>

#include "cubin_params.hpp"
#include "launch_kernels.hpp"

namespace tessel::runtime {
namespace {

ir::Kernel kernel_with(const std::vector<ir::Type>& types) {
  auto k = std::make_shared<ir::KernelNode>();
  k->name = "K";
  for (size_t i = 0; i < types.size(); ++i) k->params.push_back(ir::make_var(types[i], fmt::format("p{}", i)));
  return k;
}

template <class T> T read(const void* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

const std::vector<ir::Type> kEveryType = {{DType::Bool}, {DType::I8},  {DType::F16}, {DType::F32},      {DType::BF16},
                                          {DType::I64},  {DType::U32}, {DType::I32}, {DType::F32, true}};

TEST(ParamLayout, PlacesEachParameterAtItsOwnAlignment) {
  const ParamLayout layout = ParamLayout::of(*kernel_with(kEveryType));
  std::vector<uint32_t> offsets, sizes;
  for (const ParamSlot& s : layout.slots()) {
    offsets.push_back(s.offset);
    sizes.push_back(s.size);
  }
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 1, 2, 4, 8, 16, 24, 28, 32}));
  EXPECT_EQ(sizes, (std::vector<uint32_t>{1, 1, 2, 4, 2, 8, 4, 4, 8}));
  EXPECT_EQ(layout.bytes(), 40u);
}

// NVRTC is all this needs: the kernel's own parameter table is in the cubin.
TEST(ParamLayout, MatchesTheCompiledKernelsParameterTable) {
  Kernel<testing::EveryParameterType> k(Device::simulator());
  float* out = nullptr;
  const auto args = std::tuple{true, int8_t(1), 1.0f, 1.0f, 1.0f, int64_t(1), uint32_t(1), 1, out};
  const std::vector<char> cubin = std::apply([&](auto... a) { return k.cubin(a...); }, args);
  const ir::Kernel lowered = std::apply([&](auto... a) { return k.lowered(a...); }, args);
  const ParamLayout layout = ParamLayout::of(*lowered);
  std::vector<testing::CubinParam> expected;
  for (const ParamSlot& s : layout.slots()) expected.push_back({s.offset, s.size});
  EXPECT_EQ(testing::cubin_params(cubin, "tessel_EveryParameterType"), expected);
}

TEST(ParamLayout, WritesEachValueAsTheKernelDeclaresIt) {
  const ParamLayout layout = ParamLayout::of(*kernel_with(kEveryType));
  const int64_t wide = (int64_t(3) << 32) + 5;
  const int dummy = 0;
  const std::vector<ir::Scalar> values = {
      {.i = 1},          {.i = -7},      {.f = 1.5},
      {.f = 2.25},       {.f = -3.0},    {.i = wide},
      {.i = 4000000000}, {.i = -123456}, {.i = int64_t(reinterpret_cast<uintptr_t>(&dummy))}};
  ArgumentBlock block(layout, values);
  void** p = block.pointers();
  EXPECT_EQ(read<uint8_t>(p[0]), 1);
  EXPECT_EQ(read<int8_t>(p[1]), -7);
  EXPECT_EQ(read<uint16_t>(p[2]), f16(1.5f).bits);
  EXPECT_EQ(read<float>(p[3]), 2.25f);
  EXPECT_EQ(read<uint16_t>(p[4]), bf16(-3.0f).bits);
  EXPECT_EQ(read<int64_t>(p[5]), wide);
  EXPECT_EQ(read<uint32_t>(p[6]), 4000000000u);
  EXPECT_EQ(read<int32_t>(p[7]), -123456);
  EXPECT_EQ(read<const int*>(p[8]), &dummy);
  for (size_t i = 0; i < layout.slots().size(); ++i)
    EXPECT_EQ(static_cast<std::byte*>(p[i]) - static_cast<std::byte*>(p[0]), layout.slots()[i].offset) << i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p[0]) % ParamLayout::kBlockAlignment, 0u);
}

// In debug mode each pointer parameter's allocation follows the parameters, in order.
TEST(ParamLayout, PlacesTheAllocationOfEachPointerInDebugMode) {
  const ir::Kernel k = kernel_with({{DType::F32, true}, {DType::I32}, {DType::F16, true}});
  EXPECT_EQ(ParamLayout::of(*k).slots().size(), 3u);
  EXPECT_EQ(ParamLayout::of(*k).allocations(), 0u);
  const ParamLayout layout = ParamLayout::of(*k, true);
  ASSERT_EQ(layout.slots().size(), 5u);
  EXPECT_EQ(layout.allocations(), 2u);
  for (size_t i : {3, 4}) {
    EXPECT_EQ(layout.slots()[i].kind, ParamSlot::Kind::Allocation);
    EXPECT_EQ(layout.slots()[i].size, 16u);
    EXPECT_EQ(layout.slots()[i].source, i - 3);
  }
  EXPECT_EQ(layout.slots()[3].offset, 24u);
  EXPECT_EQ(layout.slots()[4].offset, 40u);
  const std::vector<ir::Scalar> values = {{.i = 0x1000}, {.i = 7}, {.i = 0x2000}};
  const std::vector<AllocationRange> allocations = {{0x1000, 0x1400}, {0x1f00, 0x3000}};
  ArgumentBlock block(layout, values, {}, allocations);
  EXPECT_EQ(read<uint64_t>(block.pointers()[3]), 0x1000u);
  EXPECT_EQ(read<uint64_t>(static_cast<std::byte*>(block.pointers()[3]) + 8), 0x1400u);
  EXPECT_EQ(read<uint64_t>(block.pointers()[4]), 0x1f00u);
  EXPECT_EQ(read<uint64_t>(static_cast<std::byte*>(block.pointers()[4]) + 8), 0x3000u);
}

// Past the inline capacity (in parameters, then in bytes) the block moves to the heap, aligned.
TEST(ParamLayout, ArgumentBlocksOfAnySize) {
  for (size_t count : {ArgumentBlock::kInlineParams + 1, ArgumentBlock::kInlineBytes / 8 + 1}) {
    const ParamLayout layout = ParamLayout::of(*kernel_with(std::vector<ir::Type>(count, {DType::I64})));
    EXPECT_EQ(layout.bytes(), count * 8);
    std::vector<ir::Scalar> values(count);
    for (size_t i = 0; i < count; ++i) values[i].i = int64_t(i) * 1000003;
    ArgumentBlock block(layout, values);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block.pointers()[0]) % ParamLayout::kBlockAlignment, 0u);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(read<int64_t>(block.pointers()[i]), values[i].i) << i;
  }
}

TEST(ParamLayout, EachSlotReadsItsSourceValue) {
  ParamLayout layout;
  ParamSlot word = param_slot({DType::I32});
  word.source = 1;
  layout.add(word);
  word.source = 0;
  layout.add(word);
  layout.add(word);
  const std::vector<ir::Scalar> values = {{.i = 10}, {.i = 20}};
  ArgumentBlock block(layout, values);
  EXPECT_EQ(read<int32_t>(block.pointers()[0]), 20);
  EXPECT_EQ(read<int32_t>(block.pointers()[1]), 10);
  EXPECT_EQ(read<int32_t>(block.pointers()[2]), 10);
}

// A parameter larger and more aligned than any scalar (a 128-byte tensor map is one) goes to the
// next offset its alignment allows.
TEST(ParamLayout, PlacesLargeAlignedParameters) {
  ParamLayout layout;
  layout.add(param_slot({DType::I32}));
  layout.add({.kind = ParamSlot::Kind::Scalar, .dtype = DType::I64, .size = 128, .alignment = 128});
  layout.add(param_slot({DType::F32, true}));
  EXPECT_EQ(layout.slots()[1].offset, 128u);
  EXPECT_EQ(layout.slots()[2].offset, 256u);
  EXPECT_EQ(layout.bytes(), 264u);
}

// A kernel with a parameter after its tensor map's natural place: the maps follow the parameters.
struct StoresOneBox : Script {
  void operator()(Int32 n, Ptr<float> out, Int32 unused) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    tma.shared_to_global(s, global_view(out, {n, 32}), {unused, 0});
  }
};

TEST(ParamLayout, PlacesTensorMapsAfterTheParametersAsTheCompiledKernelDoes) {
  Kernel<StoresOneBox> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(8, (float*)nullptr, 0);
  const ParamLayout layout = ParamLayout::of(*lowered);
  ASSERT_EQ(layout.slots().size(), 4u);
  const ParamSlot& map = layout.slots()[3];
  EXPECT_EQ(map.kind, ParamSlot::Kind::TensorMap);
  EXPECT_EQ(map.offset, 64u);
  EXPECT_EQ(map.size, 128u);
  EXPECT_EQ(map.alignment, 64u);
  // The scalars sit where the compiler put them. The compiler aligns the map's absolute address in
  // the constant bank, whose parameter base is not 64-byte aligned, so its offset in the table
  // differs; the driver copies each parameter from its own pointer, so only the size must agree.
  const std::vector<testing::CubinParam> compiled =
      testing::cubin_params(k.cubin(8, (float*)nullptr, 0), "tessel_StoresOneBox");
  ASSERT_EQ(compiled.size(), 4u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(compiled[i], (testing::CubinParam{layout.slots()[i].offset, layout.slots()[i].size})) << i;
  EXPECT_EQ(compiled[3].size, 128u);
  EXPECT_GE(compiled[3].offset, compiled[2].offset + compiled[2].size);

  EncodedTensorMap encoded;
  for (size_t i = 0; i < encoded.bytes.size(); ++i) encoded.bytes[i] = std::byte(i);
  const std::vector<ir::Scalar> values = {{.i = 8}, {.i = 0x1000}, {.i = 0}};
  ArgumentBlock block(layout, values, std::span(&encoded, 1));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block.pointers()[3]) % 64, 0u);
  EXPECT_EQ(std::memcmp(block.pointers()[3], encoded.bytes.data(), encoded.bytes.size()), 0);
}

}  // namespace
}  // namespace tessel::runtime
