// Tensor-core kernels on the simulator against host references.
#include "expect_error.hpp"
#include "source_line.hpp"
#include "tensor_core_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(TensorCore, IntegerDotIsExactAndWraps) {
  check_integer_dot(Device::simulator(), 64, 64, 128, 1);
  check_integer_dot(Device::simulator(), 100, 72, 64, 2);  // partial blocks: loads fill with zeros
}

TEST(TensorCore, IntegerDotTakesEitherSignednessForEachOperand) {
  check_integer_dot<UnsignedSignedDot>(Device::simulator(), 64, 64, 128, 3);
  check_integer_dot<SignedUnsignedDot>(Device::simulator(), 100, 72, 64, 4);
  check_integer_dot<UnsignedDot>(Device::simulator(), 64, 64, 128, 5);
}

TEST(TensorCore, SaturatingIntegerDotClampsAtTheI32Limits) {
  check_integer_dot<SaturatingDot>(Device::simulator(), 64, 64, 128, 8);
  check_integer_dot<SaturatingDot>(Device::simulator(), 100, 72, 64, 9);
}

TEST(TensorCore, Fp8DotMatchesTheHostReference) {
  check_fp8_dot(Device::simulator(), 64, 64, 128, 6);
  check_fp8_dot<Fp8MixedDot>(Device::simulator(), 100, 72, 64, 7);  // partial blocks: loads fill with zeros
}

TEST(TensorCore, Tf32DotMatchesTheHostReference) {
  check_tf32_dot(Device::simulator(), 64, 64, 128, 11);
  check_tf32_dot(Device::simulator(), 100, 72, 64, 12);  // partial blocks: loads fill with zeros
}

int dot_line = 0;

// A dot of u8 operands into an f32 accumulator: integer operands take an i32 one.
struct UnsignedIntoFloat : Script {
  void operator()(Ptr<u8> a, Ptr<i8> b, Ptr<float> c) {
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {64, 32}), {0, 0}, {64, 32});
    auto rb = load_global(global_view(b, {32, 64}), {0, 0}, {32, 64});
    dot_line = __LINE__ + 1;
    store_global(global_view(c, {64, 64}), dot(ra, rb, register_tensor<float>({64, 64}, 0.0f)), {0, 0});
  }
};

TEST(TensorCore, DotRefusesOperandsTensorCoresDoNotTake) {
  const std::string got = error_of_call(
      [] { Kernel<UnsignedIntoFloat>(Device::simulator()).cuda_source((u8*)nullptr, (i8*)nullptr, (float*)nullptr); });
  EXPECT_EQ(got, fmt::format("{}:{}: dot: tensor cores take f16 or bf16 operands of one type with an f32 accumulator, "
                             "tf32 or fp8 operands (e4m3 or e5m2 each) with an f32 accumulator, or i8 or u8 operands "
                             "(either signedness each) with an i32 accumulator; got u8 @ i8 + f32",
                             __FILE__, dot_line));
}

// Floating-point sums have no i32 limits to clamp at.
struct SaturatingHalves : Script {
  void operator()(Ptr<f16> a, Ptr<float> c) {
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {64, 32}), {0, 0}, {64, 32});
    auto rb = load_global(global_view(a, {32, 64}), {0, 0}, {32, 64});
    dot_line = __LINE__ + 1;
    store_global(global_view(c, {64, 64}), dot(ra, rb, register_tensor<float>({64, 64}, 0.0f), saturate), {0, 0});
  }
};

TEST(TensorCore, SaturationOfFloatingPointSumsIsReported) {
  const std::string got =
      error_of_call([] { Kernel<SaturatingHalves>(Device::simulator()).cuda_source((f16*)nullptr, (float*)nullptr); });
  EXPECT_EQ(got, fmt::format("{}:{}: dot(..., saturate): saturation clamps the i32 sums of 8-bit integer operands; f16 "
                             "@ f16 + f32 sums in floating point",
                             __FILE__, dot_line));
}

// fp8 operands take mma.sync from sm_89, so an sm_80 kernel cannot have them.
TEST(TensorCore, Fp8DotNeedsSm90a) {
  const std::string got = error_of_call([] {
    Kernel<Fp8Dot>(Device::simulator(), KernelOptions{"sm_80"})
        .cuda_source(64, 64, 64, (f8e4m3*)nullptr, (f8e4m3*)nullptr, (float*)nullptr, (float*)nullptr);
  });
  EXPECT_EQ(got, source_at("tests/tensor_core_kernels.hpp", "// the plain dot") +
                     ": dot of f8e4m3 @ f8e4m3 runs mma.sync on fp8 operands, which needs sm_89 or newer (sm_90a of "
                     "the targets); the kernel is compiled for sm_80");
}

}  // namespace
}  // namespace tessel::testing
