// check_shared_handoffs: a shared tile that one top-level thread group writes and another reads,
// with no block-wide sync() between the groups and no mbarrier in either, is reported at the
// read before anything runs; a sync(), an mbarrier handoff or the cluster barrier's halves (a
// release arrival after the writer) are accepted, and the pass never changes the kernel.
#include "pass_test.hpp"

namespace tessel::testing {
namespace {

std::string at(int line) { return fmt::format("{}:{}", __FILE__, line); }

float* no_data = nullptr;

template <class S> ir::Kernel traced() {
  return lowered_before(Kernel<S>(Device::simulator(), KernelOptions{"sm_90a"}).traced(no_data, no_data),
                        "check_shared_handoffs");
}

int alloc_line = 0, store_line = 0, load_line = 0, between_line = 0;

// How the tile is handed over: not at all; by a sync() or an mbarrier; by the cluster barrier's
// halves between the groups (release, or relaxed), inside the groups, or with the arrival before
// the writing group.
enum class Handoff {
  none,
  sync,
  mbarrier,
  halves_between,
  relaxed_halves_between,
  halves_in_groups,
  arrival_before_the_writer,
  work_between_the_halves,
  reader_between_the_halves,
  sync_between_the_halves
};

constexpr bool clustered(Handoff h) { return h >= Handoff::halves_between; }

// Warp 0 stores a tile, warp 1 loads it, handed over as `H` says.
template <Handoff H> struct HandsATileToAnotherGroup : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = clustered(H) ? 2 : 1;
    if (clustered(H)) attrs.cluster = {2};
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto tile = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({32});
    if (H == Handoff::arrival_before_the_writer || H == Handoff::sync_between_the_halves) cluster.arrive();
    thread_group(0, 32, [&] {
      store_line = __LINE__ + 1;
      store_shared(tile, load_global(global_view(in, {32}), {0}, {32}));
      if (H == Handoff::mbarrier) mbarrier.arrive(bars[0]);
      if (H == Handoff::halves_in_groups) {
        cluster.arrive();
        cluster.wait();
      }
    });
    if (H == Handoff::sync || H == Handoff::sync_between_the_halves) sync();
    const bool halves_after_the_writer = H == Handoff::halves_between || H == Handoff::work_between_the_halves ||
                                         H == Handoff::reader_between_the_halves;
    if (halves_after_the_writer) cluster.arrive();
    if (H == Handoff::relaxed_halves_between) cluster.arrive(MemoryOrder::relaxed);
    // Work of threads that touch no tile between the halves: it leaves the handoff as it is.
    if (H == Handoff::work_between_the_halves)
      thread_group(32, 32, [&] { store_global(global_view(out, {32}), register_tensor<float>({32}, 0.0f), {0}); });
    between_line = __LINE__ + 1;
    if (H == Handoff::reader_between_the_halves) thread_group(32, 32, [&] { (void)load_shared(tile); });
    if (halves_after_the_writer || H == Handoff::relaxed_halves_between || H == Handoff::arrival_before_the_writer ||
        H == Handoff::sync_between_the_halves)
      cluster.wait();
    thread_group(32, 32, [&] {
      if (H == Handoff::mbarrier) mbarrier.wait(bars[0], 0u);
      if (H == Handoff::halves_in_groups) {
        cluster.arrive();
        cluster.wait();
      }
      load_line = __LINE__ + 1;
      store_global(global_view(out, {32}), load_shared(tile), {0});
    });
  }
};

template <Handoff H> std::string handoff_error() {
  const ir::Kernel k = traced<HandsATileToAnotherGroup<H>>();
  return error_of_call([&] { passes::check_shared_handoffs(k, {ir::Arch::Sm90a}); });
}

// The message for the kernel traced last (its lines are known once traced).
std::string unordered_handoff() {
  return fmt::format(
      "{}: load_shared reads the shared tile allocated at {} in threads 32..63, which threads 0..31 write at {}, and "
      "nothing orders the write and the read: no sync() of the whole block lies between their thread groups and "
      "neither uses an mbarrier; sync() between the groups, or hand the tile over with an mbarrier arrival and wait",
      at(load_line), at(alloc_line), at(store_line));
}

TEST(CheckSharedHandoffs, ReportsATileWrittenAndReadByTwoGroupsThatNothingOrders) {
  const std::string got = handoff_error<Handoff::none>();
  EXPECT_EQ(got, unordered_handoff());
}

// A group between a cluster.arrive() and its cluster.wait() is ordered with neither side.
TEST(CheckSharedHandoffs, ReportsAReadBetweenTheClusterBarriersHalves) {
  const ir::Kernel k = traced<HandsATileToAnotherGroup<Handoff::reader_between_the_halves>>();
  const std::string got = error_of_call([&] { passes::check_shared_handoffs(k, {ir::Arch::Sm90a}); });
  EXPECT_EQ(got, fmt::format("{}: load_shared reads the shared tile allocated at {} in threads 32..63, which threads "
                             "0..31 write at {}, and nothing orders the write and the read: no sync() of the whole "
                             "block lies between their thread groups and neither uses an mbarrier; sync() between the "
                             "groups, or hand the tile over with an mbarrier arrival and wait",
                             at(between_line), at(alloc_line), at(store_line)));
}

// A relaxed arrival releases nothing, and one before the writing group precedes its writes.
TEST(CheckSharedHandoffs, ReportsClusterBarrierHalvesThatReleaseNothingOfTheWriter) {
  const std::string relaxed = handoff_error<Handoff::relaxed_halves_between>();
  EXPECT_EQ(relaxed, unordered_handoff());
  const std::string early = handoff_error<Handoff::arrival_before_the_writer>();
  EXPECT_EQ(early, unordered_handoff());
}

TEST(CheckSharedHandoffs, AcceptsASyncAnMbarrierOrTheClusterBarrierBetweenTheGroupsAndChangesNothing) {
  for (const ir::Kernel& k :
       {traced<HandsATileToAnotherGroup<Handoff::sync>>(), traced<HandsATileToAnotherGroup<Handoff::mbarrier>>(),
        traced<HandsATileToAnotherGroup<Handoff::halves_between>>(),
        traced<HandsATileToAnotherGroup<Handoff::work_between_the_halves>>(),
        traced<HandsATileToAnotherGroup<Handoff::sync_between_the_halves>>(),
        traced<HandsATileToAnotherGroup<Handoff::halves_in_groups>>()})
    EXPECT_EQ(passes::check_shared_handoffs(k, {ir::Arch::Sm90a}), k);
}

}  // namespace
}  // namespace tessel::testing
