// Cache hints on global views: the values are those of the kernel without them (on the simulator,
// under several orders), each access carries the hint's policy in the generated code, which NVRTC
// assembles for every target, and an atomic through a hinted view is refused at its line.
#include "cache_hint_kernels.hpp"
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

KernelOptions on_simulator(const char* arch, uint64_t seed) {
  KernelOptions options{arch};
  options.sim.seed = seed;
  return options;
}

TEST(CacheHints, HintedLoadsStoresAndCopiesComputeWhatUnhintedOnesDo) {
  for (uint64_t seed : {1, 2, 3})
    for (auto [m, n] : {std::pair{32, 64}, std::pair{45, 100}, std::pair{70, 131}}) {
      check_hinted_loads_and_stores<float>(Device::simulator(), m, n, on_simulator("sm_80", seed));
      check_hinted_loads_and_stores<f16>(Device::simulator(), m, n, on_simulator("sm_90a", seed));
      check_hinted_loads_and_stores<int8_t>(Device::simulator(), m, n, on_simulator("sm_90a", seed));
    }
  check_hinted_packed_load(Device::simulator(), 70, on_simulator("sm_90a", 1));
}

TEST(CacheHints, HintedTmaCopiesComputeWhatUnhintedOnesDo) {
  for (uint64_t seed : {1, 2, 3}) {
    check_hinted_tma_copies<float>(Device::simulator(), 64, 128, on_simulator("sm_90a", seed));
    check_hinted_tma_copies<f16>(Device::simulator(), 100, 136, on_simulator("sm_100a", seed));
  }
}

TEST(CacheHints, EveryAccessCarriesItsViewsPolicy) {
  // The device header's policies.
  EXPECT_TRUE(file_check(codegen::device_header(), R"(
    CHECK: tessel_l2_policy_evict_first()
    CHECK: createpolicy.fractional.L2::evict_first.b64 %0, 1.0;
    CHECK: tessel_l2_policy_evict_last()
    CHECK: createpolicy.fractional.L2::evict_last.b64 %0, 1.0;
  )"));
  // The kernel's loads and stores under one, each a function of the kernel's source.
  Kernel<HintedLoadsAndStores<f16>> k(Device::simulator(), KernelOptions{"sm_80"});
  const std::string src = k.cuda_source(45, 100, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: void tessel_load_vec_l2_evict_first(T* dst, const T* p)
    CHECK: ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;
    CHECK: ld.global.L2::cache_hint.b8 %0, [%1], %2;
    CHECK: void tessel_load_vec_l2_evict_last(T* dst, const T* p)
    CHECK: "l"(tessel_l2_policy_evict_last())
    CHECK: void tessel_store_vec_l2_evict_first(T* p, const T* src)
    CHECK: st.global.L2::cache_hint.v4.b32 [%0], {%1, %2, %3, %4}, %5;
    CHECK: st.global.L2::cache_hint.b8 [%0], %1, %2;
    CHECK: // copy_async global -> shared
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
    CHECK: // load_global
    CHECK: tessel_load_vec_l2_evict_first<tessel_f16, 8>(
    CHECK: tessel_load_vec_l2_evict_first<tessel_f16, 1>(
    CHECK: // load_global
    CHECK: tessel_load_vec_l2_evict_last<tessel_f16, 8>(
    CHECK: // store_global
    CHECK: tessel_store_vec_l2_evict_first<tessel_f16, 8>(
    CHECK: tessel_store_vec_l2_evict_first<tessel_f16, 1>(
  )")) << src;
  EXPECT_NE(src.find("\"l\"(tessel_l2_policy_evict_first())"), std::string::npos);
  Kernel<HintedTmaCopies<float>> tma(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string tma_src = tma.cuda_source(64, 128, (float*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(tma_src, R"(
    CHECK: mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;"
    CHECK: bulk_group.L2::cache_hint [%0, {%1, %2}], [%3], %4;"
  )")) << tma_src;
  EXPECT_NE(tma_src.find("\"l\"(tessel_l2_policy_evict_first()) : \"memory\");"), std::string::npos);
  EXPECT_NE(tma_src.find("\"l\"(tessel_l2_policy_evict_last()) : \"memory\");"), std::string::npos);
  Kernel<HintedPackedLoad> packed(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string packed_src = packed.cuda_source(70, (uint8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_NE(packed_src.find("tessel_load_vec_l2_evict_first<uint32_t, "), std::string::npos) << packed_src;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    EXPECT_FALSE(Kernel<HintedLoadsAndStores<f16>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<HintedLoadsAndStores<float>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (float*)nullptr, (float*)nullptr, (float*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<HintedLoadsAndStores<int8_t>>(Device::simulator(), KernelOptions{arch})
                     .cubin(45, 100, (int8_t*)nullptr, (int8_t*)nullptr, (int8_t*)nullptr)
                     .empty());
    EXPECT_FALSE(Kernel<HintedPackedLoad>(Device::simulator(), KernelOptions{arch})
                     .cubin(70, (uint8_t*)nullptr, (int32_t*)nullptr)
                     .empty());
  }
  for (const char* arch : {"sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<HintedTmaCopies<f16>>(Device::simulator(), KernelOptions{arch})
                     .cubin(100, 136, (f16*)nullptr, (f16*)nullptr)
                     .empty());
}

TEST(CacheHints, TheIrNamesTheHint) {
  Kernel<HintedLoadsAndStores<float>> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string ir = ir::print(*k.traced(45, 100, (float*)nullptr, (float*)nullptr, (float*)nullptr));
  EXPECT_NE(
      ir.find(
          "load_global global<f32>(%arg2, shape=[%arg0, %arg1], strides=[mul(1, %arg1), 1], cache_hint=evict_first)"),
      std::string::npos)
      << ir;
  EXPECT_NE(
      ir.find(
          "load_global global<f32>(%arg3, shape=[%arg0, %arg1], strides=[mul(1, %arg1), 1], cache_hint=evict_last)"),
      std::string::npos)
      << ir;
}

TEST(CacheHints, ACpAsyncFromAHintedViewIsRefused) {
  Buffer<float> in(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of_call([&] { Kernel<HintedAsyncCopy>(Device::simulator())(in); }),
            source_at("tests/cache_hint_kernels.hpp",
                      "copy_async(global_view(in, {32}).with_cache_hint(CacheHint::evict_last), s, {0});") +
                ": copy_async from a view with cache hint evict_last: cp.async carries no cache hint, since ptxas of "
                "CUDA 13.0 miscompiles it; copy from the view without with_cache_hint, or through load_global and "
                "store_shared, or by TMA (sm_90a and later), which carry it");
}

TEST(CacheHints, HintedAtomicsComputeWhatUnhintedOnesDo) {
  for (const KernelOptions& o : every_order_options()) check_hinted_atomics(Device::simulator(), 5, o);
}

TEST(CacheHints, TheHintReachesEveryAtomicThatTakesOne) {
  Kernel<HintedAtomics> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string cuda =
      k.cuda_source(3, (float*)nullptr, (float*)nullptr, (f16*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr,
                    (int32_t*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr, (int32_t*)nullptr);
  const auto count = [&](std::string_view piece) {
    int n = 0;
    for (size_t at = cuda.find(piece); at != std::string::npos; at = cuda.find(piece, at + 1)) ++n;
    return n;
  };
  // The tile and the scalar fetch_add are one atom form each; every hinted form takes its policy.
  EXPECT_EQ(count("atom.relaxed.gpu.global.add.L2::cache_hint.s32"), 2);
  for (const char* piece :
       {"red.relaxed.gpu.global.add.L2::cache_hint.f32", "red.relaxed.gpu.add.noftz.L2::cache_hint.f16",
        "red.relaxed.gpu.global.max.L2::cache_hint.s32", "st.relaxed.gpu.global.L2::cache_hint.s32",
        "ld.relaxed.gpu.global.L2::cache_hint.s32", "red.relaxed.gpu.global.add.s32 [%0], %1;"})
    EXPECT_EQ(count(piece), 1) << piece;
  EXPECT_EQ(count("L2::cache_hint"), count("tessel_l2_policy_evict_first()") + count("tessel_l2_policy_evict_last()"));
}

TEST(CacheHints, ACompareExchangeThroughAHintedViewIsRefused) {
  Kernel<HintedCompareExchange> k(Device::simulator());
  Buffer<int32_t> words(Device::simulator(), std::vector<int32_t>(32, 0));
  EXPECT_EQ(error_of_call([&] { k(words); }),
            source_at("tests/cache_hint_kernels.hpp", "atomic.compare_exchange(g, register_tensor<int32_t>({32}, 0),") +
                ": atomic.compare_exchange: atom.cas takes no cache hint, and this view has evict_first; pass it the "
                "view without with_cache_hint");
}

}  // namespace
}  // namespace tessel::testing
