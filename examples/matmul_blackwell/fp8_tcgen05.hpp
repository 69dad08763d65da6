#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// The seeds' V0 in fp8: C = A Bᵀ with A [m, k] and B [n, k] K-major in e4m3 or e5m2 (any pairing),
// read by tcgen05.mma kind::f8f6f4 (32 of k per instruction) into an f32 accumulator in tensor
// memory, written out in bf16. The statements are V0's; only the element types differ.
template <class A, class B> struct BlackwellFp8Matmul : Script {
  int block_m = 128, block_n = 128, block_k = 128;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  static Space space() {
    return tune("block_n", &BlackwellFp8Matmul::block_n, {64, 128, 256}) *
           tune("block_k", &BlackwellFp8Matmul::block_k, {32, 64, 128});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<A> a_ptr, Ptr<B> b_ptr, Ptr<bf16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});

    // rows of block_k bytes: one swizzle span at block_k = 32, 64 or 128
    auto s_a = shared_tensor<A>({block_m, block_k});
    auto s_b = shared_tensor<B>({block_n, block_k});
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});
    auto mbarriers = mbarrier.alloc({1});
    UInt32 phase = 0u;
    sync();

    for (Int32 offset_k : range(0, k_size, block_k)) {
      copy_async(g_a, s_a, {offset_m, offset_k});
      copy_async(g_b, s_b, {offset_n, offset_k});
      copy_async_wait_all();
      fence.proxy_async(ProxySpace::shared_cta);
      sync();
      single_warp([&] {
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);  // kind::f8f6f4
        tcgen05.commit(mbarriers[0]);
        mbarrier.wait(mbarriers[0], phase);
      });
      sync();
      phase ^= 1u;
    }

    auto r_acc = tcgen05.load(t_acc);
    auto g_c = global_view(c_ptr, {m_size, n_size});
    store_global(g_c, r_acc.to<bf16>(), {offset_m, offset_n});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
