#pragma once

#include <algorithm>
#include <vector>

#include "tessel/lang/space.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 4: step 3 with the softmax of one key block overlapped with the tensor cores'
// work on its neighbours, masks only where a block needs one, and a tuned space.
//
// Each consumer iteration issues S_j = Q K_jᵀ and then O += P_{j-1} V_{j-1} as two wgmma groups,
// waits for the first only, and computes block j's softmax while the second runs; then it waits
// for the second, frees block j - 1's slot, and rescales O for block j's new row maximum. So the
// exp2 and the row reductions, which the tensor cores would otherwise wait for, run beside them.
// Key blocks past the block's last query row are skipped (causal), and the key and causal masks
// are built only for the blocks that cross seq_k or the diagonal. P V runs in 64-key steps, V's
// slot being [block_n / 64, head_dim / 64, 64, 64] boxes: each step's V is MN-major in 64-wide
// column blocks.
template <class T> struct AttentionV4Overlapped : Script {
  int block_m = 128, block_n = 128;
  int consumer_warpgroups = 2;
  int stages = 2;
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  // The first candidate is the configuration above.
  static Space space() {
    return tune("block_n", &AttentionV4Overlapped::block_n, {128, 64}) *
           tune("stages", &AttentionV4Overlapped::stages, {2, 3});
  }

  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    attrs.blocks = {cdiv(seq_q, block_m), batch * heads};
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;
    const int chunks = head_dim / 64, key_chunks = block_n / 64;
    Int32 bh = blockIdx.y;
    Int32 kv_bh = (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads);
    Int32 row0 = blockIdx.x * block_m;
    auto gq = global_view(q, {batch * heads * seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads * seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads * seq_k, head_dim});
    auto sq = shared_tensor<T>({chunks, block_m, 64});
    auto sk = shared_tensor<T>({stages, chunks, block_n, 64});
    auto sv = shared_tensor<T>({stages, key_chunks, chunks, 64, 64});
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
          Int32 key_row = kv_bh * seq_k + j * block_n;
          for (int c = 0; c < chunks; ++c) {
            tma.global_to_shared(gk, sk[stage][c], {key_row, c * 64}, full[stage]);
            for (int kc = 0; kc < key_chunks; ++kc)
              tma.global_to_shared(gv, sv[stage][kc][c], {key_row + kc * 64, c * 64}, full[stage]);
          }
          stage = (stage + 1) % stages;
          phase ^= stage == 0;
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      const WgmmaLayouts pv = wgmma_layouts(block_m, head_dim, 64, consumer_warpgroups);
      auto acc = register_tensor<float>({block_m, head_dim}, 0.0f);
      auto m_i = register_tensor<float>({block_m, 1}, -INFINITY);
      auto l_i = register_tensor<float>({block_m, 1}, 0.0f);
      Float32 scale_log2 = scale * 1.4426950408889634f;
      Int32 stage = 0, previous_stage = 0;
      UInt32 phase = mbarrier.consumer_initial_phase;

      // S_j = Q K_jᵀ into `s` (zeroed before the fence), issued as one wgmma group.
      auto issue_scores = [&](RegisterTensor& s) {
        for (int c = 0; c < chunks; ++c) wgmma.mma(sq[c], sk[stage][c].transpose(), s);
        wgmma.commit_group();
      };
      // Block j's online-softmax step on its scores; returns the factor O must be rescaled by.
      auto softmax = [&](RegisterTensor& s, Int32 j) {
        s = s * scale_log2;
        Int32 last_key = (j + 1) * block_n - 1;
        if_(causal ? (last_key >= seq_k || last_key > row0) : last_key >= seq_k, [&] {
          auto cols = arange({block_m, block_n}, 1) + j * block_n;
          s = where(cols < seq_k, s, -INFINITY);
          if (causal) s = where(cols <= arange({block_m, block_n}, 0) + row0, s, -INFINITY);
        });
        auto m_new = maximum(m_i, max(s, 1));
        auto p = exp2(s - m_new);
        auto rescale = exp2(m_i - m_new);
        l_i = l_i * rescale + sum(p, 1);
        m_i = m_new;
        s = p;
        return rescale;
      };
      // P as the A operands of P V's 64-key steps: T, in wgmma's register-A layout.
      auto value_steps = [&](const RegisterTensor& p) {
        std::vector<RegisterTensor> steps;
        for (int kc = 0; kc < key_chunks; ++kc)
          steps.push_back(convert_layout(p.slice({0, kc * 64}, {block_m, 64}).template to<T>(), pv.a));
        return steps;
      };
      // O += P V for the block in `slot`, as one wgmma group (after a fence: the steps were written).
      auto issue_values = [&](const std::vector<RegisterTensor>& steps, Int32 slot) {
        for (int kc = 0; kc < key_chunks; ++kc) wgmma.mma(steps[kc], sv[slot][kc], acc);
        wgmma.commit_group();
      };
      auto advance = [&] {
        previous_stage = stage;
        stage = (stage + 1) % stages;
        phase ^= stage == 0;
      };

      mbarrier.wait(q_full[0], mbarrier.consumer_initial_phase);
      mbarrier.wait(full[stage], phase);
      auto first = register_tensor<float>({block_m, block_n}, 0.0f);
      wgmma.fence();
      issue_scores(first);
      wgmma.wait_group(0);
      softmax(first, 0);  // O is zero: its rescale is moot
      std::vector<RegisterTensor> p = value_steps(first);
      advance();
      for (Int32 j : range(1, key_blocks)) {
        mbarrier.wait(full[stage], phase);
        auto s = register_tensor<float>({block_m, block_n}, 0.0f);
        wgmma.fence();
        issue_scores(s);
        issue_values(p, previous_stage);
        wgmma.wait_group(1);  // S_j is done; P_{j-1} V_{j-1} may still run
        auto rescale = softmax(s, j);
        const std::vector<RegisterTensor> next = value_steps(s);
        wgmma.wait_group(0);
        mbarrier.arrive(empty[previous_stage]);  // both mmas that read block j - 1 are retired
        acc = acc * rescale;
        for (int kc = 0; kc < key_chunks; ++kc) p[kc] = next[kc];
        advance();
      }
      wgmma.fence();
      issue_values(p, previous_stage);
      wgmma.wait_group(0);
      mbarrier.arrive(empty[previous_stage]);
      auto out = acc / l_i;
      store_global(global_view(o, {batch * heads, seq_q, head_dim}),
                   reshape(out.template to<T>(), {1, block_m, head_dim}), {bh, row0, 0});
      store_global(global_view(lse, {batch * heads, seq_q}),
                   reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, block_m}), {bh, row0});
    });
  }
};

}  // namespace tessel::examples::attention
