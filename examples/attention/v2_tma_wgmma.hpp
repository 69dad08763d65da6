#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 2, Hopper (sm_90a): step 1's algorithm on TMA and wgmma. Q, K and V lie in
// shared memory as 64-wide column blocks [head_dim / 64, rows, 64], one TMA box each (a
// 128-byte-swizzled box is one 128-byte span), which is what both mmas read: S = Q Kᵀ runs one SS
// wgmma per block of head_dim (K-major operands), and O += P V runs as an RS wgmma, P from
// registers and V MN-major in its blocks (V as it lies in global memory, no transpose). K and V
// arrive through a ring of `stages` slots with full and empty mbarriers, as in the Hopper matmul
// ladder's step 2; two warpgroups each own 64 query rows.
//
// The loads address Q, K and V as [rows, head_dim] matrices of all heads: a tile that runs past a
// head's last row reads the next head's rows, which the key mask (keys) and the masked stores
// (queries) leave without effect.
template <class T> struct AttentionV2TmaWgmma : Script {
  int block_m = 128, block_n = 64;
  int warpgroups = 2;
  int stages = 2;
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    attrs.blocks = {cdiv(seq_q, block_m), batch * heads};
    attrs.warps = 4 * warpgroups;
    const int threads = 128 * warpgroups;
    const int chunks = head_dim / 64;
    Int32 bh = blockIdx.y;
    Int32 kv_bh = (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads);
    Int32 row0 = blockIdx.x * block_m;
    Int32 q_row = bh * seq_q + row0, kv_row = kv_bh * seq_k;
    auto gq = global_view(q, {batch * heads * seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads * seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads * seq_k, head_dim});
    auto go = global_view(o, {batch * heads, seq_q, head_dim});
    auto glse = global_view(lse, {batch * heads, seq_q});
    auto sq = shared_tensor<T>({chunks, block_m, 64});
    auto sk = shared_tensor<T>({stages, chunks, block_n, 64});
    auto sv = shared_tensor<T>({stages, chunks, block_n, 64});
    auto q_full = mbarrier.alloc(std::vector<int>{1});
    auto full = mbarrier.alloc(std::vector<int>(stages, 1));
    auto empty = mbarrier.alloc(std::vector<int>(stages, threads));
    const int stage_bytes = int(sk[0].nbytes() + sv[0].nbytes());
    Int32 key_blocks = cdiv(seq_k, block_n);
    if (causal) key_blocks = min(key_blocks, cdiv(row0 + block_m, block_n));

    single_thread([&] {
      mbarrier.arrive_and_expect_tx(q_full[0], int(sq.nbytes()));
      for (int c = 0; c < chunks; ++c) tma.global_to_shared(gq, sq[c], {q_row, c * 64}, q_full[0]);
    });
    Int32 load_stage = 0;
    UInt32 load_phase = mbarrier.producer_initial_phase;
    auto load = [&](Int32 block) {
      single_thread([&] {
        mbarrier.wait(empty[load_stage], load_phase);
        mbarrier.arrive_and_expect_tx(full[load_stage], stage_bytes);
        for (int c = 0; c < chunks; ++c) {
          tma.global_to_shared(gk, sk[load_stage][c], {kv_row + block * block_n, c * 64}, full[load_stage]);
          tma.global_to_shared(gv, sv[load_stage][c], {kv_row + block * block_n, c * 64}, full[load_stage]);
        }
      });
      load_stage = (load_stage + 1) % stages;
      load_phase ^= load_stage == 0;
    };
    for (int s = 0; s < stages - 1; ++s) if_(s < key_blocks, [&] { load(s); });

    const WgmmaLayouts pv = wgmma_layouts(block_m, head_dim, block_n, warpgroups);
    auto acc = register_tensor<float>({block_m, head_dim}, 0.0f);
    auto m_i = register_tensor<float>({block_m, 1}, -INFINITY);
    auto l_i = register_tensor<float>({block_m, 1}, 0.0f);
    Float32 scale_log2 = scale * 1.4426950408889634f;
    mbarrier.wait(q_full[0], mbarrier.consumer_initial_phase);
    Int32 stage = 0;
    UInt32 phase = mbarrier.consumer_initial_phase;
    for (Int32 j : range(0, key_blocks)) {
      Int32 next = j + (stages - 1);
      if_(next < key_blocks, [&] { load(next); });
      mbarrier.wait(full[stage], phase);
      auto s = register_tensor<float>({block_m, block_n}, 0.0f);
      wgmma.fence();
      for (int c = 0; c < chunks; ++c) wgmma.mma(sq[c], sk[stage][c].transpose(), s);
      wgmma.commit_group();
      wgmma.wait_group(0);
      auto cols = arange({block_m, block_n}, 1) + j * block_n;
      s = where(cols < seq_k, s * scale_log2, -INFINITY);
      if (causal) s = where(cols <= arange({block_m, block_n}, 0) + row0, s, -INFINITY);
      auto m_new = maximum(m_i, max(s, 1));
      auto p = exp2(s - m_new);
      auto rescale = exp2(m_i - m_new);
      l_i = l_i * rescale + sum(p, 1);
      acc = acc * rescale;
      auto p_a = convert_layout(p.template to<T>(), pv.a);
      wgmma.fence();
      wgmma.mma(p_a, sv[stage], acc);
      wgmma.commit_group();
      wgmma.wait_group(0);
      mbarrier.arrive(empty[stage]);  // both mmas that read the slot are retired
      m_i = m_new;
      stage = (stage + 1) % stages;
      phase ^= stage == 0;
    }
    auto out = acc / l_i;
    store_global(go, reshape(out.template to<T>(), {1, block_m, head_dim}), {bh, row0, 0});
    store_global(glse, reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, block_m}), {bh, row0});
  }
};

}  // namespace tessel::examples::attention
