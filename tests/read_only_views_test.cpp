// Read-only views (ld.global.nc) and L1 hints: the values are those of plain accesses (on the
// simulator, under several orders), each access carries its qualifiers in the generated code, which
// NVRTC assembles for every target, misuse is refused at its line, and a write of bytes that a
// read-only view's load reads in the same launch is reported by the simulator, in either order.
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "read_only_kernels.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kKernels = "tests/read_only_kernels.hpp";
constexpr const char* kWhy =
    ": ld.global.nc reads through the non-coherent cache, which may keep the old bytes, so nothing may write a "
    "read-only view's bytes while the kernel runs; drop read_only() from the views of bytes the kernel writes";
constexpr const char* kRefused =
    "): its loads read through the non-coherent cache (ld.global.nc), which may keep the old bytes, so nothing may "
    "write them while the kernel runs; drop read_only() from the views of bytes the kernel writes";

KernelOptions on_simulator(const char* arch, uint64_t seed) {
  KernelOptions options{arch};
  options.sim.seed = seed;
  return options;
}

TEST(ReadOnlyViews, QualifiedLoadsAndStoresComputeWhatPlainOnesDo) {
  for (uint64_t seed : {1, 2, 3})
    for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{70, 131}}) {
      check_qualified_loads_and_stores<float>(Device::simulator(), m, n, on_simulator("sm_80", seed));
      check_qualified_loads_and_stores<f16>(Device::simulator(), m, n, on_simulator("sm_90a", seed));
      check_qualified_loads_and_stores<int8_t>(Device::simulator(), m, n, on_simulator("sm_90a", seed));
    }
  check_read_only_packed_load(Device::simulator(), 70, on_simulator("sm_90a", 1));
}

TEST(ReadOnlyViews, EveryAccessCarriesItsViewsQualifiers) {
  Kernel<QualifiedLoadsAndStores<f16>> k(Device::simulator(), KernelOptions{"sm_80"});
  const std::string src = k.cuda_source(45, 100, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr);
  // One function per combination, defined before the kernel, each access rendered from the PTX table.
  EXPECT_TRUE(file_check(src, R"(
    CHECK: void tessel_load_vec_l1_evict_first(T* dst, const T* p)
    CHECK: ld.global.L1::evict_first.v4.b32 {%0, %1, %2, %3}, [%4];
    CHECK: ld.global.L1::evict_first.b8 %0, [%1];
    CHECK: void tessel_load_vec_nc_l1_evict_last(T* dst, const T* p)
    CHECK: ld.global.nc.L1::evict_last.v4.b32 {%0, %1, %2, %3}, [%4];
    CHECK: void tessel_load_vec_nc_l1_no_allocate_l2_evict_first(T* dst, const T* p)
    CHECK: ld.global.nc.L1::no_allocate.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;
    CHECK: ld.global.nc.L1::no_allocate.L2::cache_hint.b16 %0, [%1], %2;
    CHECK: void tessel_store_vec_l1_no_allocate_l2_evict_last(T* p, const T* src)
    CHECK: st.global.L1::no_allocate.L2::cache_hint.v2.b32 [%0], {%1, %2}, %3;
    CHECK: st.global.L1::no_allocate.L2::cache_hint.b32 [%0], %1, %2;
    CHECK: extern "C" __global__
    CHECK: // load_global
    CHECK: tessel_load_vec_nc_l1_no_allocate_l2_evict_first<tessel_f16, 8>(
    CHECK: tessel_load_vec_nc_l1_no_allocate_l2_evict_first<tessel_f16, 1>(
    CHECK: // load_global
    CHECK: tessel_load_vec_nc_l1_evict_last<tessel_f16, 8>(
    CHECK: // load_global
    CHECK: tessel_load_vec_l1_evict_first<tessel_f16, 8>(
    CHECK: // store_global
    CHECK: tessel_store_vec_l1_no_allocate_l2_evict_last<tessel_f16, 8>(
    CHECK: tessel_store_vec_l1_no_allocate_l2_evict_last<tessel_f16, 1>(
  )")) << src;
  EXPECT_NE(src.find("\"l\"(tessel_l2_policy_evict_first())"), std::string::npos);
  Kernel<ReadOnlyPackedLoad> packed(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string packed_src = packed.cuda_source(70, (uint8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_NE(packed_src.find("tessel_load_vec_nc_l1_no_allocate<uint32_t, "), std::string::npos) << packed_src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    EXPECT_FALSE(Kernel<QualifiedLoadsAndStores<f16>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<QualifiedLoadsAndStores<float>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (float*)nullptr, (float*)nullptr, (float*)nullptr, (float*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<QualifiedLoadsAndStores<int8_t>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (int8_t*)nullptr, (int8_t*)nullptr, (int8_t*)nullptr, (int8_t*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<ReadOnlyPackedLoad>(Device::simulator(), KernelOptions{arch})
                     .cubin(70, (uint8_t*)nullptr, (int32_t*)nullptr)
                     .empty());
  }
}

TEST(ReadOnlyViews, TheIrNamesTheQualifiers) {
  Kernel<QualifiedLoadsAndStores<float>> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string ir =
      ir::print(*k.traced(45, 100, (float*)nullptr, (float*)nullptr, (float*)nullptr, (float*)nullptr));
  EXPECT_NE(ir.find("strides=[mul(1, %arg1), 1], cache_hint=evict_first, l1_hint=no_allocate, read_only)"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("strides=[mul(1, %arg1), 1], l1_hint=evict_last, read_only)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("strides=[mul(1, %arg1), 1], cache_hint=evict_last, l1_hint=no_allocate)"), std::string::npos)
      << ir;
}

TEST(ReadOnlyViews, WritesThroughAReadOnlyViewAreRefused) {
  Buffer<float> out(Device::simulator(), std::vector<float>(32 * 32, 1.0f));
  const std::string store = source_at(kKernels, "store_global(global_view(out, {32}).read_only()");
  EXPECT_EQ(error_of_call([&] { Kernel<StoreThroughReadOnlyView>(Device::simulator())(out); }),
            store + ": store_global: the view is read-only (made read_only() at " + store + kRefused);
  const std::string scatter = source_at(kKernels, "store_global_scatter(global_view(out, {32}).read_only()");
  EXPECT_EQ(error_of_call([&] { Kernel<ScatterThroughReadOnlyView>(Device::simulator())(out); }),
            scatter + ": store_global_scatter: the view is read-only (made read_only() at " + scatter + kRefused);
  const std::string tma = source_at(kKernels, "tma.shared_to_global(s, global_view(out, {32, 32}).read_only()");
  EXPECT_EQ(
      error_of_call([&] { Kernel<TmaStoreThroughReadOnlyView>(Device::simulator(), KernelOptions{"sm_90a"})(out); }),
      tma + ": tma.shared_to_global: the view is read-only (made read_only() at " + tma + kRefused);
  EXPECT_EQ(error_of_call([&] { Kernel<AtomicThroughReadOnlyView>(Device::simulator())(out); }),
            source_at(kKernels, "atomic.add(g, register_tensor<float>({32}, 1.0f), {0});") +
                ": atomic.add: the view is read-only (made read_only() at " +
                source_at(kKernels, "auto g = global_view(sums, {32}).read_only();") + kRefused);
}

TEST(ReadOnlyViews, L1HintsWhereNoL1IsPassedAreRefused) {
  Buffer<float> in(Device::simulator(), std::vector<float>(32 * 32, 1.0f));
  EXPECT_EQ(error_of_call([&] { Kernel<CopyAsyncFromL1HintedView>(Device::simulator())(in); }),
            source_at(kKernels, "copy_async(global_view(in, {32}).with_l1_hint(L1Hint::no_allocate), s, {0});") +
                ": copy_async: cp.async takes no L1 hint (it caches in L1 by its size: .ca for 4 and 8 bytes, .cg, "
                "which bypasses L1, for 16), and this view has L1 hint no_allocate; pass the view without "
                "with_l1_hint");
  EXPECT_EQ(error_of_call([&] { Kernel<TmaFromL1HintedView>(Device::simulator(), KernelOptions{"sm_90a"})(in); }),
            source_at(kKernels, "tma.global_to_shared(global_view(in, {32, 32}).with_l1_hint(") +
                ": tma.global_to_shared: TMA copies do not pass through L1, and this view has L1 hint evict_last; "
                "pass the view without with_l1_hint");
  Buffer<int32_t> counts(Device::simulator(), std::vector<int32_t>{0});
  EXPECT_EQ(error_of_call([&] { Kernel<AtomicThroughL1HintedView>(Device::simulator())(counts); }),
            source_at(kKernels, "single_thread([&] { atomic.add(global_view(counts, {1}).with_l1_hint(") +
                ": atomic.add: atomics take no L1 hint, and this view has L1 hint no_allocate; pass the view without "
                "with_l1_hint");
}

TEST(ReadOnlyViews, TheSimulatorReportsAWriteAfterARead) {
  Buffer<float> data(Device::simulator(), random_values<float>(32, 7)), copy(Device::simulator(), 32);
  EXPECT_EQ(error_of_call([&] { Kernel<ReadOnlyViewWrittenInLaunch<true>>(Device::simulator())(data, copy); }),
            source_at(kKernels, "store_global(global_view(data, {32}), t + 1.0f, {0});") +
                ": read-only bytes written, global memory, byte 0 of a 128-byte allocation: the store_global at " +
                source_at(kKernels, "store_global(global_view(data, {32}), t + 1.0f, {0});") +
                " by warp 0 of block (0, 0, 0) writes them, and the load_global at " +
                source_at(kKernels, "auto t = load_global(global_view(data, {32}).read_only(), {0}, {32});") +
                " by warp 0 of block (0, 0, 0) read them through a read-only view in this launch" + kWhy);
}

TEST(ReadOnlyViews, TheSimulatorReportsAReadAfterAWrite) {
  Buffer<float> data(Device::simulator(), random_values<float>(32, 8)), copy(Device::simulator(), 32);
  const std::string load = source_at(kKernels, "store_global(global_view(copy, {32}), load_global(global_view(data");
  EXPECT_EQ(error_of_call([&] { Kernel<ReadOnlyViewWrittenInLaunch<false>>(Device::simulator())(data, copy); }),
            load + ": read-only bytes written, global memory, byte 0 of a 128-byte allocation: the load_global at " +
                load + " by warp 0 of block (0, 0, 0) reads them through a read-only view, and the store_global at " +
                source_at(kKernels, "store_global(global_view(data, {32}), register_tensor<float>({32}, 3.0f), {0});") +
                " by warp 0 of block (0, 0, 0) wrote them in this launch" + kWhy);
}

TEST(ReadOnlyViews, AnOrderedHandoffBetweenBlocksDoesNotMakeAReadOnlyReadSafe) {
  for (uint64_t seed : {1, 2, 3}) {
    Buffer<float> data(Device::simulator(), random_values<float>(32, 9)), copy(Device::simulator(), 32);
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    sim::Options options;
    options.seed = seed;
    const std::string load = source_at(kKernels, "auto published = load_global(global_view(data, {32}).read_only()");
    EXPECT_EQ(
        error_of_call([&] {
          Kernel<ReadOnlyReadOfPublishedData>(Device::simulator(), KernelOptions{.sim = options})(data, flag, copy);
        }),
        load + ": read-only bytes written, global memory, byte 0 of a 128-byte allocation: the load_global at " + load +
            " by warp 0 of block (1, 0, 0) reads them through a read-only view, and the store_global at " +
            source_at(kKernels, "store_global(global_view(data, {32}), register_tensor<float>({32}, 2.5f), {0});") +
            " by warp 0 of block (0, 0, 0) wrote them in this launch" + kWhy)
        << "seed " << seed;
  }
}

TEST(ReadOnlyViews, TheSimulatorReportsATmaStoreOverAReadOnlyRead) {
  Buffer<float> data(Device::simulator(), random_values<float>(32 * 32, 10));
  const std::string store = source_at(kKernels, "tma.shared_to_global(s, global_view(data, {32, 32}), {0, 0});");
  EXPECT_EQ(
      error_of_call([&] { Kernel<TmaStoreOverReadOnlyRead>(Device::simulator(), KernelOptions{"sm_90a"})(data); }),
      store +
          ": read-only bytes written, global memory, byte 0 of a 4096-byte allocation: the "
          "tma.shared_to_global at " +
          store + " by warp 0 of block (0, 0, 0) writes them, and the load_global at " +
          source_at(kKernels, "auto t = load_global(global_view(data, {32, 32}).read_only(), {0, 0}, {32, 32});") +
          " by warp 0 of block (0, 0, 0) read them through a read-only view in this launch" + kWhy);
}

// An atomic load after the add takes its place among the byte's recent atomics; the add is still
// the write the read-only read must not follow.
TEST(ReadOnlyViews, TheSimulatorReportsAReadOnlyReadOfAtomicallyWrittenBytes) {
  Buffer<int32_t> counts(Device::simulator(), std::vector<int32_t>(32, 5)), copy(Device::simulator(), 32);
  const std::string load = source_at(kKernels, "auto counted = load_global(global_view(counts, {32}).read_only()");
  EXPECT_EQ(error_of_call([&] { Kernel<ReadOnlyReadAfterAtomics>(Device::simulator())(counts, copy); }),
            load + ": read-only bytes written, global memory, byte 0 of a 128-byte allocation: the load_global at " +
                load + " by warp 0 of block (0, 0, 0) reads them through a read-only view, and the atomic add at " +
                source_at(kKernels, "      atomic.add(g, {0}, 1);") +
                " by warp 0 of block (0, 0, 0) wrote them in this launch" + kWhy);
}

}  // namespace
}  // namespace tessel::testing
