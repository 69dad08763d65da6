#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// Seed 002, BlackwellMatmulV0: C = A Bᵀ with cp.async loads into shared memory, tcgen05.mma
// accumulating in tensor memory, and one mbarrier on which tcgen05.commit signals the mma's
// completion. The statements follow the seed's, one for one, plus the proxy fence the hardware
// needs between the cp.async writes and the mma's reads.
struct BlackwellMatmulV0 : Script {
  int block_m = 128, block_n = 64, block_k = 16;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_m, block_n", {&BlackwellMatmulV0::block_m, &BlackwellMatmulV0::block_n},
                {{128, 64}, {128, 128}, {128, 256}}) *
           tune("block_k", &BlackwellMatmulV0::block_k, {16, 32, 64});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    // set the number of blocks and warps for the kernel launch
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    // compute the tile offset from the block index
    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;

    // create global tensor views from raw pointers
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});

    // allocate shared memory tiles for A and B
    auto s_a = shared_tensor<f16>({block_m, block_k});
    auto s_b = shared_tensor<f16>({block_n, block_k});

    // allocate a tensor in tensor memory (tmem) as the MMA accumulator
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});

    // allocate one mbarrier to track MMA completion
    auto mbarriers = mbarrier.alloc({1});

    // mbarrier phase flips between 0 and 1 after each wait
    UInt32 phase = 0u;

    // synchronize all threads before entering the main loop
    sync();

    for (Int32 offset_k : range(0, k_size, block_k)) {
      // async copy tiles from global to shared memory (legacy, non-TMA)
      copy_async(g_a, s_a, {offset_m, offset_k});
      copy_async(g_b, s_b, {offset_n, offset_k});
      copy_async_wait_all();
      // not in the seed: cp.async writes through the generic proxy and tcgen05.mma reads through
      // the async proxy, so each writing thread fences its writes before the sync
      fence.proxy_async(ProxySpace::shared_cta);
      sync();

      // tcgen05 instructions are warp-cooperative (issued by a single warp)
      single_warp([&] {
        // D = A @ B (first iter) or D = A @ B + D (subsequent iters)
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);
        // make the mbarrier track completion of prior async tcgen05 ops
        tcgen05.commit(mbarriers[0]);
        // wait until the MMA writes to tmem are complete
        mbarrier.wait(mbarriers[0], phase);
      });
      sync();

      phase ^= 1u;
    }

    // load the result from tensor memory to registers
    auto r_acc = tcgen05.load(t_acc);

    // cast to float16 and store to global memory
    auto g_c = global_view(c_ptr, {m_size, n_size});
    store_global(g_c, r_acc.to<f16>(), {offset_m, offset_n});

    // all allocated tensor memory must be deallocated before kernel exits
    sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
