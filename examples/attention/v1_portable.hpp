#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 1, portable (sm_80): O = softmax(Q Kᵀ · scale) V for [batch, heads, seq, head_dim]
// tensors, with K and V of kv_heads heads (grouped-query attention: heads / kv_heads query heads
// share one), and the log-sum-exp of each row for a backward pass. A block owns block_m query rows
// and walks the key blocks; each warp owns 16 rows. K and V come through a double-buffered cp.async
// ring; S = Q Kᵀ and O += P V run on mma.sync, P reaching the second mma in registers (the
// accumulator's fragment of two n8 tiles is the A fragment of one k16 step). The softmax is online:
// a running row maximum m and sum l, in base 2 (the scale folds in log2 e), rescale O when m grows.
// A causal mask keeps key j <= query i (PyTorch's is_causal alignment) and skips the key blocks
// past the block's last row.
template <class T> struct AttentionV1Portable : Script {
  int block_m = 64, block_n = 64;
  int warps = 4;
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    attrs.blocks = {cdiv(seq_q, block_m), batch * heads};
    attrs.warps = warps;
    Int32 bh = blockIdx.y;
    Int32 kv_bh = (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads);
    Int32 row0 = blockIdx.x * block_m;
    auto gq = global_view(q, {batch * heads, seq_q, head_dim});
    auto go = global_view(o, {batch * heads, seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads, seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads, seq_k, head_dim});
    auto glse = global_view(lse, {batch * heads, seq_q});
    auto sq = shared_tensor<T>({1, block_m, head_dim});
    auto sk = shared_tensor<T>({2, 1, block_n, head_dim});
    auto sv = shared_tensor<T>({2, 1, block_n, head_dim});
    // S = Q Kᵀ: [block_m, block_n] over k = head_dim; O += P V: [block_m, head_dim] over k = block_n.
    const MmaLayouts qk = mma_layouts(block_m, block_n, head_dim, warps, 1);
    const MmaLayouts pv = mma_layouts(block_m, head_dim, block_n, warps, 1);
    auto acc = register_tensor<float>({block_m, head_dim}, 0.0f, pv.c);
    auto m_i = register_tensor<float>({block_m, 1}, -INFINITY, qk.c.reduced(1));
    auto l_i = register_tensor<float>({block_m, 1}, 0.0f, qk.c.reduced(1));
    Float32 scale_log2 = scale * 1.4426950408889634f;
    Int32 key_blocks = cdiv(seq_k, block_n);
    if (causal) key_blocks = min(key_blocks, cdiv(row0 + block_m, block_n));

    copy_async(gq, sq, {bh, row0, 0});
    copy_async_commit_group();
    copy_async(gk, sk[0], {kv_bh, 0, 0});
    copy_async(gv, sv[0], {kv_bh, 0, 0});
    copy_async_commit_group();
    copy_async_wait_group(1);  // Q has landed; the first K and V blocks may be in flight
    sync();
    auto rq = load_shared(sq[0], {0, 0}, {block_m, head_dim}, qk.a);
    for (Int32 j : range(0, key_blocks)) {
      copy_async_wait_group(0);
      // Every warp sees block j, and every warp is done with block j - 1, whose stage is refilled.
      sync();
      if_(j + 1 < key_blocks, [&] {
        copy_async(gk, sk[(j + 1) % 2], {kv_bh, (j + 1) * block_n, 0});
        copy_async(gv, sv[(j + 1) % 2], {kv_bh, (j + 1) * block_n, 0});
      });
      copy_async_commit_group();
      auto rk = load_shared(sk[j % 2][0].transpose(), {0, 0}, {head_dim, block_n}, qk.b);
      auto s = dot(rq, rk, register_tensor<float>({block_m, block_n}, 0.0f, qk.c));
      auto cols = arange({block_m, block_n}, 1) + j * block_n;
      s = where(cols < seq_k, s * scale_log2, -INFINITY);
      if (causal) s = where(cols <= arange({block_m, block_n}, 0) + row0, s, -INFINITY);
      auto m_new = maximum(m_i, max(s, 1));
      auto p = exp2(s - m_new);
      auto rescale = exp2(m_i - m_new);
      l_i = l_i * rescale + sum(p, 1);
      auto rv = load_shared(sv[j % 2][0], {0, 0}, {block_n, head_dim}, pv.b);
      acc = dot(convert_layout(p.template to<T>(), pv.a), rv, acc * rescale);
      m_i = m_new;
    }
    // A row past seq_q has a zero sum; its store is masked.
    auto out = acc / l_i;
    store_global(go, reshape(out.template to<T>(), {1, block_m, head_dim}), {bh, row0, 0});
    store_global(glse, reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, block_m}), {bh, row0});
  }
};

}  // namespace tessel::examples::attention
