// check_shared_handoffs: a shared tile that one top-level thread group writes and another reads,
// with no block-wide sync() between the groups and no mbarrier in either, is reported at the
// read before anything runs; a sync() or an mbarrier handoff is accepted, and the pass never
// changes the kernel.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

float* no_data = nullptr;

template <class S> ir::Kernel traced() {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(no_data, no_data),
                        "check_shared_handoffs");
}

int alloc_line = 0, store_line = 0, load_line = 0;

enum class Handoff { none, sync, mbarrier };

// Warp 0 stores a tile, warp 1 loads it, handed over as `H` says.
template <Handoff H> struct HandsATileToAnotherGroup : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({32});
    thread_group(0, 32, [&] {
      store_line = __LINE__ + 1;
      store_shared(tile, load_global(global_view(in, {32}), {0}, {32}));
      if (H == Handoff::mbarrier) mbarrier.arrive(bars[0]);
    });
    if (H == Handoff::sync) sync();
    thread_group(32, 32, [&] {
      if (H == Handoff::mbarrier) mbarrier.wait(bars[0], 0u);
      load_line = __LINE__ + 1;
      store_global(global_view(out, {32}), load_shared(tile), {0});
    });
  }
};

TEST(CheckSharedHandoffs, ReportsATileWrittenAndReadByTwoGroupsThatNothingOrders) {
  const ir::Kernel k = traced<HandsATileToAnotherGroup<Handoff::none>>();
  const std::string got = error_of_call([&] { passes::check_shared_handoffs(k, {ir::Arch::Sm90a}); });
  EXPECT_EQ(got,
            fmt::format("{}: load_shared reads the shared tile allocated at {} in threads 32..63, which threads 0..31 "
                        "write at {}, and nothing orders the write and the read: no sync() of the whole block lies "
                        "between their thread groups and neither uses an mbarrier; sync() between the groups, or hand "
                        "the tile over with an mbarrier arrival and wait",
                        at(load_line), at(alloc_line), at(store_line)));
}

TEST(CheckSharedHandoffs, AcceptsASyncOrAnMbarrierBetweenTheGroupsAndChangesNothing) {
  for (const ir::Kernel& k :
       {traced<HandsATileToAnotherGroup<Handoff::sync>>(), traced<HandsATileToAnotherGroup<Handoff::mbarrier>>()})
    EXPECT_EQ(passes::check_shared_handoffs(k, {ir::Arch::Sm90a}), k);
}

}  // namespace
}  // namespace tessel::testing
