#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// Step 2 of the Hopper ladder: step 1 with a ring of `stages` shared stages, so that the TMA loads
// of later k-tiles run while wgmma works on the current one.
//
// Each stage has a "full" mbarrier (one thread announces the stage's bytes and the two TMA loads
// complete them) and an "empty" mbarrier (every thread arrives once the mma that read the stage is
// retired). A prologue fills stages - 1 stages; iteration i then waits for k-tile i, issues its mma,
// retires the mma of k-tile i - 1 (wait_group(1): at most one group in flight) and frees that
// stage, and one thread refills it with k-tile i + stages - 1 after waiting on its "empty" barrier.
// The producer starts at producer_initial_phase, so its first pass over the fresh ring does not
// wait; both sides flip their parity each time their stage index wraps.
template <class T = f16> struct MatmulV2Multistage : Script {
  int block_m = 128, block_n = 128, block_k = 64;
  int stages = 3;
  int warpgroups = 1;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // The first candidate is the configuration above.
  static Space space() {
    return tune("stages", &MatmulV2Multistage::stages, {3, 2, 4}) *
           tune("block_k", &MatmulV2Multistage::block_k, {64, 32});
  }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<T> a, Ptr<T> b, Ptr<T> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = 4 * warpgroups;
    const int threads = 128 * warpgroups;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({stages, block_m, block_k});
    auto s_b = shared_tensor<T>({stages, block_n, block_k});
    auto full = mbarrier.alloc(std::vector<int>(stages, 1));
    auto empty = mbarrier.alloc(std::vector<int>(stages, threads));
    const int stage_bytes = int(s_a[0].nbytes() + s_b[0].nbytes());
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
    Int32 k_tiles = cdiv(k, block_k);

    Int32 load_stage = 0;
    UInt32 load_phase = mbarrier.producer_initial_phase;
    auto load = [&](Int32 tile) {
      single_thread([&] {
        mbarrier.wait(empty[load_stage], load_phase);
        mbarrier.arrive_and_expect_tx(full[load_stage], stage_bytes);
        tma.global_to_shared(g_a, s_a[load_stage], {offset_m, tile * block_k}, full[load_stage]);
        tma.global_to_shared(g_b, s_b[load_stage], {offset_n, tile * block_k}, full[load_stage]);
      });
      load_stage = (load_stage + 1) % stages;
      load_phase ^= load_stage == 0;
    };

    for (int s = 0; s < stages - 1; ++s) if_(s < k_tiles, [&] { load(s); });

    Int32 stage = 0;
    UInt32 phase = mbarrier.consumer_initial_phase;
    for (Int32 i : range(0, k_tiles)) {
      mbarrier.wait(full[stage], phase);
      wgmma.fence();
      wgmma.mma(s_a[stage], s_b[stage].transpose(), acc);
      wgmma.commit_group();
      wgmma.wait_group(1);  // the mma of k-tile i - 1 is retired: its stage may be refilled
      if_(i > 0, [&] { mbarrier.arrive(empty[(stage + stages - 1) % stages]); });
      Int32 next = i + (stages - 1);
      if_(next < k_tiles, [&] { load(next); });
      stage = (stage + 1) % stages;
      phase ^= stage == 0;
    }
    wgmma.wait_group(0);
    store_global(global_view(c, {m, n}), acc.to<T>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::hopper
