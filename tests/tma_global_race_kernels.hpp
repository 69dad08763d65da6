// Kernels whose TMA copies meet other blocks' accesses of the same global bytes: race detection
// orders a TMA store's bytes after the wait that retires its group and a TMA load's after the phase
// it completes. Run on the simulator (tests/tma_global_races_test.cpp).
#pragma once

#include "simulate.hpp"

namespace tessel::testing {

// Block 0 stores 2x by TMA into `out` and releases a flag once its bulk group retires (all of it, or
// with `ReadOnly` only its source's read); block 1 acquires the flag and writes out + 1 to `copy`.
template <bool ReadOnly> struct TmaStoreHandedToAnotherBlock : Script {
  void operator()(Ptr<float> x, Ptr<float> out, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto flag_view = global_view(flag, {1});
    if_(blockIdx.x == 0, [&] {
      auto s = shared_tensor<float>({8, 32});
      store_shared(s, load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) * 2.0f);
      fence.proxy_async();
      sync();
      single_thread([&] {
        tma.shared_to_global(s, global_view(out, {8, 32}), {0, 0});
        tma.commit_group();
        tma.wait_group(0, ReadOnly);
        atomic.store(flag_view, {0}, 1, MemoryOrder::release);
      });
    }).else_([&] {
      single_thread([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, MemoryOrder::acquire); });
      });
      sync();
      auto stored = load_global(global_view(out, {8, 32}), {0, 0}, {8, 32});
      store_global(global_view(copy, {8, 32}), stored + 1.0f, {0, 0});
    });
  }
};

// Each block scatters its row of x by a bulk copy to the row of `out` that `index` names.
struct ScattersRowsByIndex : Script {
  void operator()(Ptr<float> x, Ptr<int32_t> index, Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto s = shared_tensor<float>({64});
    store_shared(s, load_global(global_view(x, {128}), {blockIdx.x * 64}, {64}));
    fence.proxy_async();
    sync();
    single_thread([&] {
      Var<int32_t> row = atomic.load<int32_t>(global_view(index, {2}), {blockIdx.x});
      tma.bulk_shared_to_global(s, global_view(out, {2, 64}), {row, 0});
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

// One thread scatters the block's two rows of x by bulk copies, in one bulk group, to the rows of
// `out` that `index` names.
struct OneThreadScattersTwoRows : Script {
  void operator()(Ptr<float> x, Ptr<int32_t> index, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto rows = shared_tensor<float>({2, 64});
    store_shared(rows, load_global(global_view(x, {2, 64}), {0, 0}, {2, 64}));
    fence.proxy_async();
    sync();
    single_thread([&] {
      for (Int32 i : range(0, 2)) {
        Var<int32_t> row = atomic.load<int32_t>(global_view(index, {2}), {i});
        tma.bulk_shared_to_global(rows[i], global_view(out, {2, 64}), {row, 0});
      }
      tma.commit_group();
      tma.wait_group(0);
    });
  }
};

// Thread 0 stores 2x by TMA into `out` and waits only for the store's source to be read; after a
// sync() both warps read `out` back.
struct TmaStoreReadBackAfterASourceWait : Script {
  void operator()(Ptr<float> x, Ptr<float> out, Ptr<float> copy) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto s = shared_tensor<float>({8, 32});
    store_shared(s, load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) * 2.0f);
    fence.proxy_async();
    sync();
    auto stored = global_view(out, {8, 32});
    single_thread([&] {
      tma.shared_to_global(s, stored, {0, 0});
      tma.commit_group();
      tma.wait_group(0, true);
    });
    sync();
    auto back = load_global(stored, {0, 0}, {8, 32});
    store_global(global_view(copy, {8, 32}), back + 1.0f, {0, 0});
  }
};

// Block 0 writes `data`; block 1 loads it by TMA into shared memory and copies it to `copy`. With
// `Handed`, block 0 fences its writes for the async proxy (a fence of `Space`) and releases a flag,
// which block 1 acquires before the load; without, nothing orders the two.
template <bool Handed, ProxySpace Space = ProxySpace::global> struct TmaLoadOfAnotherBlocksWrites : Script {
  void operator()(Ptr<float> x, Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto flag_view = global_view(flag, {1});
    if_(blockIdx.x == 0, [&] {
      store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) + 3.0f, {0, 0});
      if (Handed) {
        fence.proxy_async(Space);
        sync();
        single_thread([&] { atomic.store(flag_view, {0}, 1, MemoryOrder::release); });
      }
    }).else_([&] {
      auto s = shared_tensor<float>({8, 32});
      auto bars = mbarrier.alloc({1});
      single_thread([&] {
        if (Handed) {
          Var<int32_t> seen(0);
          while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, MemoryOrder::acquire); });
        }
        mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * int(sizeof(float)));
        tma.global_to_shared(global_view(data, {8, 32}), s, {0, 0}, bars[0]);
      });
      mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
      store_global(global_view(copy, {8, 32}), load_shared(s), {0, 0});
    });
  }
};

// Rank 0 of cluster 0 (of two blocks) multicasts rows of `data` into both blocks' tiles, and each
// copies them to its rows of `copy`. `Writer` names who then overwrites `data`: a block of cluster 0
// after its wait (the read it waited for came first, whichever block's phase it waited on), or,
// with -1, block 0 of cluster 1, which nothing orders after the read (with -2 only the second half
// of row 3, in the middle of the run the load read).
template <int Writer> struct OverwritesMulticastRows : Script {
  void operator()(Ptr<float> data, Ptr<float> copy) {
    attrs.blocks = 4;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto rows = global_view(data, {8, 32});
    auto tile = shared_tensor<float>({8, 32});
    auto landed = mbarrier.alloc({1});
    if_(cluster.clusterIdx.x == 0, [&] {
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(landed[0], 8 * 32 * int(sizeof(float)));
        if_(cluster.blockRank == 0, [&] { tma.global_to_shared(rows, tile, {0, 0}, landed[0], Multicast{3}); });
      });
      mbarrier.wait(landed[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, WaitScope::cluster);
      auto got = load_shared(tile);
      store_global(global_view(copy, {16, 32}), got, {cluster.blockRank * 8, 0});
      if (Writer >= 0) if_(cluster.blockRank == Writer, [&] { store_global(rows, got * 2.0f, {0, 0}); });
    }).else_([&] {
      if (Writer == -1)
        if_(cluster.blockRank == 0, [&] { store_global(rows, register_tensor<float>({8, 32}, 1.0f), {0, 0}); });
      if (Writer == -2)
        if_(cluster.blockRank == 0, [&] { store_global(rows, register_tensor<float>({1, 16}, 1.0f), {3, 16}); });
    });
    cluster.sync();
  }
};

// Block rank 0 of a cluster of two writes `data`, fences it for the async proxy and arrives on rank
// 1's barrier; rank 1 waits on it with `Scope` and loads `data` by TMA into `copy`. A wait of cta
// scope does not acquire what another block released.
template <WaitScope Scope> struct LoadsAPeersWritesAfterAWait : Script {
  void operator()(Ptr<float> x, Ptr<float> data, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto handed = mbarrier.alloc({1});
    auto landed_rows = mbarrier.alloc({1});
    auto rows = shared_tensor<float>({8, 32});
    if_(cluster.blockRank == 0, [&] {
      store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) - 1.0f, {0, 0});
      fence.proxy_async(ProxySpace::global);
      single_thread([&] { mbarrier.arrive(handed[0].remote(1)); });
    }).else_([&] {
      mbarrier.wait(handed[0], mbarrier.consumer_initial_phase, WaitSemantics::acquire, Scope);  // handed over
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(landed_rows[0], 8 * 32 * int(sizeof(float)));
        tma.global_to_shared(global_view(data, {8, 32}), rows, {0, 0}, landed_rows[0]);  // the peer's rows
      });
      mbarrier.wait(landed_rows[0], mbarrier.consumer_initial_phase);
      store_global(global_view(copy, {8, 32}), load_shared(rows), {0, 0});
    });
    cluster.sync();
  }
};

}  // namespace tessel::testing
