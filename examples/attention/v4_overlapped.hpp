#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "tessel/lang/space.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples::attention {

// Attention step 4: step 3 with the softmax of one key block overlapped with the tensor cores'
// work on its neighbours, K and V in rings of their own, masks only where a block needs one,
// persistent blocks, O stored through shared memory by TMA, the consumer warpgroups in ping-pong
// or not, and a tuned space.
//
// Each consumer iteration issues S_j = Q K_jᵀ and then O += P_{j-1} V_{j-1} as two wgmma groups,
// waits for the first only, frees K_j's slot, and computes block j's softmax while the second
// runs; then it waits for the second and frees V_{j-1}'s slot. K's slots are freed an iteration
// before V's, so at head dimension 128 two of each with O's tile for the TMA store (which fit where
// three of each do without it) keep the tensor cores fed (docs/performance.md). O is rescaled for block j's row maxima
// in the next iteration, between the two groups' issues, so that the rescale runs beside S_{j+1}'s mma. So the exp2,
// the row reductions and the rescale, which the tensor cores would otherwise wait for, run beside them. With ping_pong,
// each consumer warpgroup is a thread group of its own with its 64 query rows, and they take turns in order at the
// tensor cores (FA3's ping-pong): a warpgroup waits for its turn, issues its wgmma, and hands the turn to the next, so
// that one's softmax runs while another's mma do. The turns are mbarriers of 128 arrivals, one per warpgroup; the
// first warpgroup's first wait passes (it waits with the producer's initial phase). Key blocks past the block's last
// query row are skipped (causal), and the key and causal masks are built only for the blocks that cross seq_k or the
// diagonal. P V runs in 64-key steps, V's slot being [block_n / 64, head_dim / 64, 64, 64] boxes: each step's V is
// MN-major in 64-wide column blocks.
//
// With persistent, the grid has one block per multiprocessor, each walking the tiles (a head's
// block of block_m query rows) in passes of gridDim.x; else one block per tile. The tiles of one
// head are consecutive, so the blocks at work share a few heads' K and V in L2, and causal tiles
// come longest first. Causal tiles' work grows with their row, so every other pass runs backwards:
// the block that took a long tile in one pass takes a short one in the next. The rings run on
// across tiles, and Q has a barrier pair of its own: the producer loads the next tile's Q and
// first key blocks while the consumers finish the current tile.
//
// Without a mask, the tiles left for the last pass are fewer than the blocks (2048 tiles make 15.5
// passes on 132 multiprocessors), so with split_tail their key blocks are dealt out evenly to every
// block, in runs that may start or end inside a tile (stream-K over the last pass). The run that
// holds a tile's first key block finishes the tile: it merges the partials (O unnormalized, row
// maximum and sum) that the runs holding the rest of its key blocks stored in a global scratch,
// each before a release of its flag. The ranges of key blocks are dealt in reverse block order, so
// that a merging block waits only for blocks launched before it; partials are stored by a block's
// first run and merged at the end of another's, so the wait is short.
template <class T> struct AttentionV4Overlapped : Script {
  int block_m = 128, block_n = 128;
  int consumer_warpgroups = 2;
  // K and V stages: a K slot is free once S has read it, a V slot only once P V has, an iteration
  // later. 0: as many of each as fit beside Q and O, at most 3.
  int k_stages = 0, v_stages = 0;
  int ping_pong = 0;
  int persistent = 1;
  // With epilogue_tma, each consumer group writes its rows of O to a shared tile of its own (stmatrix)
  // and one thread stores it with TMA, so that the group is back at the tensor cores sooner than
  // with stores from registers.
  int epilogue_tma = 1;
  // Split the last pass's tiles over every block (persistent, without a mask; see above).
  int split_tail = 1;
  static constexpr const char* param_names[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal",
                                                "scale", "q",     "k",        "v",     "o",     "lse"};

  // The first candidate is the configuration above. Ping-pong is not tuned: on the H200 it measured
  // slower at head dimension 128 and no faster at 64 (docs/performance.md); a kernel built from a
  // script object asks for it. One block per tile is for causal tiles that the persistent walk
  // leaves unbalanced (at 16k tokens, where a head's tiles are about as many as the blocks). Three
  // consumer warpgroups on 192 query rows are for head dimension 64, where a key block's two mma
  // are half as long as at 128 and the softmax between them weighs more (FlashAttention-3 takes
  // 192-row tiles there too); at 128 their 160 registers a thread do not hold S, P and O.
  static Space space() {
    return (tune("persistent, split_tail", {&AttentionV4Overlapped::persistent, &AttentionV4Overlapped::split_tail},
                 {{1, 1}, {1, 0}, {0, 0}}) *
            tune("block_m, consumer_warpgroups, block_n",
                 {&AttentionV4Overlapped::block_m, &AttentionV4Overlapped::consumer_warpgroups,
                  &AttentionV4Overlapped::block_n},
                 {{128, 2, 128}, {128, 2, 64}, {192, 3, 128}}) *
            tune("epilogue_tma", &AttentionV4Overlapped::epilogue_tma, {1, 0}));
  }

  static constexpr int shared_budget = 224 * 1024;  // of the 227 KB a block may have, some left for barriers
  // The stages of a ring asked for `asked` (0: as many pairs of a K and a V stage as fit, at most 3).
  int stages(int asked, int head_dim) const {
    if (asked > 0) return asked;
    const int element = dtype_bits(dtype_v<T>) / 8, tile = block_m * head_dim * element;
    const int pair = 2 * block_n * head_dim * element;
    return std::clamp((shared_budget - tile * (1 + epilogue_tma)) / pair, 1, 3);
  }

  static constexpr int producer_registers = 24;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

  void operator()(Int32 batch, Int32 heads, Int32 kv_heads, Int32 seq_q, Int32 seq_k, int head_dim, bool causal,
                  Float32 scale, Ptr<T> q, Ptr<T> k, Ptr<T> v, Ptr<T> o, Ptr<float> lse) {
    Int32 m_blocks = cdiv(seq_q, block_m);
    Int32 tiles = m_blocks * batch * heads;
    attrs.blocks = persistent ? min(tiles, multiprocessors) : Expr<int>(tiles);
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;
    const int chunks = head_dim / 64, key_chunks = block_n / 64;
    auto gq = global_view(q, {batch * heads * seq_q, head_dim});
    auto gk = global_view(k, {batch * kv_heads * seq_k, head_dim});
    auto gv = global_view(v, {batch * kv_heads * seq_k, head_dim});
    // Q by consumer thread group: one of 64 rows per warpgroup in ping-pong, else one of block_m.
    const int groups = ping_pong ? consumer_warpgroups : 1, group_rows = block_m / groups;
    auto sq = shared_tensor<T>({groups, chunks, group_rows, 64});
    const int k_slots = stages(k_stages, head_dim), v_slots = stages(v_stages, head_dim);
    auto sk = shared_tensor<T>({k_slots, chunks, block_n, 64});
    auto sv = shared_tensor<T>({v_slots, key_chunks, chunks, 64, 64});
    std::optional<SharedTensor> so;  // O by consumer group, in 64-column TMA boxes of 128-byte rows
    if (epilogue_tma) so = shared_tensor<T>({groups, chunks, group_rows, 64}, Swizzle::b128);
    auto q_full = mbarrier.alloc(std::vector<int>{1});
    auto q_empty = mbarrier.alloc(std::vector<int>{consumer_threads});
    // K and V have rings of their own: key block j is in K slot j % k_slots and V slot j % v_slots.
    auto k_full = mbarrier.alloc(std::vector<int>(k_slots, 1));
    auto k_empty = mbarrier.alloc(std::vector<int>(k_slots, consumer_threads));
    auto v_full = mbarrier.alloc(std::vector<int>(v_slots, 1));
    auto v_empty = mbarrier.alloc(std::vector<int>(v_slots, consumer_threads));
    // A role's place in a ring: the next slot and the phase its barriers are waited with.
    struct Cursor {
      int slots;
      Int32 slot;
      UInt32 phase;
      void advance() {
        slot = (slot + 1) % slots;
        phase ^= slot == 0;
      }
    };
    auto turn = mbarrier.alloc(std::vector<int>(groups, 128));
    Int32 key_blocks = cdiv(seq_k, block_n);  // of a tile without a mask
    // Tile `tile`'s head (bh), its K/V head, its first query row and its key blocks.
    struct Tile {
      Int32 bh, kv_bh, row0, key_blocks;
    };
    auto tile_at = [&](const Int32& tile) {
      Int32 bh = tile / m_blocks;
      Int32 m_block = tile % m_blocks;
      if (causal) m_block = m_blocks - 1 - m_block;
      Int32 row0 = m_block * block_m;
      Int32 blocks = key_blocks;
      if (causal) blocks = min(key_blocks, cdiv(row0 + block_m, block_n));
      return Tile{bh, (bh / heads) * kv_heads + (bh % heads) / (heads / kv_heads), row0, blocks};
    };

    // A run of one tile's key blocks [first, end) that this block computes.
    struct Segment {
      Int32 tile, first, end;
    };
    // Calls body(segment) for this block's runs. Pass p takes tile p * gridDim.x + blockIdx.x whole,
    // and with a causal mask every other pass runs the other way, so that the blocks that take a
    // pass's longest tiles take the next pass's shortest. With split_tail, the tiles after the last
    // full pass are dealt out as runs of key blocks: range r (of block gridDim.x - 1 - r) takes
    // their units [tail_start(r), tail_start(r + 1)), one or two runs (steps tile_passes and
    // tile_passes + 1).
    const bool split = persistent && split_tail && !causal;
    // The passes that take tiles whole: every pass without the split.
    Int32 tile_passes = split ? Expr<int>(tiles / gridDim.x) : cdiv(tiles, gridDim.x);
    Int32 tail_units = (tiles - tile_passes * gridDim.x) * key_blocks;
    Int32 my_range = gridDim.x - 1 - blockIdx.x;
    auto tail_start = [&](const Expr<int>& range) { return range * tail_units / gridDim.x; };
    auto for_each_segment = [&](auto body) {
      for (Int32 step : range(0, tile_passes + (split ? 2 : 0))) {
        Int32 tile = step * gridDim.x + blockIdx.x;
        if (causal) tile = tile + step % 2 * (gridDim.x - 1 - 2 * blockIdx.x);
        Int32 first = 0, end = tile_at(tile).key_blocks;
        if (split) {
          Int32 start =
              select(step == tile_passes, tail_start(my_range), (tail_start(my_range) / key_blocks + 1) * key_blocks);
          Int32 stop = min(tail_start(my_range + 1), (start / key_blocks + 1) * key_blocks);
          Expr<bool> in_tail = step >= tile_passes;
          tile = select(in_tail, tile_passes * gridDim.x + start / key_blocks, tile);
          first = select(in_tail, start % key_blocks, 0);
          end = select(in_tail, first + stop - start, end);
        }
        if_(tile < tiles && first < end, [&] { body(Segment{tile, first, end}); });
      }
    };

    // A run that does not start a tile stores its partial; the tile's first run merges them.
    std::optional<GlobalTensor> partial_o, partial_stats, partial_ready;
    if (split) {
      partial_o = global_scratch<float>({multiprocessors * block_m, head_dim});
      partial_stats = global_scratch<float>({multiprocessors * block_m, 2});  // row maximum (log2) and sum
      partial_ready = global_scratch<int32_t>({multiprocessors * groups}, ScratchContents::zeroed);
    }

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        Cursor k_ring{k_slots, 0, mbarrier.producer_initial_phase};
        Cursor v_ring{v_slots, 0, mbarrier.producer_initial_phase};
        UInt32 q_phase = mbarrier.producer_initial_phase;
        for_each_segment([&](const Segment& run) {
          const Tile t = tile_at(run.tile);
          mbarrier.wait(q_empty[0], q_phase);
          q_phase ^= 1u;
          single_thread([&] { mbarrier.arrive_and_expect_tx(q_full[0], int(sq.nbytes())); });
          for (int g = 0; g < groups; ++g)
            for (int c = 0; c < chunks; ++c)
              tma.global_to_shared(gq, sq[g][c], {t.bh * seq_q + t.row0 + g * group_rows, c * 64}, q_full[0]);
          for (Int32 j : range(run.first, run.end)) {
            Int32 key_row = t.kv_bh * seq_k + j * block_n;
            mbarrier.wait(k_empty[k_ring.slot], k_ring.phase);
            single_thread([&] { mbarrier.arrive_and_expect_tx(k_full[k_ring.slot], int(sk[0].nbytes())); });
            for (int c = 0; c < chunks; ++c)
              tma.global_to_shared(gk, sk[k_ring.slot][c], {key_row, c * 64}, k_full[k_ring.slot]);
            k_ring.advance();
            mbarrier.wait(v_empty[v_ring.slot], v_ring.phase);
            single_thread([&] { mbarrier.arrive_and_expect_tx(v_full[v_ring.slot], int(sv[0].nbytes())); });
            for (int c = 0; c < chunks; ++c)
              for (int kc = 0; kc < key_chunks; ++kc)
                tma.global_to_shared(gv, sv[v_ring.slot][kc][c], {key_row + kc * 64, c * 64}, v_full[v_ring.slot]);
            v_ring.advance();
          }
        });
      });
    });

    auto consume = [&](int g) {
      setmaxnreg.increase(consumer_registers());
      const int rows = group_rows;
      const WgmmaLayouts pv = wgmma_layouts(rows, head_dim, 64, consumer_warpgroups / groups);
      UInt32 turn_phase = g == 0 ? mbarrier.producer_initial_phase : mbarrier.consumer_initial_phase;
      // The tensor cores' turn, in ping-pong: wait for it before issuing, hand it over after.
      auto take_turn = [&] {
        if (!ping_pong) return;
        mbarrier.wait(turn[g], turn_phase);
        turn_phase ^= 1u;
      };
      auto pass_turn = [&] {
        if (ping_pong) mbarrier.arrive(turn[(g + 1) % groups]);
      };
      Float32 scale_log2 = scale * 1.4426950408889634f;
      // The next block S reads K of, and the next block P V reads V of.
      Cursor k_ring{k_slots, 0, mbarrier.consumer_initial_phase};
      Cursor v_ring{v_slots, 0, mbarrier.consumer_initial_phase};
      UInt32 q_phase = mbarrier.consumer_initial_phase;

      auto s = register_tensor<float>({rows, block_n}, 0.0f);
      // S_j = Q K_jᵀ into s, issued as one wgmma group; the first chunk's mma overwrites s, so s
      // needs no zeroing.
      auto issue_scores = [&] {
        for (int c = 0; c < chunks; ++c) wgmma.mma(sq[g][c], sk[k_ring.slot][c].transpose(), s, c > 0);
        wgmma.commit_group();
      };
      // S is retired: its K slot goes back to the producer.
      auto release_keys = [&] {
        mbarrier.arrive(k_empty[k_ring.slot]);
        k_ring.advance();
      };
      // P as the A operands of P V's 64-key steps: T, in wgmma's register-A layout.
      auto value_steps = [&](const RegisterTensor& p) {
        std::vector<RegisterTensor> steps;
        for (int kc = 0; kc < key_chunks; ++kc)
          steps.push_back(convert_layout(p.slice({0, kc * 64}, {rows, 64}).template to<T>(), pv.a));
        return steps;
      };
      // O += P V for the previous block, as one wgmma group, once its V is in (after a fence: the
      // steps were written).
      auto issue_values = [&](const std::vector<RegisterTensor>& steps, RegisterTensor& acc) {
        mbarrier.wait(v_full[v_ring.slot], v_ring.phase);
        wgmma.fence();
        for (int kc = 0; kc < key_chunks; ++kc) wgmma.mma(steps[kc], sv[v_ring.slot][kc], acc);
        wgmma.commit_group();
      };
      // P V is retired: its V slot goes back to the producer.
      auto release_values = [&] {
        mbarrier.arrive(v_empty[v_ring.slot]);
        v_ring.advance();
      };

      for_each_segment([&](const Segment& run) {
        const Tile t = tile_at(run.tile);
        Int32 first_row = t.row0 + g * group_rows;
        auto acc = register_tensor<float>({rows, head_dim}, 0.0f);
        auto m_i = register_tensor<float>({rows, 1}, -INFINITY);
        auto l_i = register_tensor<float>({rows, 1}, 0.0f);
        // Block j's online-softmax step on its scores; returns the factor O must be rescaled by.
        // The row maximum is taken on the raw scores and scaled after (scale > 0), so that each
        // score costs one fma and one ex2 (the fast, flush-to-zero form: a term below 2^-126 is 0).
        auto softmax = [&](Int32 j) {
          Int32 last_key = (j + 1) * block_n - 1;
          if_(causal ? (last_key >= seq_k || last_key > first_row) : last_key >= seq_k, [&] {
            auto cols = arange({rows, block_n}, 1) + j * block_n;
            s = where(cols < seq_k, s, -INFINITY);
            if (causal) s = where(cols <= arange({rows, block_n}, 0) + first_row, s, -INFINITY);
          });
          auto m_new = maximum(m_i, max(s, 1) * scale_log2);
          auto p = exp2(s * scale_log2 - m_new, Precision::fast);  // contracted to one fma
          auto rescale = exp2(m_i - m_new, Precision::fast);
          l_i = l_i * rescale + sum(p, 1);
          m_i = m_new;
          s = p;
          return rescale;
        };

        mbarrier.wait(q_full[0], q_phase);
        q_phase ^= 1u;
        mbarrier.wait(k_full[k_ring.slot], k_ring.phase);
        take_turn();
        wgmma.fence();
        issue_scores();
        pass_turn();
        wgmma.wait_group(0);
        release_keys();
        // Once the run's last S is done, Q's slot is free: the next run's Q loads from here on.
        const auto release_q_after = [&](const Int32& j) {
          if_(j + 1 == run.end, [&] { mbarrier.arrive(q_empty[0]); });
        };
        release_q_after(run.first);
        auto rescale = softmax(run.first);  // O is zero, so its rescale at the next block changes nothing
        std::vector<RegisterTensor> p = value_steps(s);
        for (Int32 j : range(run.first + 1, run.end)) {
          mbarrier.wait(k_full[k_ring.slot], k_ring.phase);
          take_turn();
          wgmma.fence();
          issue_scores();
          acc = acc * rescale;  // for block j - 1's row maxima, while S_j runs
          issue_values(p, acc);
          pass_turn();
          wgmma.wait_group(1);  // S_j is done; P_{j-1} V_{j-1} may still run
          release_keys();
          release_q_after(j);
          rescale = softmax(j);
          const std::vector<RegisterTensor> next = value_steps(s);
          wgmma.wait_group(0);
          release_values();
          for (int kc = 0; kc < key_chunks; ++kc) p[kc] = next[kc];
        }
        take_turn();
        acc = acc * rescale;
        issue_values(p, acc);
        pass_turn();
        wgmma.wait_group(0);
        release_values();
        // The partials of a split tile: its rows of O unnormalized, their maxima (log2) and sums.
        auto partial_row = [&](const Expr<int>& range) { return range * block_m + g * group_rows; };
        auto store_partial = [&] {
          store_global(*partial_o, acc, {partial_row(my_range), 0});
          store_global(*partial_stats, m_i, {partial_row(my_range), 0});
          store_global(*partial_stats, l_i, {partial_row(my_range), 1});
          sync();  // every element is stored before the flag releases them
          single_thread([&] { atomic.store(*partial_ready, {my_range * groups + g}, 1, MemoryOrder::release); });
        };
        // The tile's first run takes in the partials of the ranges after its own that start inside
        // the tile (an empty range stores none), as one more online-softmax step each.
        auto merge_partials = [&] {
          Int32 tile_end = (run.tile - tile_passes * gridDim.x + 1) * key_blocks;
          Int32 other = my_range + 1;
          while_([&] { return other < gridDim.x && tail_start(other) < tile_end; },
                 [&] {
                   if_(tail_start(other) < tail_start(other + 1), [&] {
                     single_thread([&] {
                       Var<int32_t> seen(0);
                       while_([&] { return seen == 0; },
                              [&] {
                                seen = atomic.load<int32_t>(*partial_ready, {other * groups + g}, MemoryOrder::acquire);
                              });
                       atomic.store(*partial_ready, {other * groups + g}, 0);  // zero for the next launch
                     });
                     sync();
                     auto m_other = load_global(*partial_stats, {partial_row(other), 0}, {rows, 1});
                     auto l_other = load_global(*partial_stats, {partial_row(other), 1}, {rows, 1});
                     auto m_new = maximum(m_i, m_other);
                     auto mine = exp2(m_i - m_new, Precision::fast), theirs = exp2(m_other - m_new, Precision::fast);
                     acc = acc * mine + load_global(*partial_o, {partial_row(other), 0}, {rows, head_dim}) * theirs;
                     l_i = l_i * mine + l_other * theirs;
                     m_i = m_new;
                   });
                   other = other + 1;
                 });
        };
        auto write_out = [&] {
          auto out = (acc * (1.0f / l_i)).template to<T>();
          auto go = global_view(o, {batch * heads, seq_q, head_dim});
          if (epilogue_tma) {
            // The previous tile's store has read the group's tile before anyone overwrites it.
            single_thread([&] { tma.wait_group(0, true); });
            sync();
            for (int c = 0; c < chunks; ++c) store_shared((*so)[g][c], out.slice({0, c * 64}, {rows, 64}));
            fence.proxy_async();
            sync();
            single_thread([&] {
              for (int c = 0; c < chunks; ++c) tma.shared_to_global((*so)[g][c], go, {t.bh, first_row, c * 64}, {1, 2});
              tma.commit_group();
            });
          } else {
            store_global(go, reshape(out, {1, rows, head_dim}), {t.bh, first_row, 0});
          }
          store_global(global_view(lse, {batch * heads, seq_q}),
                       reshape((m_i + log2(l_i)) * 0.6931471805599453f, {1, rows}), {t.bh, first_row});
        };
        if (!split) {
          write_out();
        } else {
          if_(run.first > 0, store_partial).else_([&] {
            if_(run.end < key_blocks, merge_partials);
            write_out();
          });
        }
      });
      if (epilogue_tma) single_thread([&] { tma.wait_group(0); });
    };
    if (ping_pong) {
      for (int g = 0; g < groups; ++g) thread_group(128 * (1 + g), 128, [&] { consume(g); });
    } else {
      thread_group(128, consumer_threads, [&] { consume(0); });
    }
  }
};

}  // namespace tessel::examples::attention
