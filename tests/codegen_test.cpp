// Code generation: every example compiles with NVRTC for every target (no GPU needed), and the
// emitted CUDA contains the intended constructs.
#include <gtest/gtest.h>

#include "examples.hpp"
#include "filecheck.hpp"
#include "tensor_core_kernels.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel {
namespace {

TEST(CodegenSweep, EveryExampleCompilesForEveryTarget) {
  for (const auto& e : examples::registry().entries())
    for (const std::string& arch : e.targets) {
      const std::string source = e.cuda(e.default_sizes, arch);
      runtime::CompileRequest req{source, e.name, arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
      const runtime::CompileResult r = runtime::compile_to_cubin(req);
      ASSERT_GE(r.cubin.size(), 4u) << e.name << " " << arch;
      EXPECT_EQ(std::string(r.cubin.data() + 1, 3), "ELF") << e.name << " " << arch;
    }
}

// What the sweep above compiles, emitted: every example's CUDA for every target, without NVRTC.
TEST(Codegen, EveryExampleEmitsCudaForEveryTarget) {
  for (const auto& e : examples::registry().entries())
    for (const std::string& arch : e.targets) {
      const std::string source = e.cuda(e.default_sizes, arch);
      EXPECT_NE(source.find("extern \"C\" __global__ void"), std::string::npos) << e.name << " " << arch;
    }
}

// The printer checks that each instruction's line shows every operand its kind lists, so printing
// every example before and after lowering covers every instruction the examples use.
TEST(Codegen, EveryExamplePrintsEveryOperandOfEveryInstruction) {
  for (const auto& e : examples::registry().entries())
    for (const std::string& arch : e.targets)
      for (const bool lowered : {false, true}) {
        const std::string text = ir::print(*e.tracer(e.default_sizes, lowered, arch, ""));
        EXPECT_NE(text.find("kernel "), std::string::npos) << e.name << " " << arch;
      }
}

TEST(Codegen, VectorAddReadsWhoRunsWhatAndMasksTheTail) {
  // n = 1001: the 4-element run at the end is partly inside, so it moves element by element.
  const std::string src = examples::find_example("vector_add").cuda({1001}, "sm_90a");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: #include "tessel_device.h"
    CHECK: extern "C" __global__ void __launch_bounds__(128) tessel_VectorAdd(int32_t n, float* a, float* b, float* c)
    CHECK: // load_global [warps 0..3] (
    CHECK-NEXT: float r[16];  // f32 layout[2048](d0=4x128x4; threads=d0.1; local=d0.0,d0.2)
    CHECK: if (c0 >= 0 && c0 + 4 <= n) {
    CHECK-NEXT: tessel_load_vec<float, 4>(&r[lv], p);
    CHECK: r[l] = (c0 >= 0 && c0 < n) ? a[int64_t(c0) * 1] : (float)(0.0f);
    CHECK: // add [warps 0..3]
    CHECK: // store_global [warps 0..3]
    CHECK: tessel_store_vec<float, 4>(p, &r_2[lv]);
    CHECK: if (c0 >= 0 && c0 < n) c[int64_t(c0) * 1] = r_2[l];
  )"));
}

TEST(Codegen, SoftmaxReducesWithWarpShuffles) {
  const std::string src = examples::find_example("row_softmax").cuda({8, 256}, "sm_90a");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: __int_as_float(0xff800000)
    CHECK: // reduce_max over dim 1
    CHECK: tessel_shfl_xor(0xffffffffu, acc0, 1)
    CHECK: tessel_shfl_xor(0xffffffffu, acc0, 16)
    CHECK: expf(
    CHECK: // reduce_sum over dim 1
    CHECK-NOT: __syncthreads
    CHECK: // store_global
  )"));
}

TEST(Codegen, SimtMatmulStagesThroughSharedMemory) {
  const std::string src = examples::find_example("matmul_simt").cuda({128, 128, 64}, "sm_80");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: extern __shared__ __align__(1024) unsigned char tessel_smem[];
    CHECK: // shared s<f16>[16, 128] at byte 0
    CHECK: // shared s_1<f16>[16, 128] at byte 4096
    CHECK: for (int32_t i = 0; i < 64; i += 16) {
    CHECK: tessel_load_vec<tessel_f16, 8>
    CHECK: // store_shared [warps 0..7]
    CHECK: __syncthreads();
    CHECK: // fma [warps 0..7]
    CHECK: fmaf(
    CHECK: __syncthreads();
    CHECK: // cast f32 -> f16
    CHECK: // store_global
  )"));
}

TEST(Codegen, TensorCoreLadderUsesCpAsyncLdmatrixAndMma) {
  const std::string src = examples::find_example("ampere_v5_swizzled").cuda({256, 256, 128}, "sm_80");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // shared s<f16>[3, 128, 32] at byte 0
    CHECK: cp.async.cg.shared.global [%0], [%1], 16, %2;
    CHECK: cp.async.commit_group;
    CHECK: cp.async.wait_group %0;
    CHECK: __syncthreads();
    CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
    CHECK: tessel_swizzle<2>(
    CHECK: // load_shared
    CHECK-NOT: ldmatrix.sync.aligned.m8n8.x2
    CHECK: const int k = 0 + ((lane / 8) % 2) * 8, col = 0 + (warp % 2) * 8 + lane % 8 + (lane / 16) * 16;
    CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
    CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  )")) << src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    CompileStats stats;
    EXPECT_GT(examples::find_example("ampere_v5_swizzled").compile({256, 256, 128}, arch, "", &stats).size(), 0u);
  }
}

TEST(Codegen, IntegerDotUsesTheS8MmaWithPackedOperands) {
  Kernel<testing::IntegerDot> k(Device::simulator());
  const std::string src =
      k.cuda_source(128, 128, 128, (i8*)nullptr, (i8*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // dot on tensor cores: mma.sync m16n8k32, 2x2 warps
    CHECK: asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3]) : "r"(tessel_pack4(r_4[0], r_4[1], r_4[2], r_4[3])),
  )")) << src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    runtime::CompileRequest req{src, "IntegerDot", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << arch;
  }
}

TEST(Codegen, SaturatingDotSpellsSatfinite) {
  Kernel<testing::SaturatingDot> k(Device::simulator());
  const std::string src =
      k.cuda_source(128, 128, 128, (i8*)nullptr, (u8*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32
  )")) << src;
  runtime::CompileRequest req{
      src, "SaturatingDot", "sm_80", {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
  EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u);
}

TEST(Codegen, IntegerDotNamesEachOperandsSignedness) {
  Kernel<testing::UnsignedSignedDot> k(Device::simulator());
  const std::string src =
      k.cuda_source(128, 128, 128, (u8*)nullptr, (i8*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
  )")) << src;
  runtime::CompileRequest req{
      src, "UnsignedSignedDot", "sm_80", {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
  EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u);
}

TEST(Codegen, Fp8DotUsesTheFp8MmaWithPackedOperands) {
  Kernel<testing::Fp8MixedDot> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string src =
      k.cuda_source(128, 128, 128, (f8e5m2*)nullptr, (f8e4m3*)nullptr, (float*)nullptr, (float*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // dot on tensor cores: mma.sync m16n8k32, 2x2 warps
    CHECK: asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"(acc[0]),
  )")) << src;
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    runtime::CompileRequest req{src, "Fp8MixedDot", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << arch;
  }
}

TEST(Codegen, SharedStoresAreVectorizedWhereRowsAllowIt) {
  const std::string src = examples::find_example("ampere_v3_mma").cuda({128, 128, 64}, "sm_80");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // store_shared [warps 0..3]
    CHECK: for (int lv = 0; lv < 32; lv += 8) {
    CHECK: tessel_store_vec<tessel_f16, 8>(&*reinterpret_cast<tessel_f16*>(tessel_smem + 0 + (c0 * 32 + c1 * 1) * 2), &r_1[lv]);
  )")) << src;
  // Into a transposed view the elements of a run are 128 apart: element by element.
  const std::string simt = examples::find_example("matmul_simt").cuda({128, 128, 64}, "sm_80");
  EXPECT_TRUE(testing::file_check(simt, R"(
    CHECK: // store_shared [warps 0..7]
    CHECK-NOT: tessel_store_vec
    CHECK: *reinterpret_cast<tessel_f16*>(tessel_smem + 0 + (c0 * 1 + c1 * 128) * 2) = r_1[l];
  )")) << simt;
}

template <class S> std::string epilogue_cuda(const char* arch) {
  Kernel<S> k(Device::simulator(), KernelOptions{arch});
  return k.cuda_source((f16*)nullptr, (f16*)nullptr, (f16*)nullptr);
}

TEST(Codegen, AccumulatorFragmentsAreStoredWithStmatrixOnSm90) {
  const std::string x4 = epilogue_cuda<testing::EpilogueThroughShared>("sm_90a");
  EXPECT_TRUE(testing::file_check(x4, R"(
    CHECK: // store_shared [warps 0..3]
    CHECK: const int row = 0 + (warp / 2) * 16 + lane % 16, col = 0 + (warp % 2) * 8 + ((lane / 16) % 2) * 16;
    CHECK: asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(uint32_t(__cvta_generic_to_shared(&*reinterpret_cast<tessel_f16*>(tessel_smem + 4096 + tessel_swizzle<3>((row * 64 + col) * 2))))), "r"(tessel_pack2(r_4[0], r_4[1])), "r"(tessel_pack2(r_4[2], r_4[3])), "r"(tessel_pack2(r_4[4], r_4[5])), "r"(tessel_pack2(r_4[6], r_4[7])) : "memory");
    CHECK: tessel_smem + 4096 + tessel_swizzle<3>((row * 64 + col + 32) * 2)
    CHECK: tessel_smem + 4096 + (2048) * 2 + tessel_swizzle<3>((row * 64 + col) * 2)
    CHECK: tessel_smem + 4096 + (2048) * 2 + tessel_swizzle<3>((row * 64 + col + 32) * 2)
  )")) << x4;
  // Rows of 128 bytes written 8 at a time by stmatrix: choose_swizzles gives the tile the 128-byte
  // pattern on sm_90+, and none on sm_80 where the store is element by element.
  Kernel<testing::EpilogueThroughShared> k90(Device::simulator(), KernelOptions{"sm_90a"});
  EXPECT_TRUE(testing::file_check(ir::print(*k90.lowered((f16*)nullptr, (f16*)nullptr, (f16*)nullptr)),
                                  "CHECK: alloc_shared<f16>[64, 64] offset=4096 swizzle=128B"));
  const std::string x2 = epilogue_cuda<testing::EpilogueWithOddAtoms>("sm_100a");
  EXPECT_TRUE(testing::file_check(x2, R"(
    CHECK: // store_shared [warps 0..3]
    CHECK: asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
  )")) << x2;
  const std::string sm80 = epilogue_cuda<testing::EpilogueThroughShared>("sm_80");
  EXPECT_EQ(sm80.find("stmatrix"), std::string::npos) << "stmatrix needs sm_90";
  for (const auto& [source, arch] : {std::pair{x4, "sm_90a"}, {x2, "sm_100a"}, {sm80, "sm_80"}}) {
    runtime::CompileRequest req{source, "Epilogue", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << arch;
  }
}

// Warps 1-2 store as one role (a warp-aligned group, with a single warp nested in it), threads
// 96-111 as another (part of a warp).
struct RolesByWarpAndByThread : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto g = global_view(out, {128});
    thread_group(32, 64, [&] {
      store_global(g, register_tensor<int32_t>({64}, 1), {0});
      single_warp([&] { store_global(g, register_tensor<int32_t>({32}, 2), {64}); });
    });
    thread_group(96, 16, [&] { store_global(g, register_tensor<int32_t>({16}, 3), {96}); });
  }
};

TEST(Codegen, ThreadGroupsOfWholeWarpsBranchOnAWarpUniformIndex) {
  Kernel<RolesByWarpAndByThread> k(Device::simulator());
  const std::string src = k.cuda_source((int32_t*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: extern "C" __global__
    CHECK-NEXT: const int tessel_warp = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);  // warp-uniform
    CHECK: // thread group: warps 1..2 (
    CHECK-NEXT: if (tessel_warp >= 1 && tessel_warp < 3) {
    CHECK: // store_global [warps 1..2]
    CHECK: // thread group: warps 1..1 (
    CHECK-NEXT: if (tessel_warp == 1) {
    CHECK: // store_global [warps 1..1]
    CHECK: // thread group: threads 96..111 (
    CHECK-NEXT: tessel_sync_lanes(0xffffffffu);
    CHECK-NEXT: if (threadIdx.x >= 96 && threadIdx.x < 112) {
    CHECK: // store_global [threads 96..111]
    CHECK: tessel_sync_lanes(0xffffffffu);
    CHECK-NEXT: }
  )")) << src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    runtime::CompileRequest req{
        src, "RolesByWarpAndByThread", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << arch;
  }
  // Kernels without such groups do not compute the index.
  EXPECT_EQ(examples::find_example("vector_add").cuda({1000}, "sm_90a").find("tessel_warp"), std::string::npos);
}

// A kernel whose lanes may have left by return_() when its group starts.
struct RoleOfTheFirstThreadsThatMayReturn : Script {
  void operator()(Ptr<int32_t> out, Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    if_(thread_index() >= n, [&] { return_(); });
    thread_group(0, 16, [&] { store_global(global_view(out, {16}), register_tensor<int32_t>({16}, 1), {0}); });
  }
};

// A TMA copy that the first thread issues for its warp lies between meetings of the warp's lanes,
// and so does a single_thread's arrival: what the lanes did before is ordered before the issue, and
// what they do after after it. In the producer's loop, the lanes that meet are those converged
// there; in a kernel that may return_, too.
TEST(Codegen, OneThreadIssuesForItsWarpBetweenMeetingsOfItsLanes) {
  const std::string src = examples::find_example("hopper_v5").cuda({512, 512, 512}, "sm_90a");
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // thread group: threads 0..0 (
    CHECK-NEXT: tessel_sync_lanes(0xffffffffu);
    CHECK-NEXT: if (threadIdx.x < 1) {
    CHECK: mbarrier.arrive.expect_tx
    CHECK: }
    CHECK-NEXT: tessel_sync_lanes(__activemask());
    CHECK: // tma.global_to_shared [warps 0..0]
    CHECK-NEXT: tessel_sync_lanes(__activemask());
    CHECK-NEXT: if (int(threadIdx.x) == 0) {
    CHECK-NEXT: cp.async.bulk.tensor
    CHECK-NEXT: }
    CHECK-NEXT: tessel_sync_lanes(__activemask());
  )")) << src;
  const std::string returns =
      Kernel<RoleOfTheFirstThreadsThatMayReturn>(Device::simulator()).cuda_source((int32_t*)nullptr, int32_t(3));
  EXPECT_TRUE(testing::file_check(returns, R"(
    CHECK: return;
    CHECK: // thread group: threads 0..15 (
    CHECK-NEXT: tessel_sync_lanes(__activemask());
  )")) << returns;
}

// A masked global access tests, run by run, only what trace-time constants leave open: the columns
// of a view 64 wide at column 0 need no test, nor does the alignment of a tile whose origin and
// strides are proven aligned, and a run there is wholly inside or wholly outside, so none moves
// element by element; at column `column + 1` (an integer parameter is specialized on its
// divisibility, so `column` alone is aligned) all of them stay.
struct RowsOfAFixedWidth : Script {
  static constexpr const char* param_names[] = {"n", "column", "out"};
  void operator()(Int32 n, Int32 column, Ptr<float> out) {
    attrs.blocks = cdiv(n, 16);
    attrs.warps = 4;
    auto g = global_view(out, {n, 64});
    store_global(g, register_tensor<float>({16, 64}, 1.0f), {blockIdx.x * 16, 0});
    store_global(g, register_tensor<float>({16, 32}, 2.0f), {blockIdx.x * 16, column + 1});
  }
};

TEST(Codegen, MaskedAccessesTestOnlyWhatConstantsLeaveOpen) {
  const std::string src = Kernel<RowsOfAFixedWidth>(Device::simulator()).cuda_source(0, 0, (float*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // store_global [warps 0..3]
    CHECK: if (c0 >= 0 && c0 < n) {
    CHECK-NEXT: tessel_store_vec<float, 4>(p,
    CHECK-NEXT: }
    CHECK-NEXT: }
    CHECK: // store_global [warps 0..3]
    CHECK: if (c0 >= 0 && c0 < n && c1 >= 0 && c1 + 4 <= 64 && (reinterpret_cast<uint64_t>(p) % 16) == 0) {
    CHECK-NEXT: tessel_store_vec<float, 4>(p,
    CHECK: if (c0 >= 0 && c0 < n && c1 >= 0 && c1 < 64) out[
  )")) << src;
}

struct RoleOfTheFirstThreads : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    thread_group(0, 16, [&] { store_global(global_view(out, {16}), register_tensor<int32_t>({16}, 1), {0}); });
  }
};

// threadIdx.x is unsigned, so `threadIdx.x >= 0` would only draw a warning from nvcc.
TEST(Codegen, AGroupFromThreadZeroTestsOnlyItsEnd) {
  const std::string src = Kernel<RoleOfTheFirstThreads>(Device::simulator()).cuda_source((int32_t*)nullptr);
  EXPECT_TRUE(testing::file_check(src, R"(
    CHECK: // thread group: threads 0..15 (
    CHECK-NEXT: tessel_sync_lanes(0xffffffffu);
    CHECK-NEXT: if (threadIdx.x < 16) {
  )")) << src;
}

}  // namespace
}  // namespace tessel
