// Memory fences (fence.acq_rel, fence.sc) on the simulator: a relaxed flag between blocks ordered by
// fences under every order, the race reported when a fence is missing or too narrow, fence.sc's
// total order, the target check of cluster scope, and the PTX they compile to.
#include <gmock/gmock.h>

#include "atomics_kernels.hpp"
#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

using ::testing::HasSubstr;

TEST(MemoryFences, OrderARelaxedFlagBetweenBlocks) {
  for (const sim::Options& o : every_order()) {
    check_fenced_flag_handoff<0, false>(Device::simulator(), o);
    check_fenced_flag_handoff<0, false>(Device::simulator(), two_blocks_together(o));
    check_fenced_flag_handoff<1, false>(Device::simulator(), two_blocks_together(o));
    check_fenced_flag_handoff<0, true>(Device::simulator(), two_blocks_together(o));
    check_fenced_flag_handoff<1, true>(Device::simulator(), two_blocks_together(o));
  }
}

// The race is reported at the reader's load, naming the writer's store, and then what was missing.
std::string fenced_handoff_race(const std::string& remedy) {
  const std::string load = source_at("tests/atomics_kernels.hpp", "load_global(data_view, {0}, {64})");
  return load + ": data race on global memory, byte 0 of a 256-byte allocation: the load_global at " + load +
         " by warp 0 of block (1, 0, 0) is not ordered after the store_global at " +
         source_at("tests/atomics_kernels.hpp", "store_global(data_view, register_tensor") +
         " by warp 0 of block (0, 0, 0); " + remedy;
}

std::string cross_block_remedy() {
  return "the two blocks share no sync(): combine into one place with atomics (atomic.add), or hand the data over "
         "with an atomic release that the other block acquires (MemoryOrder::release and MemoryOrder::acquire, or "
         "fence.acq_rel() around relaxed atomics)";
}

template <class S> std::string handoff_error() {
  Buffer<float> data(Device::simulator(), std::vector<float>(64, -1.0f)),
      copy(Device::simulator(), std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
  return simulation_error<S>(sim::Options{}, data, flag, copy);
}

std::string flag_load() {
  return "atomic load at " + source_at("tests/atomics_kernels.hpp", "atomic.load<int32_t>(flag_view, {0});");
}
std::string flag_store() {
  return "atomic store at " + source_at("tests/atomics_kernels.hpp", "atomic.store(flag_view, {0}, 1);");
}

TEST(MemoryFences, WithoutTheWritersFenceARelaxedFlagReleasesNothing) {
  EXPECT_EQ((handoff_error<FencedFlagHandoff<0, false, true>>()),
            fenced_handoff_race("the " + flag_load() + " read what the " + flag_store() +
                                " wrote, but a relaxed write releases nothing: write with MemoryOrder::release, or "
                                "call fence.acq_rel() before the write, with a scope that includes the reader"));
}

TEST(MemoryFences, WithoutTheReadersFenceARelaxedFlagAcquiresNothing) {
  EXPECT_EQ((handoff_error<FencedFlagHandoff<0, true, false>>()),
            fenced_handoff_race("the " + flag_load() +
                                " saw it released, but a relaxed read acquires nothing: read with "
                                "MemoryOrder::acquire, or call fence.acq_rel() after the read"));
}

TEST(MemoryFences, AReadersFenceOfBlockScopeAcquiresNothingFromAnotherBlock) {
  EXPECT_EQ((handoff_error<FencedFlagHandoff<0, true, true, false, MemoryScope::gpu, MemoryScope::cta>>()),
            fenced_handoff_race("the " + flag_load() + " saw it released, but the fence at " +
                                source_at("tests/atomics_kernels.hpp", "fence.acq_rel(scope);") +
                                " after it has scope cta, which does not include the writing thread; give the fence "
                                "a scope that does, such as MemoryScope::gpu"));
}

TEST(MemoryFences, FencesOfBlockScopeOrderNothingBetweenBlocks) {
  EXPECT_EQ((handoff_error<FencedFlagHandoff<0, true, true, false, MemoryScope::cta>>()),
            fenced_handoff_race("the " + flag_load() + " read what the " + flag_store() +
                                " wrote, but a relaxed write releases nothing: write with MemoryOrder::release, or "
                                "call fence.acq_rel() before the write, with a scope that includes the reader"));
  EXPECT_EQ((handoff_error<FencedFlagHandoff<0, true, true, true, MemoryScope::cta>>()),
            (handoff_error<FencedFlagHandoff<0, true, true, false, MemoryScope::cta>>()));
}

// Each of block 0's two warps stores its half of `data`, and its first thread releases the flag
// without a sync() before it: the release publishes warp 0's half only.
struct ReleaseWithoutTheBlocksSync : Script {
  void operator()(Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 2;
    auto flag_view = global_view(flag, {1});
    auto data_view = global_view(data, {64});
    if_(blockIdx.x == 0, [&] {
      store_global(data_view, arange({64}, 0, Layout::spatial({64})).to<float>(), {0});
      single_thread([&] { atomic.store(flag_view, {0}, 1, MemoryOrder::release); });
    }).else_([&] {
      single_thread([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, MemoryOrder::acquire); });
      });
      sync();
      store_global(global_view(copy, {64}), load_global(data_view, {0}, {64}, Layout::spatial({64})), {0});
    });
  }
};

TEST(MemoryFences, AReleasePublishesOnlyWhatItsOwnWarpDid) {
  const std::string load = source_at("tests/memory_fences_test.cpp", "load_global(data_view, {0}, {64}, Layout");
  EXPECT_EQ(handoff_error<ReleaseWithoutTheBlocksSync>(),
            load + ": data race on global memory, byte 128 of a 256-byte allocation: the load_global at " + load +
                " by warp 1 of block (1, 0, 0) is not ordered after the store_global at " +
                source_at("tests/memory_fences_test.cpp", "store_global(data_view, arange") +
                " by warp 1 of block (0, 0, 0); it acquired what warp 0 of block (0, 0, 0) released, but a release "
                "publishes only what its own warp did before it, and nothing orders the access by warp 1 of block "
                "(0, 0, 0) before that release: call sync() in that block after the access and before the release");
}

// Block 1 runs after block 0 has finished (one block per group), so in this run its fence.sc follows
// block 0's in their total order and acquires what block 0 released; fence.acq_rel has no such
// order. (On a GPU that runs both blocks at once the order is not known beforehand: a kernel must
// observe it, through atomics, before it relies on it.)
template <bool Sc> struct FencesInLaunchOrder : Script {
  void memory_fence() {
    if (Sc)
      fence.sc();
    else
      fence.acq_rel();
  }
  void operator()(Ptr<float> data, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    if_(blockIdx.x == 0, [&] {
      store_global(global_view(data, {64}), arange({64}, 0).to<float>() * 0.5f, {0});
      memory_fence();
    }).else_([&] {
      memory_fence();
      store_global(global_view(copy, {64}), load_global(global_view(data, {64}), {0}, {64}), {0});
    });
  }
};

TEST(MemoryFences, ScFencesSynchronizeInTheOrderTheyRun) {
  Buffer<float> data(Device::simulator(), std::vector<float>(64, -1.0f)),
      copy(Device::simulator(), std::vector<float>(64, -1.0f));
  for (const sim::Options& o : every_order()) {
    simulate<FencesInLaunchOrder<true>>(o, data, copy);
    const auto got = copy.download();
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[size_t(i)], 0.5f * float(i)) << i;
  }
  const std::string load = source_at("tests/memory_fences_test.cpp", "load_global(global_view(data, {64}), {0}, {64})");
  EXPECT_EQ(simulation_error<FencesInLaunchOrder<false>>(sim::Options{}, data, copy),
            load + ": data race on global memory, byte 0 of a 256-byte allocation: the load_global at " + load +
                " by warp 0 of block (1, 0, 0) is not ordered after the store_global at " +
                source_at("tests/memory_fences_test.cpp", "store_global(global_view(data, {64}), arange") +
                " by warp 0 of block (0, 0, 0); " + cross_block_remedy());
}

struct ClusterFence : Script {
  void operator()(Ptr<int32_t> flag) {
    attrs.blocks = 1;
    attrs.warps = 1;
    fence.acq_rel(MemoryScope::cluster);
    single_thread([&] { atomic.store(global_view(flag, {1}), {0}, 1); });
  }
};

TEST(MemoryFences, ClusterScopeNeedsSm90a) {
  int32_t* flag = nullptr;
  EXPECT_EQ(error_of_call([&] { Kernel<ClusterFence>(Device::simulator(), KernelOptions{"sm_80"}).cubin(flag); }),
            source_at("tests/memory_fences_test.cpp", "fence.acq_rel(MemoryScope::cluster);") +
                ": fence.acq_rel of cluster scope needs sm_90a or newer; the kernel is compiled for sm_80");
  EXPECT_GT(Kernel<ClusterFence>(Device::simulator(), KernelOptions{"sm_90a"}).cubin(flag).size(), 0u);
}

// Each fence is one PTX fence at its scope, and NVRTC and ptxas accept them on every target.
TEST(MemoryFences, CompileToPtxFencesOnEveryTarget) {
  float* f = nullptr;
  int32_t* i = nullptr;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const KernelOptions options{arch};
    Kernel<FencedFlagHandoff<0>> acq_rel(Device::simulator(), options);
    EXPECT_THAT(acq_rel.cuda_source(f, i, f), HasSubstr("fence.acq_rel.gpu;"));
    EXPECT_GT(acq_rel.cubin(f, i, f).size(), 0u) << arch;
    Kernel<FencedFlagHandoff<0, true, true, true, MemoryScope::sys>> sc(Device::simulator(), options);
    EXPECT_THAT(sc.cuda_source(f, i, f), HasSubstr("fence.sc.sys;"));
    EXPECT_GT(sc.cubin(f, i, f).size(), 0u) << arch;
  }
}

}  // namespace
}  // namespace tessel::testing
