#pragma once

#include <algorithm>
#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 3: step 2 with the loads and the math in different roles, as in the Hopper
// matmul ladder's step 3. Warpgroup 0 is the producer: it gives up registers (setmaxnreg) and its
// first warp loads Q once and then K and V block after block, waiting only for a slot of the ring
// to be empty, so it runs up to `stages` blocks ahead. The two consumer warpgroups take the
// registers, wait for each slot to be full, run both mmas and the online softmax on their 64 query
// rows each, and free the slot once the mmas that read it are retired.
template <class T> struct AttentionV3WarpSpecialized : Script {
  int block_m = 128, block_n = 64;
  int consumer_warpgroups = 2;
  int stages = 3;
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  // A warpgroup's share of the register file is 512 registers per thread; the producer keeps 40
  // and the consumers split the rest, up to setmaxnreg's 256.
  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    attrs.blocks = {cdiv(seq_q, block_m), batch * heads};
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;
    const int chunks = head_dim / 64;
    Int32 bh = blockIdx.y;
    Int32 kv_bh = (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads);
    Int32 row0 = blockIdx.x * block_m;
    auto gq = global_view(q, {batch * heads * seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads * seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads * seq_k, head_dim});
    auto sq = shared_tensor<T>({chunks, block_m, 64});
    auto sk = shared_tensor<T>({stages, chunks, block_n, 64});
    auto sv = shared_tensor<T>({stages, chunks, block_n, 64});
    auto q_full = mbarrier.alloc(std::vector<int>{1});
    auto full = mbarrier.alloc(std::vector<int>(stages, 1));
    auto empty = mbarrier.alloc(std::vector<int>(stages, consumer_threads));
    const int stage_bytes = int(sk[0].nbytes() + sv[0].nbytes());
    Int32 key_blocks = cdiv(seq_k, block_n);
    if (causal) key_blocks = min(key_blocks, cdiv(row0 + block_m, block_n));

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        single_thread([&] { mbarrier.arrive_and_expect_tx(q_full[0], int(sq.nbytes())); });
        for (int c = 0; c < chunks; ++c) tma.global_to_shared(gq, sq[c], {bh * seq_q + row0, c * 64}, q_full[0]);
        Int32 stage = 0;
        UInt32 phase = mbarrier.producer_initial_phase;
        for (Int32 j : range(0, key_blocks)) {
          mbarrier.wait(empty[stage], phase);
          single_thread([&] { mbarrier.arrive_and_expect_tx(full[stage], stage_bytes); });
          for (int c = 0; c < chunks; ++c) {
            tma.global_to_shared(gk, sk[stage][c], {kv_bh * seq_k + j * block_n, c * 64}, full[stage]);
            tma.global_to_shared(gv, sv[stage][c], {kv_bh * seq_k + j * block_n, c * 64}, full[stage]);
          }
          stage = (stage + 1) % stages;
          phase ^= stage == 0;
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      const WgmmaLayouts pv = wgmma_layouts(block_m, head_dim, block_n, consumer_warpgroups);
      auto acc = register_tensor<float>({block_m, head_dim}, 0.0f);
      auto m_i = register_tensor<float>({block_m, 1}, -INFINITY);
      auto l_i = register_tensor<float>({block_m, 1}, 0.0f);
      Float32 scale_log2 = scale * 1.4426950408889634f;
      mbarrier.wait(q_full[0], mbarrier.consumer_initial_phase);
      Int32 stage = 0;
      UInt32 phase = mbarrier.consumer_initial_phase;
      for (Int32 j : range(0, key_blocks)) {
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
      store_global(global_view(o, {batch * heads, seq_q, head_dim}),
                   reshape(out.template to<T>(), {1, block_m, head_dim}), {bh, row0, 0});
      store_global(global_view(lse, {batch * heads, seq_q}),
                   reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, block_m}), {bh, row0});
    });
  }
};

}  // namespace tessel::examples::attention
