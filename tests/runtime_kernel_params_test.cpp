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

const std::vector<ir::Type> kEveryType = {{DType::Bool}, {DType::I8},  {DType::F16}, {DType::F32}, {DType::BF16},
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
  const std::vector<ir::Scalar> values = {{.i = 1},       {.i = -7},   {.f = 1.5},         {.f = 2.25},
                                          {.f = -3.0},    {.i = wide}, {.i = 4000000000}, {.i = -123456},
                                          {.i = int64_t(reinterpret_cast<uintptr_t>(&dummy))}};
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

}  // namespace
}  // namespace tessel::runtime
