#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::hopper {

// Step 1 of the Hopper ladder: C = A Bᵀ (A [m, k], B [n, k], both K-major) with TMA loads and
// wgmma, one stage. Per k-step one thread announces the stage's bytes on the "full" mbarrier and
// issues the two TMA loads onto it; every thread waits on the phase; each warpgroup runs its m64
// rows of the mma from shared memory (the tiles get the swizzle wgmma reads) and retires it; a
// sync() then frees the stage for the next loads. Out-of-range rows and columns of A and B load
// as zeros, so any m, n and k work.
//
// No proxy fence is needed: TMA writes the tiles and wgmma reads them, both through the async
// proxy, and no thread touches them with ordinary loads or stores.
template <class T = f16> struct MatmulV1TmaWgmma : Script {
  int block_m = 128, block_n = 128, block_k = 64;
  int warpgroups = 1;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  void operator()(Int32 m, Int32 n, Int32 k, Ptr<T> a, Ptr<T> b, Ptr<T> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = 4 * warpgroups;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    auto s_a = shared_tensor<T>({block_m, block_k});
    auto s_b = shared_tensor<T>({block_n, block_k});
    auto full = mbarrier.alloc({1});
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
    UInt32 phase = mbarrier.consumer_initial_phase;
    for (Int32 offset_k : range(0, k, block_k)) {
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(full[0], int(s_a.nbytes() + s_b.nbytes()));
        tma.global_to_shared(g_a, s_a, {offset_m, offset_k}, full[0]);
        tma.global_to_shared(g_b, s_b, {offset_n, offset_k}, full[0]);
      });
      mbarrier.wait(full[0], phase);
      phase ^= 1u;
      wgmma.fence();
      wgmma.mma(s_a, s_b.transpose(), acc);
      wgmma.commit_group();
      wgmma.wait_group(0);
      sync();  // every warpgroup's mma is done with the stage before it is loaded again
    }
    store_global(global_view(c, {m, n}), acc.to<T>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::hopper
