// wgmma with 8-bit operands on the simulator: 8-bit integers of either signedness into an s32
// accumulator that wraps, from shared memory or with A in registers, fp8 with A in registers, and
// tf32 from shared memory or registers,
// against host references under every completion order; the code generated for them, accepted by
// NVRTC for sm_90a; and their misuse, reported at the user's line.
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "wgmma_operand_types_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(Wgmma8Bit, IntegerOperandsOfEitherSignednessMatchTheHostReference) {
  for (const KernelOptions& o : every_order_options()) {
    check_wgmma_types<int8_t, int8_t, int32_t, 64, 64, 128, false>(o, 1);
    check_wgmma_types<uint8_t, int8_t, int32_t, 64, 48, 64, false>(o, 2);
    check_wgmma_types<int8_t, uint8_t, int32_t, 64, 24, 32, true>(o, 3);
    check_wgmma_types<uint8_t, uint8_t, int32_t, 128, 32, 128, true, true, 8>(o, 4);  // two warpgroups
    check_wgmma_types<int8_t, int8_t, int32_t, 128, 256, 64, false>(o, 5);            // two m64 instructions
  }
}

// Without accumulate the accumulator's old value (within 2^22 of the s32 limits) must not reach C.
TEST(Wgmma8Bit, AnIntegerMmaThatDoesNotAccumulateOverwrites) {
  for (const KernelOptions& o : every_order_options()) {
    check_wgmma_types<int8_t, uint8_t, int32_t, 64, 16, 64, false, false>(o, 6);
    check_wgmma_types<uint8_t, int8_t, int32_t, 64, 8, 128, true, false>(o, 7);
  }
}

// .satfinite: the same accumulators near the limits clamp after each k32 instruction instead.
TEST(Wgmma8Bit, SaturatingSumsClampAtTheS32LimitsUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    check_wgmma_types<int8_t, int8_t, int32_t, 64, 64, 128, false, true, 4, true>(o, 11);
    check_wgmma_types<uint8_t, uint8_t, int32_t, 128, 32, 128, true, true, 8, true>(o, 12);
  }
}

TEST(Wgmma8Bit, Fp8RegisterAMatchesTheHostReference) {
  for (const KernelOptions& o : every_order_options()) {
    check_wgmma_types<f8e4m3, f8e4m3, float, 64, 64, 128, true>(o, 8);
    check_wgmma_types<f8e5m2, f8e4m3, float, 128, 40, 32, true, true, 8>(o, 9);
    check_wgmma_types<f8e4m3, f8e5m2, float, 64, 16, 64, true, false>(o, 10);
  }
}

TEST(WgmmaTf32, SharedAndRegisterOperandsMatchTheHostReference) {
  for (const KernelOptions& o : every_order_options()) {
    check_wgmma_types<tf32, tf32, float, 64, 64, 32, false>(o, 13);
    check_wgmma_types<tf32, tf32, float, 64, 40, 16, true>(o, 14);
    check_wgmma_types<tf32, tf32, float, 128, 24, 8, true, true, 8>(o, 15);  // two warpgroups
    check_wgmma_types<tf32, tf32, float, 64, 16, 32, false, false>(o, 16);
  }
}

using IntegerShared = WgmmaTypedTile<uint8_t, int8_t, int32_t, 64, 32, 64, false>;
using IntegerRegisters = WgmmaTypedTile<int8_t, uint8_t, int32_t, 64, 48, 32, true, false>;
using Fp8Registers = WgmmaTypedTile<f8e4m3, f8e5m2, float, 64, 16, 32, true>;
using SaturatingShared = WgmmaTypedTile<int8_t, int8_t, int32_t, 64, 32, 64, false, true, 4, true>;

TEST(Wgmma8BitCodegen, SpellsTheIntegerAndRegisterForms) {
  const std::string ss = Kernel<IntegerShared>(Device::simulator(), KernelOptions{"sm_90a"})
                             .cuda_source((uint8_t*)nullptr, (int8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(file_check(ss, R"(
    CHECK: // wgmma.mma SS m64n32k32 x 2, by each of 1 warpgroups
    CHECK: wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.s8 {%0,
    CHECK-SAME: %15}, %16, %17, 1;
    CHECK-SAME: : "+r"(
    CHECK: asm volatile("// wgmma operand %0" : "+r"(
  )")) << ss;
  const std::string rs = Kernel<IntegerRegisters>(Device::simulator(), KernelOptions{"sm_90a"})
                             .cuda_source((int8_t*)nullptr, (uint8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(file_check(rs, R"(
    CHECK: // wgmma.mma RS m64n48k32 x 1, by each of 1 warpgroups
    CHECK: wgmma.mma_async.sync.aligned.m64n48k32.s32.s8.u8 {%0,
    CHECK-SAME: %23}, {%24, %25, %26, %27}, %28, 0;
    CHECK-SAME: : "=r"(
    CHECK-SAME: "r"(tessel_pack4(
  )")) << rs;
  const std::string fp8 = Kernel<Fp8Registers>(Device::simulator(), KernelOptions{"sm_90a"})
                              .cuda_source((f8e4m3*)nullptr, (f8e5m2*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(fp8, R"(
    CHECK: wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {%0,
    CHECK-SAME: %7}, {%8, %9, %10, %11}, %12, 1, 1, 1;
    CHECK-SAME: "r"(tessel_pack4(
    CHECK-SAME: .bits,
  )")) << fp8;
  const std::string saturating = Kernel<SaturatingShared>(Device::simulator(), KernelOptions{"sm_90a"})
                                     .cuda_source((int8_t*)nullptr, (int8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(file_check(saturating, R"(
    CHECK: wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8.satfinite {%0,
  )")) << saturating;
}

TEST(Wgmma8BitCodegen, NvrtcAcceptsEveryFormForSm90a) {
  EXPECT_FALSE(Kernel<IntegerShared>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((uint8_t*)nullptr, (int8_t*)nullptr, (int32_t*)nullptr)
                   .empty());
  EXPECT_FALSE(Kernel<IntegerRegisters>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((int8_t*)nullptr, (uint8_t*)nullptr, (int32_t*)nullptr)
                   .empty());
  EXPECT_FALSE(Kernel<Fp8Registers>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((f8e4m3*)nullptr, (f8e5m2*)nullptr, (float*)nullptr)
                   .empty());
  EXPECT_FALSE(Kernel<SaturatingShared>(Device::simulator(), KernelOptions{"sm_90a"})
                   .cubin((int8_t*)nullptr, (int8_t*)nullptr, (int32_t*)nullptr)
                   .empty());
}

int line = 0;

// One SS wgmma of A [64, K] and B [N, K] of type T into an accumulator of type Acc.
template <class T, class Acc, int N, int K> struct OneMma : Script {
  void operator()(Ptr<T>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({64, K});
    auto s_b = shared_tensor<T>({N, K});
    auto acc = register_tensor<Acc>({64, N}, 0);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc);
  }
};

// An f32 accumulator has no s32 limits to clamp at.
struct SaturatingFloats : Script {
  void operator()(Ptr<f16>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 16});
    auto s_b = shared_tensor<f16>({8, 16});
    auto acc = register_tensor<float>({64, 8}, 0.0f);
    line = __LINE__ + 1;
    wgmma.mma(s_a, s_b.transpose(), acc, saturate);
  }
};

template <class S, class T> std::string trace_error() {
  try {
    Kernel<S>(Device::simulator()).cuda_source((T*)nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string at_line(const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, line, message); }

TEST(Wgmma8BitDiagnostics, IntegerOperandsIntoAnF32AccumulatorAreReported) {
  const std::string got = trace_error<OneMma<int8_t, float, 64, 32>, int8_t>();
  EXPECT_EQ(got, at_line("wgmma.mma: takes f16 or bf16 operands of one type, tf32 operands, or fp8 operands (f8e4m3, "
                         "f8e5m2, in any pairing), and an f32 accumulator; or 8-bit integer operands (i8, u8, in any "
                         "pairing) and an i32 accumulator; got i8 @ i8 into f32"));
}

TEST(Wgmma8BitDiagnostics, SaturationOfFloatingPointSumsIsReported) {
  const std::string got = trace_error<SaturatingFloats, f16>();
  EXPECT_EQ(got,
            at_line("wgmma.mma(..., saturate): saturation clamps the i32 sums of 8-bit integer operands; f16 @ f16 "
                    "into f32 sums in floating point"));
}

TEST(Wgmma8BitDiagnostics, AnIntegerShapeOutsideItsListIsReported) {
  std::string got = trace_error<OneMma<uint8_t, int32_t, 40, 32>, uint8_t>();
  EXPECT_EQ(got,
            at_line("wgmma.mma: n = 40 is not a wgmma shape for 8-bit integers; n must be 8, 16, 24, or a multiple "
                    "of 16 from 32 to 256"));
  got = trace_error<OneMma<int8_t, int32_t, 32, 16>, int8_t>();
  EXPECT_EQ(got, at_line("wgmma.mma: k = 16 does not fit; for 8-bit operands, k must be 32, 64 or 128 (one m64nNk32 "
                         "instruction per 32, and shared rows of 32, 64 or 128 bytes, one swizzle span)"));
}

}  // namespace
}  // namespace tessel::testing
