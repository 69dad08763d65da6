// tcgen05.mma's low-precision kinds: kind::f8f6f4 and the block-scaled mxf8f6f4, mxf4 and mxf4nvf4
// (NVFP4), with the scales in tensor memory written by tcgen05.copy 32x128b.warpx4. The seed-style
// GEMMs of examples/matmul_blackwell against host references under every completion order, their
// instruction descriptors, their PTX for sm_100a, and their misuse at the user's line.
#include <limits>
#include <random>
#include <regex>

#include <gtest/gtest.h>

#include "examples.hpp"
#include "expect_error.hpp"
#include "matmul_blackwell/block_scaled_tcgen05.hpp"
#include "matmul_blackwell/f8f6f4_tcgen05.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

int line = 0, mma_line = 0;

std::string at(int l, const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, l, message); }

TEST(Tcgen05LowPrecision, InstructionDescriptorsHaveThePtxFields) {
  // kind::f8f6f4: e5m2 A (code 1), e4m3 B (0), D f32 (bits 4-5 = 1).
  const Tcgen05InstrDescriptor fp8{128,        256,   DType::F8E5M2, DType::F8E4M3,
                                   DType::F32, false, false,         Tcgen05Kind::f8f6f4};
  EXPECT_EQ(fp8.bits(), 1u << 4 | 1u << 7 | 0u << 10 | (256u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(fp8.bits(), Tcgen05Kind::f8f6f4), fp8);
  // kind::f8f6f4 with fp6 and fp4 operands: e2m3 is code 3, e3m2 4, e2m1 5.
  const Tcgen05InstrDescriptor fp6{128,        64,    DType::F6E2M3, DType::F4E2M1,
                                   DType::F32, false, false,         Tcgen05Kind::f8f6f4};
  EXPECT_EQ(fp6.bits(), 1u << 4 | 3u << 7 | 5u << 10 | (64u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(fp6.bits(), Tcgen05Kind::f8f6f4), fp6);
  const Tcgen05InstrDescriptor e3m2{128,        64,    DType::F6E3M2, DType::F6E3M2,
                                    DType::F32, false, false,         Tcgen05Kind::f8f6f4};
  EXPECT_EQ(e3m2.bits() >> 7 & 0x3F, 4u | 4u << 3);
  // kind::i8: D s32 (bits 4-5 = 2), u8 is code 0 and s8 1.
  const Tcgen05InstrDescriptor i8{128, 48, DType::U8, DType::I8, DType::I32, false, false, Tcgen05Kind::i8};
  EXPECT_EQ(i8.bits(), 2u << 4 | 0u << 7 | 1u << 10 | (48u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(i8.bits(), Tcgen05Kind::i8), i8);
  // The saturate bit (bit 3) of kind::i8.
  Tcgen05InstrDescriptor saturating = i8;
  saturating.saturate = true;
  EXPECT_EQ(saturating.bits(), i8.bits() | 1u << 3);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(saturating.bits(), Tcgen05Kind::i8), saturating);
  // kind::mxf8f6f4: B's scale ID in bits 4-5, ue8m0 in bit 23, A's scale ID in bits 29-30.
  Tcgen05InstrDescriptor mx{128, 128, DType::F8E4M3, DType::F8E4M3, DType::F32, false, false, Tcgen05Kind::mxf8f6f4};
  mx.scale_format = ScaleFormat::ue8m0;
  mx.a_scale_id = 2;
  mx.b_scale_id = 1;
  EXPECT_EQ(mx.bits(), 1u << 4 | (128u >> 3) << 17 | 1u << 23 | (128u >> 4) << 24 | 2u << 29);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(mx.bits(), Tcgen05Kind::mxf8f6f4), mx);
  // kind::mxf4nvf4: e2m1 is code 1 for both operands, ue4m3 leaves bit 23 clear.
  Tcgen05InstrDescriptor nv{128, 64, DType::F4E2M1, DType::F4E2M1, DType::F32, false, false, Tcgen05Kind::mxf4nvf4};
  nv.scale_format = ScaleFormat::ue4m3;
  EXPECT_EQ(nv.bits(), 1u << 7 | 1u << 10 | (64u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(nv.bits(), Tcgen05Kind::mxf4nvf4), nv);
}

TEST(Tcgen05LowPrecision, KindsFollowFromTheOperandsAndTheScales) {
  EXPECT_EQ(tcgen05_kind({DType::U8}, {DType::I8}, ScaleFormat::none), Tcgen05Kind::i8);
  EXPECT_EQ(tcgen05_kind({DType::I8}, {DType::I8}, ScaleFormat::ue8m0), std::nullopt);
  EXPECT_EQ(tcgen05_kind({DType::I8}, {DType::F8E4M3}, ScaleFormat::none), std::nullopt);
  EXPECT_EQ(tcgen05_instruction_k(Tcgen05Kind::i8), 32);
  EXPECT_EQ(tcgen05_kind({DType::F8E4M3}, {DType::F8E5M2}, ScaleFormat::none), Tcgen05Kind::f8f6f4);
  EXPECT_EQ(tcgen05_kind({DType::F8E4M3}, {DType::F8E4M3}, ScaleFormat::ue8m0), Tcgen05Kind::mxf8f6f4);
  EXPECT_EQ(tcgen05_kind({DType::F4E2M1}, {DType::F4E2M1}, ScaleFormat::ue8m0), Tcgen05Kind::mxf4);
  EXPECT_EQ(tcgen05_kind({DType::F4E2M1}, {DType::F4E2M1}, ScaleFormat::ue4m3), Tcgen05Kind::mxf4nvf4);
  EXPECT_EQ(tcgen05_kind({DType::F4E2M1}, {DType::F4E2M1}, ScaleFormat::none), std::nullopt);
  EXPECT_EQ(tcgen05_kind({DType::F8E4M3}, {DType::F8E4M3}, ScaleFormat::ue4m3), std::nullopt);
  EXPECT_EQ(tcgen05_kind({DType::F6E2M3, true}, {DType::F4E2M1, true}, ScaleFormat::none), Tcgen05Kind::f8f6f4);
  EXPECT_EQ(tcgen05_kind({DType::F6E3M2, true}, {DType::F8E4M3}, ScaleFormat::ue8m0), Tcgen05Kind::mxf8f6f4);
  EXPECT_EQ(tcgen05_kind({DType::F6E2M3}, {DType::F6E2M3}, ScaleFormat::none), std::nullopt);
  EXPECT_EQ(tcgen05_kind({DType::F4E2M1, true}, {DType::F4E2M1, true}, ScaleFormat::ue4m3), std::nullopt);
  EXPECT_EQ(tcgen05_instruction_k(Tcgen05Kind::mxf4nvf4), 64);
  EXPECT_EQ(tcgen05_scale_block(Tcgen05Kind::mxf4nvf4), 16);
  EXPECT_EQ(tcgen05_scale_block(Tcgen05Kind::mxf4), 32);
  EXPECT_EQ(tcgen05_scale_block(Tcgen05Kind::mxf8f6f4), 32);
}

TEST(Tcgen05LowPrecision, BlockScaledGemmsMatchTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"blackwell_mxfp8", "blackwell_nvfp4"})
    for (const KernelOptions& o : every_order_options()) {
      const cli::RunResult r = examples::find_example(name).run(Device::simulator(), {130, 136, 256}, o);
      EXPECT_TRUE(r.ok) << name << ": " << r.summary;
    }
}

// C = C0 + A Bᵀ by kind::i8 in one block: C0 goes into tensor memory by tcgen05.store, the mma
// accumulates onto it (clamping after each instruction when Saturating), and the sums come back
// by tcgen05.load.
template <class A, class B, bool Saturating = false> struct IntegerMmaOntoC0 : Script {
  void operator()(Ptr<A> a, Ptr<B> b, Ptr<int32_t> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<A>({128, 128});
    auto s_b = shared_tensor<B>({64, 128});
    copy_async(global_view(a, {128, 128}), s_a, {0, 0});
    copy_async(global_view(b, {64, 128}), s_b, {0, 0});
    copy_async_wait_all();
    fence.proxy_async(ProxySpace::shared_cta);
    auto t = tcgen05.alloc<int32_t>({128, 64});
    auto bars = mbarrier.alloc({1});
    auto g_c = global_view(c, {128, 64});
    tcgen05.store(t, load_global(g_c, {0, 0}, {128, 64}));
    tcgen05.wait_store();
    sync();
    single_warp([&] {
      if constexpr (Saturating) tcgen05.mma(s_a, s_b.transpose(), t, true, saturate);
      if constexpr (!Saturating) tcgen05.mma(s_a, s_b.transpose(), t, true);
      tcgen05.commit(bars[0]);
      mbarrier.wait(bars[0], 0u);
    });
    sync();
    store_global(g_c, tcgen05.load(t), {0, 0});
    tcgen05.wait_load();
    sync();
    tcgen05.dealloc(t);
  }
};

// Operands over their types' whole range and C0 within 2^22 of the s32 limits, so that many sums
// wrap (a row of 128 products of u8 values reaches 2^23): exact, modulo 2^32; or, Saturating,
// clamped to the s32 range after each 32 of k, so that many are clamped.
template <class A, class B, bool Saturating = false>
void check_integer_mma_onto_c0(const KernelOptions& o, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> a_value(std::numeric_limits<A>::min(), std::numeric_limits<A>::max()),
      b_value(std::numeric_limits<B>::min(), std::numeric_limits<B>::max()), near(0, 1 << 22);
  std::vector<A> a(128 * 128);
  std::vector<B> b(64 * 128);
  std::vector<int32_t> c0(128 * 64);
  for (A& x : a) x = A(a_value(rng));
  for (B& x : b) x = B(b_value(rng));
  for (int32_t& x : c0)
    x = rng() % 2 ? std::numeric_limits<int32_t>::max() - near(rng) : std::numeric_limits<int32_t>::min() + near(rng);
  const Device dev = Device::simulator();
  Buffer<A> da(dev, a);
  Buffer<B> db(dev, b);
  Buffer<int32_t> dc(dev, c0);
  Kernel<IntegerMmaOntoC0<A, B, Saturating>>(dev, o)(da, db, dc);
  const std::vector<int32_t> got = dc.download();
  constexpr int64_t lowest = std::numeric_limits<int32_t>::min(), highest = std::numeric_limits<int32_t>::max();
  int outside = 0;  // sums that wrapped, or were clamped
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 64; ++j) {
      int64_t want = c0[size_t(i) * 64 + j];
      for (int p = 0; p < 128; ++p) {
        want += int64_t(a[size_t(i) * 128 + p]) * b[size_t(j) * 128 + p];
        if (Saturating && (p + 1) % 32 == 0) {
          outside += want < lowest || want > highest;
          want = std::clamp(want, lowest, highest);
        }
      }
      outside += !Saturating && want != int64_t(int32_t(uint32_t(uint64_t(want))));
      ASSERT_EQ(got[size_t(i) * 64 + j], int32_t(uint32_t(uint64_t(want)))) << "c[" << i << ", " << j << "]";
    }
  EXPECT_GT(outside, 0) << (Saturating ? "no sum was clamped" : "no sum wrapped");
}

TEST(Tcgen05LowPrecision, IntegerSumsWrapInTheS32AccumulatorUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_100a"})) {
    check_integer_mma_onto_c0<int8_t, int8_t>(o, 1);
    check_integer_mma_onto_c0<uint8_t, int8_t>(o, 2);
    check_integer_mma_onto_c0<uint8_t, uint8_t>(o, 3);
  }
}

TEST(Tcgen05LowPrecision, SaturatingIntegerSumsClampAfterEachInstructionUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_100a"})) {
    check_integer_mma_onto_c0<int8_t, int8_t, true>(o, 4);
    check_integer_mma_onto_c0<uint8_t, int8_t, true>(o, 5);
    check_integer_mma_onto_c0<uint8_t, uint8_t, true>(o, 6);
  }
}

// An f16 mma told to saturate: its sums are floating-point.
struct SaturatesAHalfMma : Script {
  static constexpr int mma_line = __LINE__ + 8;
  void operator()(Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({128, 64});
    auto s_b = shared_tensor<f16>({64, 64});
    auto t = tcgen05.alloc<float>({128, 64});
    auto bars = mbarrier.alloc({1});
    single_warp([&] { tcgen05.mma(s_a, s_b, t, false, saturate); });
  }
};

TEST(Tcgen05LowPrecision, TheSaturateBitIsSetForIntegerSumsAndRefusedForOthers) {
  const KernelOptions sm100a{"sm_100a"};
  Kernel<IntegerMmaOntoC0<int8_t, int8_t, true>> k(Device::simulator(), sm100a);
  int8_t* i8 = nullptr;
  int32_t* c = nullptr;
  const std::string source = k.cuda_source(i8, i8, c);
  std::smatch idesc;
  ASSERT_TRUE(std::regex_search(source, idesc, std::regex(R"(kind::i8 \[.*"r"\(0x([0-9a-f]+)u\))"))) << source;
  EXPECT_EQ(std::stoul(idesc[1].str(), nullptr, 16) >> 3 & 1, 1u);
  EXPECT_FALSE(k.cubin(i8, i8, c).empty());
  f16* out = nullptr;
  EXPECT_EQ(testing::error_of_call([&] { Kernel<SaturatesAHalfMma>(Device::simulator(), sm100a)(out); }),
            fmt::format("{}:{}: tcgen05.mma(..., saturate): saturation clamps the i32 sums of 8-bit integer operands "
                        "(kind::i8); f16 @ f16 into f32 sums in floating point",
                        __FILE__, SaturatesAHalfMma::mma_line));
}

TEST(Tcgen05LowPrecision, EmitsEachKindAndCompilesForSm100a) {
  const KernelOptions sm100a{"sm_100a"};
  f8e4m3* fp8 = nullptr;
  uint8_t* fp4 = nullptr;
  uint32_t* scales = nullptr;
  bf16* c = nullptr;
  Kernel<examples::blackwell::BlackwellF8F6F4Matmul<f8e4m3, f8e4m3>> f8f6f4(Device::simulator(), sm100a);
  EXPECT_NE(f8f6f4.cuda_source(256, 128, 128, fp8, fp8, c).find("tcgen05.mma.cta_group::1.kind::f8f6f4 ["),
            std::string::npos);
  Kernel<examples::blackwell::BlackwellBlockScaledMatmul<f4e2m1, ScaleFormat::ue4m3>> nvfp4(Device::simulator(),
                                                                                            sm100a);
  const std::string source = nvfp4.cuda_source(256, 128, 128, fp4, fp4, scales, scales, c);
  EXPECT_NE(source.find("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X ["), std::string::npos);
  EXPECT_NE(source.find("tcgen05.cp.cta_group::1.32x128b.warpx4 ["), std::string::npos);
  EXPECT_FALSE(f8f6f4.cubin(256, 128, 128, fp8, fp8, c).empty());
  EXPECT_FALSE(nvfp4.cubin(256, 128, 128, fp4, fp4, scales, scales, c).empty());
  Kernel<examples::blackwell::BlackwellBlockScaledMatmul<f8e4m3, ScaleFormat::ue8m0>> mxfp8(Device::simulator(),
                                                                                            sm100a);
  EXPECT_FALSE(mxfp8.cubin(256, 128, 128, fp8, fp8, scales, scales, c).empty());
  uint8_t* u8 = nullptr;
  int8_t* i8 = nullptr;
  int32_t* sums = nullptr;
  Kernel<examples::blackwell::BlackwellF8F6F4Matmul<uint8_t, int8_t>> int8(Device::simulator(), sm100a);
  const std::string int8_source = int8.cuda_source(256, 128, 128, u8, i8, sums);
  std::smatch idesc;
  ASSERT_TRUE(std::regex_search(int8_source, idesc, std::regex(R"(kind::i8 \[.*"r"\(0x([0-9a-f]+)u\))")))
      << int8_source;
  // The instruction descriptor: D s32 (2 in bits 4-5), u8 A (0 in bits 7-9), s8 B (1 in bits 10-12).
  const uint32_t bits = uint32_t(std::stoul(idesc[1].str(), nullptr, 16));
  EXPECT_EQ(bits >> 4 & 3, 2u);
  EXPECT_EQ(bits >> 7 & 7, 0u);
  EXPECT_EQ(bits >> 10 & 7, 1u);
  EXPECT_FALSE(int8.cubin(256, 128, 128, u8, i8, sums).empty());
}

// 16 elements to a 16-byte chunk at its start (PTX ISA 9.7.16.10.4.4): element 16 starts the
// second chunk, and fp6 element 15 ends at bit 96 of its chunk.
TEST(Tcgen05LowPrecision, ChunksHoldSixteenElementsAtTheirStart) {
  ir::SharedTensorNode fp6{DType::F6E2M3, {2, 32}, {32, 1}, nullptr, nullptr, "s", SourceLoc{}, 0};
  fp6.chunks16 = true;
  EXPECT_EQ(fp6.element_bit(15), 90);
  EXPECT_EQ(fp6.element_bit(16), 128);
  EXPECT_EQ(fp6.element_bit(33), 2 * 128 + 6);
  EXPECT_EQ(fp6.nbytes(), 64);
  ir::SharedTensorNode fp4{DType::F4E2M1, {1, 32}, {32, 1}, nullptr, nullptr, "s", SourceLoc{}, 0};
  fp4.chunks16 = true;
  EXPECT_EQ(fp4.element_bit(17), 128 + 4);
  fp4.chunks16 = false;
  EXPECT_EQ(fp4.element_bit(17), 68);
  EXPECT_EQ(fp4.nbytes(), 16);
}

// One block-scaled mma of a [128, K] by [128, K]ᵀ of T, with scales of `Format` in tiles of
// `ScaleColumns` columns, copied from a shared tile of `SourceSwizzle`.
template <class T, ScaleFormat Format, int K, int ScaleColumns = 4, Swizzle SourceSwizzle = Swizzle::none>
struct ScaledMma : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({128, K});
    auto s_b = shared_tensor<T>({128, K});
    auto s_scales = shared_tensor<uint32_t>({32, 4}, SourceSwizzle);
    auto t = tcgen05.alloc<float>({128, 128});
    auto t_scales = tcgen05.alloc<uint32_t>({128, ScaleColumns});
    single_warp([&] {
      line = __LINE__ + 1;
      tcgen05.copy(s_scales, tcgen05.slice(t_scales, {0, 0}, {128, 4}, {0, 1}));
      mma_line = __LINE__ + 1;
      tcgen05.mma(s_a, s_b.transpose(), t, false, BlockScales{t_scales, t_scales, Format});
    });
    tcgen05.dealloc(t_scales);
    tcgen05.dealloc(t);
  }
};

// An unscaled mma of [128, K] by [128, K]ᵀ of T.
template <class T, int K> struct UnscaledMma : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<T>({128, K});
    auto s_b = shared_tensor<T>({128, K});
    auto t = tcgen05.alloc<float>({128, 128});
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s_a, s_b.transpose(), t, false);
    });
    tcgen05.dealloc(t);
  }
};

// An unscaled mma of [128, K] by [128, K]ᵀ of T in tiles of 16-element chunks.
template <class T, int K> struct ChunkedTile : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    auto s_a = shared_tensor<T>({128, K}, Packing::chunks16);
    auto s_b = shared_tensor<T>({128, K}, Packing::chunks16);
    auto t = tcgen05.alloc<float>({128, 128});
    single_warp([&] { tcgen05.mma(s_a, s_b.transpose(), t, false); });
    tcgen05.dealloc(t);
  }
};

template <class S> std::string compile_error() {
  try {
    Kernel<S>(Device::simulator(), KernelOptions{"sm_100a"}).cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Tcgen05LowPrecision, MisuseIsReportedAtTheUsersLine) {
  std::string got;
  got = compile_error<UnscaledMma<f4e2m1, 128>>();
  EXPECT_EQ(got, at(mma_line,
                    "tcgen05.mma: without block scales, it takes f16 or bf16 operands of one type (kind::f16), tf32 "
                    "operands (kind::tf32), or e4m3, e5m2, e2m3, e3m2 and e2m1 operands in any pairing, the last "
                    "three in tiles created with Packing::chunks16 (kind::f8f6f4), and an f32 accumulator, or i8 and "
                    "u8 operands in any pairing and an i32 accumulator (kind::i8); f4e2m1 pairs (Packing::dense) "
                    "take block scales (BlockScales); got f4e2m1 @ f4e2m1 into f32"));
  got = compile_error<UnscaledMma<int8_t, 128>>();  // 8-bit integers into an f32 accumulator
  EXPECT_EQ(got, at(mma_line,
                    "tcgen05.mma: without block scales, it takes f16 or bf16 operands of one type (kind::f16), tf32 "
                    "operands (kind::tf32), or e4m3, e5m2, e2m3, e3m2 and e2m1 operands in any pairing, the last "
                    "three in tiles created with Packing::chunks16 (kind::f8f6f4), and an f32 accumulator, or i8 and "
                    "u8 operands in any pairing and an i32 accumulator (kind::i8); f4e2m1 pairs (Packing::dense) "
                    "take block scales (BlockScales); got i8 @ i8 into f32"));
  got = compile_error<ScaledMma<f8e4m3, ScaleFormat::ue4m3, 128>>();
  EXPECT_EQ(got, at(mma_line,
                    "tcgen05.mma: with ue4m3 block scales, it takes f4e2m1 pairs of one type, Packing::dense "
                    "(kind::mxf4nvf4, NVFP4), and an f32 accumulator; got f8e4m3 @ f8e4m3 into f32"));
  got = compile_error<UnscaledMma<f8e4m3, 48>>();
  EXPECT_EQ(got,
            at(mma_line,
               "tcgen05.mma: k = 48 does not fit; with f8e4m3 operands k must be 32, 64 or 128 (one instruction per "
               "32, and shared rows of 32, 64 or 128 bytes, one swizzle span)"));
  // NVFP4 over k = 256: 4 instructions of 4 scales each, 4 groups of 4 columns.
  got = compile_error<ScaledMma<f4e2m1, ScaleFormat::ue4m3, 256, 8>>();
  EXPECT_EQ(got,
            at(mma_line,
               "tcgen05.mma: the block scales of a must be a u32 tile of tensor memory [128, c] at lane 0 with c >= "
               "16 (this mma reads 4 groups of 4 columns, four scales per cell); got u32[128, 8] at lane 0"));
  got = compile_error<ScaledMma<f8e4m3, ScaleFormat::ue8m0, 128, 4, Swizzle::b128>>();
  EXPECT_EQ(got,
            at(line,
               "tcgen05.copy: a [32, 4] source is read as 32 rows of 16 bytes, one after another without swizzle; "
               "give a whole row-major tile created with Swizzle::none (this view has strides [4, 1] and its tile a "
               "swizzle)"));
  got = compile_error<ChunkedTile<f6e2m3, 40>>();
  EXPECT_EQ(got, at(line,
                    "shared_tensor<f6e2m3>({128, 40}, Packing::chunks16): chunks of 16 hold f6e2m3, f6e3m2 or f4e2m1 "
                    "elements, and rows of a multiple of 16 of them"));
  got = compile_error<ChunkedTile<i4, 64>>();
  EXPECT_EQ(got, at(line,
                    "shared_tensor<i4>({128, 64}, Packing::chunks16): chunks of 16 hold f6e2m3, f6e3m2 or f4e2m1 "
                    "elements, and rows of a multiple of 16 of them"));
  EXPECT_EQ((compile_error<ChunkedTile<f6e3m2, 128>>()), "no error");
  EXPECT_EQ((compile_error<ScaledMma<f4e2m1, ScaleFormat::ue4m3, 256, 16>>()), "no error");
  EXPECT_EQ((compile_error<ScaledMma<f8e4m3, ScaleFormat::ue8m0, 128>>()), "no error");
}

int store_line = 0;

// Writes the scales while the mma that reads them may still be running: a race the simulator
// names, with the mma's line.
struct ScalesOverwrittenBeforeTheCommit : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f8e4m3>({128, 128});
    auto s_b = shared_tensor<f8e4m3>({128, 128});
    store_shared(s_a, register_tensor<f8e4m3>({128, 128}, 1.0f));
    store_shared(s_b, register_tensor<f8e4m3>({128, 128}, 1.0f));
    fence.proxy_async();
    auto t = tcgen05.alloc<float>({128, 128});
    auto t_scales = tcgen05.alloc<uint32_t>({128, 4});
    auto bars = mbarrier.alloc({1});
    tcgen05.store(t_scales, register_tensor<uint32_t>({128, 4}, 0x7F7F7F7Fu));
    tcgen05.wait_store();
    sync();
    single_warp([&] {
      mma_line = __LINE__ + 1;
      tcgen05.mma(s_a, s_b.transpose(), t, false, BlockScales{t_scales, t_scales, ScaleFormat::ue8m0});
      tcgen05.commit(bars[0]);
    });
    store_line = __LINE__ + 1;
    tcgen05.store(t_scales, register_tensor<uint32_t>({128, 4}, 0x80808080u));
    mbarrier.wait(bars[0], 0u);
    sync();
    tcgen05.dealloc(t_scales);
    tcgen05.dealloc(t);
  }
};

TEST(Tcgen05LowPrecision, OverwritingScalesTheMmaMayStillReadIsReported) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(1, f16(1.0f)));
  Buffer<float> c(dev, std::vector<float>(1, 0.0f));
  std::string got = "no error";
  try {
    Kernel<ScalesOverwrittenBeforeTheCommit>(
        dev, KernelOptions{.arch = "sm_100a", .sim = {.completion = sim::CompletionOrder::Lazy}})(a, a, c);
  } catch (const Error& e) {
    got = std::regex_replace(e.what(), std::regex("warp [0-9] of"), "warp W of");
  }
  EXPECT_EQ(got, at(store_line, fmt::format("tcgen05.store of tensor memory that the tcgen05.mma issued at {}:{} may "
                                            "still be reading as block scales (warp W of block (0, 0, 0)); wait for "
                                            "the phase of the mbarrier its tcgen05.commit arrives on (mbarrier.wait) "
                                            "first",
                                            __FILE__, mma_line)));
}

}  // namespace
}  // namespace tessel::testing
