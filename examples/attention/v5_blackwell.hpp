#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 5, Blackwell (sm_100a): S and O live in tensor memory. A block of 128 query rows
// is one warpgroup, thread i owning row i: tcgen05.ld's 32x32b layout gives each thread its whole
// row of S, so the row maximum and sum need no shuffles. Per key block, one warp loads K and V by
// TMA and issues S = Q Kᵀ into tensor memory; every thread reads its row of S, takes the online
// softmax step, rescales its row of O in tensor memory (FA4's correction, here inline), and writes
// P to shared memory; the warp then issues O += P V with V MN-major in its 64-wide column blocks.
// Each mma is waited for through its commit's mbarrier before its operands are reused; the two
// mmas commit to different barriers, so that no warp can wait for a phase the other mma's commit
// has already passed (with one barrier, the issuing warp could complete two phases while another
// warp still waits for the first).
template <class T> struct AttentionV5Blackwell : Script {
  int block_n = 64;
  static constexpr int block_m = 128;  // tcgen05's M = 128: row i is lane i
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    attrs.blocks = {cdiv(seq_q, block_m), batch * heads};
    attrs.warps = 4;
    const int chunks = head_dim / 64;
    Int32 bh = blockIdx.y;
    Int32 kv_bh = (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads);
    Int32 row0 = blockIdx.x * block_m;
    auto gq = global_view(q, {batch * heads * seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads * seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads * seq_k, head_dim});
    auto sq = shared_tensor<T>({chunks, block_m, 64});
    auto sk = shared_tensor<T>({chunks, block_n, 64});
    auto sv = shared_tensor<T>({chunks, block_n, 64});
    auto sp = shared_tensor<T>({block_m, block_n});
    auto t_s = tcgen05.alloc<float>({block_m, block_n});
    auto t_o = tcgen05.alloc<float>({block_m, head_dim});
    auto loaded = mbarrier.alloc({1});
    auto scores_done = mbarrier.alloc({1});
    auto values_done = mbarrier.alloc({1});
    UInt32 load_phase = 0u, mma_phase = 0u;
    Int32 key_blocks = cdiv(seq_k, block_n);
    if (causal) key_blocks = min(key_blocks, cdiv(row0 + block_m, block_n));
    auto m_i = register_tensor<float>({block_m, 1}, -INFINITY);
    auto l_i = register_tensor<float>({block_m, 1}, 0.0f);
    Float32 scale_log2 = scale * 1.4426950408889634f;
    sync();

    single_warp([&] {
      single_thread([&] { mbarrier.arrive_and_expect_tx(loaded[0], int(sq.nbytes())); });
      for (int c = 0; c < chunks; ++c) tma.global_to_shared(gq, sq[c], {bh * seq_q + row0, c * 64}, loaded[0]);
      mbarrier.wait(loaded[0], load_phase, WaitSemantics::acquire, WaitScope::cta);
    });
    load_phase ^= 1u;
    for (Int32 j : range(0, key_blocks)) {
      // K and V of block j, then S = Q Kᵀ.
      single_warp([&] {
        single_thread([&] { mbarrier.arrive_and_expect_tx(loaded[0], int(sk.nbytes() + sv.nbytes())); });
        for (int c = 0; c < chunks; ++c) {
          tma.global_to_shared(gk, sk[c], {kv_bh * seq_k + j * block_n, c * 64}, loaded[0]);
          tma.global_to_shared(gv, sv[c], {kv_bh * seq_k + j * block_n, c * 64}, loaded[0]);
        }
        mbarrier.wait(loaded[0], load_phase, WaitSemantics::acquire, WaitScope::cta);
        for (int c = 0; c < chunks; ++c) tcgen05.mma(sq[c], sk[c].transpose(), t_s, c > 0);
        tcgen05.commit(scores_done[0]);
      });
      load_phase ^= 1u;
      mbarrier.wait(scores_done[0], mma_phase, WaitSemantics::acquire, WaitScope::cta);

      // The online softmax step on each thread's row of S.
      auto s = tcgen05.load(t_s) * scale_log2;
      auto cols = arange({block_m, block_n}, 1) + j * block_n;
      s = where(cols < seq_k, s, -INFINITY);
      if (causal) s = where(cols <= arange({block_m, block_n}, 0) + row0, s, -INFINITY);
      auto m_new = maximum(m_i, max(s, 1));
      auto p = exp2(s - m_new);
      auto rescale = exp2(m_i - m_new);
      l_i = l_i * rescale + sum(p, 1);
      m_i = m_new;
      // O's rows rescaled in tensor memory (before block 0 they hold nothing yet).
      if_(j > 0, [&] {
        tcgen05.store(t_o, tcgen05.load(t_o) * rescale);
        tcgen05.wait_store();
      });
      store_shared(sp, p.template to<T>());
      fence.proxy_async();
      tcgen05.wait_load();
      sync();

      // O += P V.
      single_warp([&] {
        tcgen05.mma(sp, sv, t_o, j > 0);
        tcgen05.commit(values_done[0]);
      });
      mbarrier.wait(values_done[0], mma_phase, WaitSemantics::acquire, WaitScope::cta);
      mma_phase ^= 1u;
    }

    auto out = tcgen05.load(t_o) / l_i;
    store_global(global_view(o, {batch * heads, seq_q, head_dim}),
                 reshape(out.template to<T>(), {1, block_m, head_dim}), {bh, row0, 0});
    store_global(global_view(lse, {batch * heads, seq_q}),
                 reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, block_m}), {bh, row0});
    tcgen05.wait_load();
    sync();
    tcgen05.dealloc(t_s);
    tcgen05.dealloc(t_o);
  }
};

}  // namespace tessel::examples::attention
