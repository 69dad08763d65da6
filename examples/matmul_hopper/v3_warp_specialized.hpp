#pragma once

#include <algorithm>
#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// Step 3 of the Hopper ladder: step 2's ring, with the loads and the mma in different roles.
//
// Warpgroup 0 is the producer: it gives up registers (setmaxnreg.decrease) and its first warp
// issues the TMA loads, waiting only for a stage to be empty, so it runs up to `stages` k-tiles
// ahead of the math. The consumer warpgroups take the registers (setmaxnreg.increase), wait for
// each stage to be full, issue its wgmma, and free the stage of the k-tile before once that mma
// is retired. Neither role waits for the other except through the ring's barriers.
template <class T = f16> struct MatmulV3WarpSpecialized : Script {
  int block_m = 128, block_n = 256, block_k = 64;
  int stages = 4;
  int consumer_warpgroups = 2;  // each runs the mma of its 64 rows of every 128
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  // The first candidate is the configuration above.
  static Space space() {
    return tune("block_n", &MatmulV3WarpSpecialized::block_n, {256, 128}) *
           tune("stages", &MatmulV3WarpSpecialized::stages, {4, 3});
  }

  // A warpgroup's share of the register file is 512 registers per thread; the producer keeps 40
  // and the consumers split the rest, up to setmaxnreg's 256.
  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<T> a, Ptr<T> b, Ptr<T> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({stages, block_m, block_k});
    auto s_b = shared_tensor<T>({stages, block_n, block_k});
    auto full = mbarrier.alloc(std::vector<int>(stages, 1));
    auto empty = mbarrier.alloc(std::vector<int>(stages, consumer_threads));
    const int stage_bytes = int(s_a[0].nbytes() + s_b[0].nbytes());
    Int32 k_tiles = cdiv(k, block_k);

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        Int32 stage = 0;
        UInt32 phase = mbarrier.producer_initial_phase;
        for (Int32 i : range(0, k_tiles, 1, stages)) {
          mbarrier.wait(empty[stage], phase);
          single_thread([&] { mbarrier.arrive_and_expect_tx(full[stage], stage_bytes); });
          tma.global_to_shared(g_a, s_a[stage], {offset_m, i * block_k}, full[stage]);
          tma.global_to_shared(g_b, s_b[stage], {offset_n, i * block_k}, full[stage]);
          stage = (stage + 1) % stages;
          phase ^= stage == 0;
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
      Int32 stage = 0;
      UInt32 phase = mbarrier.consumer_initial_phase;
      for (Int32 i : range(0, k_tiles, 1, stages)) {
        mbarrier.wait(full[stage], phase);
        wgmma.fence();
        wgmma.mma(s_a[stage], s_b[stage].transpose(), acc);
        wgmma.commit_group();
        wgmma.wait_group(1);  // the mma of k-tile i - 1 is retired: its stage may be refilled
        if_(i > 0, [&] { mbarrier.arrive(empty[(stage + stages - 1) % stages]); });
        stage = (stage + 1) % stages;
        phase ^= stage == 0;
      }
      wgmma.wait_group(0);
      store_global(global_view(c, {m, n}), acc.to<T>(), {offset_m, offset_n});
    });
  }
};

}  // namespace tessel::examples::hopper
