// tcgen05 on the simulator against host references under every completion order, the misuse that
// tracing, the passes and the simulator report, and the CUDA and sm_100a cubins the code
// generator makes of it.
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tcgen05_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(Tcgen05, MatmulMatchesTheHostReferenceUnderEveryOrder) {
  for (const KernelOptions& o : testing::every_order_options({.arch = "sm_100a"})) {
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 64, 32>, f16>(o, 256, 128, 128);
    check_tcgen05_matmul<Tcgen05Matmul<bf16, 128, 128, 64>, bf16>(o, 128, 256, 128);
  }
}

TEST(Tcgen05, MatmulMasksSizesThatAreNotTileMultiples) {
  for (const KernelOptions& o : testing::every_order_options({.arch = "sm_100a"})) {
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 64, 32>, f16>(o, 200, 72, 80);
    check_tcgen05_matmul<Tcgen05Matmul<bf16, 128, 32, 16>, bf16>(o, 130, 40, 24);
  }
}

TEST(Tcgen05, WarpSpecializedPipelineMatchesTheHostReferenceUnderEveryOrder) {
  for (const KernelOptions& o : testing::every_order_options({.arch = "sm_100a"})) {
    check_tcgen05_matmul<Tcgen05WarpSpecialized<f16, 128, 64, 64, 3, 32>, f16>(o, 256, 128, 512);
    check_tcgen05_matmul<Tcgen05WarpSpecialized<bf16, 128, 128, 32, 2, 64>, bf16>(o, 200, 136, 120);
  }
}

TEST(Tcgen05, SlicedEpilogueMatchesTheHostReference) {
  for (const KernelOptions& o : testing::every_order_options({.arch = "sm_100a"}))
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 128, 64, 32>, f16>(o, 128, 256, 192);
}

// Stores a [128, 32] tile into tensor memory with four warps, then reads it back as two slices:
// lanes 64..127, columns 8..23 by warps 6 and 7 (quadrants 2 and 3), and lanes 0..63 by warps
// 0 and 1, into rows 64.. and 0.. of the output.
struct StoreAndLoadSlices : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto t = tcgen05.alloc<float>({128, 32});
    auto g_in = global_view(in, {128, 32});
    auto g_out = global_view(out, {128, 16});
    warp_group(1, [&] {
      tcgen05.store(t, load_global(g_in, {0, 0}, {128, 32}));
      tcgen05.wait_store();
    });
    sync();
    thread_group(192, 64, [&] {
      store_global(g_out, tcgen05.load(tcgen05.slice(t, {64, 8}, {64, 16}, {0, 1})), {64, 0});
    });
    thread_group(0, 64, [&] {
      store_global(g_out, tcgen05.load(tcgen05.slice(t, {0, 8}, {64, 16}, {0, 1})), {0, 0});
      tcgen05.wait_load();
    });
    sync();
    tcgen05.dealloc(t);
  }
};

// C = bias + A Bᵀ for one [128, 16] tile: the bias is copied into tensor memory (tcgen05.copy),
// then the mma accumulates onto it; the commit covers both.
struct CopiesTheBiasThenAccumulates : Script {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> bias, Ptr<float> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({128, 32});
    auto s_b = shared_tensor<f16>({16, 32});
    auto s_bias = shared_tensor<float>({128, 16});
    store_shared(s_a, load_global(global_view(a, {128, 32}), {0, 0}, {128, 32}));
    store_shared(s_b, load_global(global_view(b, {16, 32}), {0, 0}, {16, 32}));
    store_shared(s_bias, load_global(global_view(bias, {128, 16}), {0, 0}, {128, 16}));
    fence.proxy_async();
    auto t_acc = tcgen05.alloc<float>({128, 16});
    auto bars = mbarrier.alloc({1});
    single_warp([&] {
      tcgen05.copy(s_bias, t_acc);
      tcgen05.mma(s_a, s_b.transpose(), t_acc, true);
      tcgen05.commit(bars[0]);
      mbarrier.wait(bars[0], 0u);
    });
    sync();
    store_global(global_view(c, {128, 16}), tcgen05.load(t_acc), {0, 0});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

TEST(Tcgen05, CopiedBiasPlusMmaMatchesTheHostReferenceUnderEveryOrder) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<f16> a(128 * 32), b(16 * 32);
  std::vector<float> bias(128 * 16);
  for (auto& x : a) x = f16(dist(rng));
  for (auto& x : b) x = f16(dist(rng));
  for (auto& x : bias) x = dist(rng);
  const Device dev = Device::simulator();
  Buffer<f16> da(dev, a), db(dev, b);
  Buffer<float> dbias(dev, bias);
  for (const KernelOptions& o : testing::every_order_options({.arch = "sm_100a"})) {
    Buffer<float> dc(dev, std::vector<float>(128 * 16, 1e9f));
    Kernel<CopiesTheBiasThenAccumulates>(dev, o)(da, db, dbias, dc);
    const std::vector<float> c = dc.download();
    for (int i = 0; i < 128; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = bias[size_t(i) * 16 + j];
        for (int k = 0; k < 32; ++k)
          want += double(float(a[size_t(i) * 32 + k])) * double(float(b[size_t(j) * 32 + k]));
        ASSERT_NEAR(c[size_t(i) * 16 + j], want, 1e-4 * (1 + std::abs(want))) << i << ", " << j;
      }
  }
  EXPECT_FALSE(Kernel<CopiesTheBiasThenAccumulates>(dev, KernelOptions{"sm_100a"})
                   .cubin((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr)
                   .empty());
}

TEST(Tcgen05, StoresAndLoadsSlicesOnEachWarpsLaneQuadrant) {
  std::vector<float> in(128 * 32);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  const Device dev = Device::simulator();
  Buffer<float> d_in(dev, in), d_out(dev, std::vector<float>(128 * 16, -1.0f));
  Kernel<StoreAndLoadSlices>(dev, KernelOptions{.arch = "sm_100a"})(d_in, d_out);
  const std::vector<float> out = d_out.download();
  for (int row = 0; row < 128; ++row)
    for (int col = 0; col < 16; ++col) ASSERT_EQ(out[size_t(row) * 16 + col], in[size_t(row) * 32 + col + 8]) << row;
  EXPECT_FALSE(
      Kernel<StoreAndLoadSlices>(dev, KernelOptions{"sm_100a"}).cubin((float*)nullptr, (float*)nullptr).empty());
}

}  // namespace
}  // namespace tessel::testing

namespace tessel::testing {
namespace {

using SmallMatmul = Tcgen05Matmul<f16, 128, 64, 32>;

TEST(Tcgen05Codegen, EmitsTheAllocationHandshakeDescriptorsAndWarpQuadrants) {
  Kernel<Tcgen05Matmul<f16, 128, 64, 32, 32>> k(Device::simulator(), KernelOptions{"sm_100a"});
  const std::string src = k.cuda_source(0, 64, 64, (f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // tcgen05.alloc of 64 columns of tensor memory, by one warp
    CHECK-NEXT: asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
    CHECK-SAME: "n"(64)
    CHECK-NEXT: asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");  // the kernel's last alloc
    CHECK-NEXT: asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    CHECK: __syncthreads();
    CHECK: // tcgen05.mma.kind::f16 m128n64k16 x 2, issued by one thread of the warp
    CHECK: asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, tessel_d_%=;"
    CHECK-SAME: "l"((uint64_t(0x80004020u) << 32 | (0x10000u + (tessel_smem_base >> 4) + (uint32_t(0 + (0) * 2) >> 4))))
    CHECK-SAME: "r"(0x8100010u), "r"(uint32_t((i != 0)))
    CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f16
    CHECK-SAME: (16) * 2)
    CHECK-SAME: "r"(0x8100010u), "r"(1u)
    CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];
    CHECK: // tcgen05.ld 32x32b and wait::ld, by each warp on its lane quadrant
    CHECK: const uint32_t tessel_taddr = (*reinterpret_cast<volatile uint32_t*>(tessel_smem +
    CHECK-SAME: (uint32_t(0 + 32 * (int(threadIdx.x) / 32)) << 16)
    CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0,
    CHECK-SAME: tcgen05.wait::ld.sync.aligned;
    CHECK: tcgen05.wait::ld.sync.aligned;" ::: "memory");
    CHECK-NEXT: tcgen05.fence::before_thread_sync;
    CHECK: // tcgen05.dealloc, by one warp
    CHECK-NEXT: tcgen05.fence::after_thread_sync;
    CHECK-NEXT: tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;
    CHECK-SAME: "n"(64)
  )")) << src;
}

TEST(Tcgen05Codegen, CompilesForSm100a) {
  for (const std::vector<char>& cubin :
       {Kernel<SmallMatmul>(Device::simulator(), KernelOptions{"sm_100a"})
            .cubin(0, 64, 64, (f16*)nullptr, (f16*)nullptr, (float*)nullptr),
        Kernel<Tcgen05Matmul<bf16, 128, 256, 64, 64>>(Device::simulator(), KernelOptions{"sm_100a"})
            .cubin(0, 256, 64, (bf16*)nullptr, (bf16*)nullptr, (float*)nullptr),
        // The seeds' largest V0 tile, read back whole: 256 registers of accumulator per thread.
        Kernel<Tcgen05Matmul<f16, 128, 256, 64>>(Device::simulator(), KernelOptions{"sm_100a"})
            .cubin(0, 256, 64, (f16*)nullptr, (f16*)nullptr, (float*)nullptr),
        Kernel<Tcgen05WarpSpecialized<f16, 128, 128, 64, 4, 32>>(Device::simulator(), KernelOptions{"sm_100a"})
            .cubin(0, 128, 256, (f16*)nullptr, (f16*)nullptr, (float*)nullptr)})
    EXPECT_FALSE(cubin.empty());
}

}  // namespace
}  // namespace tessel::testing
