// A mixture of experts' expert GEMMs as one grouped GEMM on Hopper: the rows that MoePermute put in
// the experts' order, times each expert's own weights, in bf16, or in fp8 with row and channel
// scales or with DeepSeek-V3's block scales.
#pragma once

#include <algorithm>
#include <optional>
#include <utility>

#include "tessel/lib/grouped_tiles.hpp"
#include "tessel/lib/pipeline.hpp"
#include "tessel/lib/tile_rasterization.hpp"
#include "tessel/lib/tma_store_epilogue.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

// The forms of the grouped GEMM differ in how its products are scaled: what each stage of the ring
// brings besides X's and W's tiles (`stage_bytes`, `load_stage`, by the producer), how a k-tile's mma
// reaches the tile's f32 sums and which stages it then releases (`start`, `k_tile`, `end`, by the
// consumers), and what the sums become before they are stored (`apply`).
namespace grouped_gemm {

// Where a tile lies: its first row of X, its first column of Y, and its group.
struct TileAt {
  const Int32& row;
  const Int32& column;
  const Int32& group;
};

// Every k-tile's mma adds into the tile's sums; a stage is released once the mma of the k-tile after
// it is issued.
struct Accumulating : Class {
  int64_t stage_bytes() const { return 0; }
  void load_stage(const Pipeline&, const Int32&, const Int32&) {}
  void start(const TileAt&) {}
  void k_tile(const SharedTensor& x, const SharedTensor& w, RegisterTensor& sums, const Int32& i, Pipeline& ring,
              const TileAt&) {
    wgmma.fence();
    wgmma.mma(x, w.transpose(), sums);
    wgmma.commit_group();
    // The mma of k-tile i - 1 is retired, so its stage, the one before, is consumed.
    wgmma.wait_group(1);
    if_(i > 0, [&] { mbarrier.arrive(previous_stage(ring)); });
  }

 protected:
  // After the last k-tile: its mma retired, and its stage released (there is one: k > 0 is required).
  void drain(Pipeline& ring) {
    wgmma.wait_group(0);
    mbarrier.arrive(previous_stage(ring));
  }

 private:
  static Mbarrier previous_stage(const Pipeline& ring) {
    return ring.empty_barriers[(ring.consumer_stage + ring.num_stages - 1) % ring.num_stages];
  }
};

// The sums as they are.
struct Unscaled : Accumulating {
  void end(const TileAt&, Pipeline& ring) { drain(ring); }
  const RegisterTensor& apply(const RegisterTensor& sums) { return sums; }
};

// The sums scaled by their row's scale and their expert's output channel's: scale_x [rows] and
// scale_w [groups, n], loaded as [block_m, 1] and [1, block_n] once the tile's last mma is issued,
// so that they arrive under it. Rows past X and columns past n read zeros, and are not stored.
struct RowScales : Accumulating {
  GlobalTensor row_scales, channel_scales;
  int block_m, block_n;
  RegisterTensor row_scale, channel_scale;
  RowScales(GlobalTensor row_scales, GlobalTensor channel_scales, int block_m, int block_n)
      : row_scales(std::move(row_scales)),
        channel_scales(std::move(channel_scales)),
        block_m(block_m),
        block_n(block_n) {}
  void end(const TileAt& at, Pipeline& ring) {
    row_scale = load_global(row_scales, {at.row, 0}, {block_m, 1});
    channel_scale = load_global(channel_scales, {at.group, at.column}, {1, block_n});
    drain(ring);
  }
  RegisterTensor apply(const RegisterTensor& sums) { return sums * row_scale * channel_scale; }
};

// DeepSeek-V3's scales: one per row of X and 128 of k (scale_x [cdiv(k, 128), rows], M-major as
// DeepGEMM takes them, each of its rows padded to a multiple of 4 floats, since TMA needs the rows'
// stride a multiple of 16 bytes), and one per 128 x 128 block of each expert's weights (scale_w [groups,
// cdiv(n, 128), cdiv(k, 128)]). A k-tile's row scales come with its stage, one more TMA box; its mma
// writes a fresh f32 tile, which is scaled by them times the block's scale and added to the sums:
// promoted to f32 every 128 of k, as fp8_gemm_block_scaled does. The next k-tile's block scale loads
// while the mma runs. A tile's 128 columns are one block of W's scales. A tile starts at its group's
// first row, any row, but a TMA box must start 16-byte aligned in global memory: the box of row
// scales starts at the row rounded down to a multiple of 4, and the consumers read from the row's
// place in it. The box holds 32 rows more than the tile, which leaves room for that place and makes
// each stage whole 128-byte units, where TMA needs each stage to start.
struct BlockScales : Class {
  static constexpr int scale_block = 128, row_alignment = 4;  // 4 f32 scales: 16 bytes
  static constexpr int extra_rows = 32;                       // 128 bytes of f32 scales
  GlobalTensor row_scales, block_scales;
  Int32 blocks_per_expert;
  int block_m, block_n;
  SharedTensor staged;  // [stages, 1, block_m + extra_rows]: each stage's row scales
  RegisterTensor partial, block_scale;
  BlockScales(GlobalTensor row_scales, GlobalTensor block_scales, const Int32& n, int stages, int block_m, int block_n,
              loc_t constructed_at = loc_t::current())
      : Class("BlockScales", constructed_at),
        row_scales(std::move(row_scales)),
        block_scales(std::move(block_scales)),
        blocks_per_expert(cdiv(n, scale_block)),
        block_m(block_m),
        block_n(block_n),
        staged(shared_tensor<float>({stages, 1, block_m + extra_rows}, Swizzle::none, constructed_at)) {
    if (block_m % extra_rows != 0)
      throw Error(
          SourceLoc::from(constructed_at),
          fmt::format("BlockScales: tiles of {} rows; whole 128-byte stages of row scales need a multiple of {}",
                      block_m, extra_rows));
    if (block_n != scale_block)
      throw Error(
          SourceLoc::from(constructed_at),
          fmt::format("BlockScales: tiles of {} columns; one block scale of W covers {}", block_n, scale_block));
  }
  int64_t stage_bytes() const { return staged[0].nbytes(); }
  // The first row of the box of row scales for a tile at `row`, and the tile's place in it.
  static Expr<int32_t> box_row(const Int32& row) { return row / row_alignment * row_alignment; }
  static Expr<int32_t> place_in_box(const Int32& row) { return row % row_alignment; }
  void load_stage(const Pipeline& ring, const Int32& row, const Int32& offset_k) {
    tma.global_to_shared(row_scales, staged[ring.producer_stage], {offset_k / scale_block, box_row(row)},
                         ring.producer_barrier());
  }
  // The block scale of k-tile i (a load past k is masked).
  RegisterTensor block_scale_of(const TileAt& at, const Int32& i) {
    return load_global(block_scales, {at.group * blocks_per_expert + at.column / scale_block, i}, {1, 1});
  }
  void start(const TileAt& at) {
    partial = register_tensor<float>({block_m, block_n}, 0.0f);
    block_scale = block_scale_of(at, 0);
  }
  void k_tile(const SharedTensor& x, const SharedTensor& w, RegisterTensor& sums, const Int32& i, Pipeline& ring,
              const TileAt& at) {
    const Int32 stage = ring.consumer_stage;
    wgmma.fence();
    wgmma.mma(x, w.transpose(), partial, false);
    wgmma.commit_group();
    // While the mma runs: this k-tile's row scales from its stage, and the next k-tile's block scale.
    auto rows = load_shared(staged[stage].transpose(), {place_in_box(at.row), 0}, {block_m, 1});
    auto next_block_scale = block_scale_of(at, i + 1);
    wgmma.wait_group(0);
    mbarrier.arrive(ring.consumer_barrier());
    sums = fma(partial, rows * block_scale, sums);
    block_scale = next_block_scale;
  }
  void end(const TileAt&, Pipeline&) {}
  const RegisterTensor& apply(const RegisterTensor& sums) { return sums; }
};

}  // namespace grouped_gemm

// Y[r, :] = X[r, :] · W[g]ᵀ for the rows r of group g: X [rows, k] holds the groups' rows one after
// the other, ends [groups] (i32) where each group's rows end, as torch._grouped_mm's offsets, and W
// [groups, n, k] every expert's weights (a group may have no rows). T is the operands' type (bf16,
// or fp8 e4m3, whose wgmma reads both operands K-major, as X and W lie), Out the output's.
//
// The Hopper ladder's persistent warp-specialized GEMM (MatmulV5Persistent) over the tiles of every
// group: a TMA producer warp fills a ring with X's rows and the group's W rows, 128 bytes of k a
// stage, and consumer warpgroups of 64 rows each run wgmma. The tile count is known only on the
// device, so the blocks walk a bound on it (a tile more per group than the rows need) rasterized as
// the ladder's are, and the tiles past the last group's are skipped by both roles alike. A tile's
// rows may run past its group's (X's next rows, read but not used). A tile within its group's rows
// leaves through shared memory by TMA stores, as the ladder's do (TmaStoreEpilogue); a group's last
// tile, when it runs past the group, is stored from registers, each row within the group's (a TMA
// store stops only at the tensor's bounds, which the host sets, not at a group's last row, which
// only the device knows).
template <class T, class Out> struct GroupedGemm : Script {
  int block_m = 128, block_n = 128;
  int stages = 5;
  int swizzle_size = 4;
  int consumer_warpgroups = 2;
  // 0 stores every tile from registers: no shared tile for the output.
  int tma_store = 1;
  static constexpr int block_k = 128 / int(sizeof(T));  // 128 bytes of each row: the widest swizzle span

  // The space of S, a grouped GEMM built on this one. Its stages hold as many bytes in bf16 and fp8.
  template <class S> static Space space_of() {
    return tune<S>("swizzle_size", &S::swizzle_size, {4, 8}) *
           tune<S>("block_m, consumer_warpgroups, block_n, stages",
                   {&S::block_m, &S::consumer_warpgroups, &S::block_n, &S::stages},
                   {{128, 2, 128, 5}, {128, 2, 256, 3}, {64, 1, 128, 8}, {128, 2, 112, 6}}) *
           tune<S>("tma_store", &S::tma_store, {1, 0});
  }

  static constexpr int producer_registers = 40;
  int consumer_registers() const { return std::min(256, (512 - producer_registers) / consumer_warpgroups / 8 * 8); }

 protected:
  // The GEMM in one of the forms of namespace grouped_gemm.
  template <class Form> void grouped(const Int32& rows, const Int32& n, const Int32& k, const Int32& groups,
                                     const Ptr<T>& x, const Ptr<T>& w, const Ptr<int32_t>& ends, const Ptr<Out>& y,
                                     Form& form) {
    require(rows > 0 && groups > 0, "X needs a row and W a group");
    // The rows of X, W and Y start 16-byte aligned for TMA: k a multiple of 8 in bf16 and of 16 in
    // fp8, n of 8 (Y's 16-bit elements).
    static_assert((sizeof(T) == 1 || sizeof(T) == 2) && sizeof(Out) == 2, "8- or 16-bit operands, a 16-bit output");
    constexpr int k_multiple = 16 / int(sizeof(T));
    require(k > 0 && k % k_multiple == 0 && n > 0 && n % 8 == 0,
            k_multiple == 8 ? "n and k must be positive multiples of 8 (the rows of X, W and Y start 16-byte "
                              "aligned for TMA)"
                            : "n must be a positive multiple of 8 and k of 16 (the rows of X, W and Y start "
                              "16-byte aligned for TMA)");
    Int32 num_m_blocks = cdiv(rows, block_m) + groups;  // a bound: each group's last tile may be partial
    Int32 num_n_blocks = cdiv(n, block_n);
    Int32 num_units = num_m_blocks * num_n_blocks;
    attrs.blocks = min(num_units, multiprocessors);
    attrs.warps = 4 * (1 + consumer_warpgroups);
    const int consumer_threads = 128 * consumer_warpgroups;

    auto g_x = global_view(x, {rows, k});
    // Every expert's rows one after the other: a tile of W that runs past n reads the next expert's
    // rows (or zeros past the last), and those columns are not stored.
    auto g_w = global_view(w, {groups * n, k});
    auto g_ends = global_view(ends, {groups});
    auto g_y = global_view(y, {rows, n});
    auto s_x = shared_tensor<T>({stages, block_m, block_k});
    auto s_w = shared_tensor<T>({stages, block_n, block_k});
    std::optional<TmaStoreEpilogue<Out>> epilogue;
    if (tma_store) epilogue = TmaStoreEpilogue<Out>(block_m, block_n);
    Pipeline ring(stages, 1, consumer_threads);
    TileRasterization rasterization(swizzle_size);

    warp_group(0, [&] {
      setmaxnreg.decrease(producer_registers);
      thread_group(0, 32, [&] {
        GroupedTiles tiles(g_ends, groups, rows, block_m);
        for (Int32 unit : range(blockIdx.x, num_units, gridDim.x)) {
          auto [m_block, n_block] = rasterization.compute_block_coord(unit, num_m_blocks, num_n_blocks);
          tiles.seek(m_block);
          if_(tiles.found(), [&] {
            const Int32 row = tiles.row_of(m_block), w_row = tiles.group * n + n_block * block_n;
            for (Int32 offset_k : range(0, k, block_k, stages)) {
              ring.producer_acquire();
              single_thread([&] {
                mbarrier.arrive_and_expect_tx(
                    ring.producer_barrier(),
                    s_x[ring.producer_stage].nbytes() + s_w[ring.producer_stage].nbytes() + form.stage_bytes());
              });
              tma.global_to_shared(g_x, s_x[ring.producer_stage], {row, offset_k}, ring.producer_barrier());
              tma.global_to_shared(g_w, s_w[ring.producer_stage], {w_row, offset_k}, ring.producer_barrier());
              form.load_stage(ring, row, offset_k);
              ring.producer_advance();
            }
          });
        }
      });
    });

    thread_group(128, consumer_threads, [&] {
      setmaxnreg.increase(consumer_registers());
      GroupedTiles tiles(g_ends, groups, rows, block_m);
      Int32 k_tiles = cdiv(k, block_k);
      for (Int32 unit : range(blockIdx.x, num_units, gridDim.x)) {
        auto [m_block, n_block] = rasterization.compute_block_coord(unit, num_m_blocks, num_n_blocks);
        tiles.seek(m_block);
        if_(tiles.found(), [&] {
          const Int32 row = tiles.row_of(m_block), column = n_block * block_n;
          const grouped_gemm::TileAt at{row, column, tiles.group};
          auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
          form.start(at);
          for (Int32 i : range(0, k_tiles, 1, stages)) {
            ring.consumer_acquire();
            form.k_tile(s_x[ring.consumer_stage], s_w[ring.consumer_stage], acc, i, ring, at);
            ring.consumer_advance();
          }
          form.end(at, ring);
          const auto& out = form.apply(acc);
          // The group's rows only: the view ends at the group's last row.
          const auto store_rows = [&] {
            store_global(global_view(y, {tiles.end_row, n}), out.template to<Out>(), {row, column});
          };
          if (tma_store)
            if_(row + block_m <= tiles.end_row, [&] { epilogue->store(out, g_y, row, column); }).else_(store_rows);
          else
            store_rows();
        });
      }
      if (epilogue) epilogue->finish();
    });
  }
};

// The bf16 (or f16) grouped GEMM: Y in T.
template <class T = bf16> struct MoeGroupedGemm : GroupedGemm<T, T> {
  static constexpr const char* param_names[] = {"rows", "n", "k", "groups", "x", "w", "ends", "y"};
  static Space space() { return GroupedGemm<T, T>::template space_of<MoeGroupedGemm>(); }
  void operator()(Int32 rows, Int32 n, Int32 k, Int32 groups, Ptr<T> x, Ptr<T> w, Ptr<int32_t> ends, Ptr<T> y) {
    grouped_gemm::Unscaled unscaled;
    this->grouped(rows, n, k, groups, x, w, ends, y, unscaled);
  }
};

// The fp8 grouped GEMM of w8a8 MoE layers: X and W in e4m3, Y[r, j] = scale_x[r] · scale_w[g][j] ·
// (X[r, :] · W[g][j, :]) in bf16, with an f32 scale per token row (scale_x [rows]) and per output
// channel of each expert (scale_w [groups, n]), as torch._scaled_grouped_mm takes them.
struct MoeGroupedGemmFp8 : GroupedGemm<f8e4m3, bf16> {
  static constexpr const char* param_names[] = {"rows", "n",    "k",       "groups",  "x",
                                                "w",    "ends", "scale_x", "scale_w", "y"};
  static Space space() { return space_of<MoeGroupedGemmFp8>(); }

  void operator()(Int32 rows, Int32 n, Int32 k, Int32 groups, Ptr<f8e4m3> x, Ptr<f8e4m3> w, Ptr<int32_t> ends,
                  Ptr<float> scale_x, Ptr<float> scale_w, Ptr<bf16> y) {
    grouped_gemm::RowScales scales(global_view(scale_x, {rows, 1}), global_view(scale_w, {groups, n}), block_m,
                                   block_n);
    grouped(rows, n, k, groups, x, w, ends, y, scales);
  }
};

// The fp8 grouped GEMM of DeepSeek-V3's MoE layers: X and W in e4m3 with block scales
// (grouped_gemm::BlockScales: scale_x [cdiv(k, 128), rows rounded up to a multiple of 4], M-major,
// and scale_w [groups, cdiv(n, 128), cdiv(k, 128)]), promoted to f32 every 128 of k, Y in bf16. Its
// tiles are 128 columns wide, one block of W's scales.
struct MoeGroupedGemmFp8BlockScaled : GroupedGemm<f8e4m3, bf16> {
  static constexpr const char* param_names[] = {"rows", "n",    "k",       "groups",  "x",
                                                "w",    "ends", "scale_x", "scale_w", "y"};
  // A stage's row scales take 640 bytes beside 128 rows, which leaves room for 5 stages and the output
  // tile, as fp8_gemm_block_scaled's; or 64 rows of one consumer warpgroup and 8 stages.
  static Space space() {
    using S = MoeGroupedGemmFp8BlockScaled;
    return tune<S>("swizzle_size", &S::swizzle_size, {4, 8}) *
           tune<S>("block_m, consumer_warpgroups, block_n, stages",
                   {&S::block_m, &S::consumer_warpgroups, &S::block_n, &S::stages},
                   {{128, 2, 128, 5}, {64, 1, 128, 8}}) *
           tune<S>("tma_store", &S::tma_store, {1, 0});
  }

  void operator()(Int32 rows, Int32 n, Int32 k, Int32 groups, Ptr<f8e4m3> x, Ptr<f8e4m3> w, Ptr<int32_t> ends,
                  Ptr<float> scale_x, Ptr<float> scale_w, Ptr<bf16> y) {
    constexpr int scale_block = grouped_gemm::BlockScales::scale_block,
                  aligned = grouped_gemm::BlockScales::row_alignment;
    const Int32 k_blocks = cdiv(k, scale_block);
    auto row_scales = global_view(scale_x, {k_blocks, rows}, {(rows + aligned - 1) / aligned * aligned, 1});
    auto block_scales = global_view(scale_w, {groups * cdiv(n, scale_block), k_blocks});
    grouped_gemm::BlockScales scales(row_scales, block_scales, n, stages, block_m, block_n);
    grouped(rows, n, k, groups, x, w, ends, y, scales);
  }
};

}  // namespace tessel::examples
