#include "tessel/analysis/l2_working_set.hpp"

#include <algorithm>
#include <vector>

#include "tessel/error.hpp"

namespace tessel::analysis {

namespace {

void check_positive(std::string_view what, int64_t value) {
  if (value <= 0) throw Error(fmt::format("{} must be positive, got {}", what, value));
}

}  // namespace

std::string TileOrder::str() const {
  return kind == Kind::ColumnMajor ? "column-major" : fmt::format("swizzle {}", swizzle_size);
}

TileCoord tile_coord(const TileOrder& order, int64_t linear, int num_m_blocks, int num_n_blocks) {
  check_positive("num_m_blocks", num_m_blocks);
  check_positive("num_n_blocks", num_n_blocks);
  const int64_t tiles = int64_t(num_m_blocks) * num_n_blocks;
  if (linear < 0 || linear >= tiles)
    throw Error(fmt::format("block {} is outside a {}x{} grid of tiles", linear, num_m_blocks, num_n_blocks));
  if (order.kind == TileOrder::Kind::ColumnMajor) return {int(linear % num_m_blocks), int(linear / num_m_blocks)};

  // As the seed's compute_block_coord: group g covers N-columns [g * s, g * s + s); a full group
  // is walked row-major as a num_m_blocks x s tile, the last one, when narrower, as
  // num_m_blocks x (num_n_blocks % s).
  const int64_t s = order.swizzle_size;
  check_positive("swizzle_size", s);
  const int64_t group = linear / (num_m_blocks * s);
  const int64_t in_group = linear % (num_m_blocks * s);
  const int64_t first_n = group * s;
  const int64_t remainder = num_n_blocks % s;
  const int64_t width = first_n + s <= num_n_blocks ? s : (remainder > 0 ? remainder : s);
  return {int(in_group / width), int(first_n + in_group % width)};
}

WorkingSet first_wave_working_set(const WorkingSetQuery& q) {
  check_positive("num_m_blocks", q.num_m_blocks);
  check_positive("num_n_blocks", q.num_n_blocks);
  check_positive("block_m", q.block_m);
  check_positive("block_n", q.block_n);
  check_positive("K", q.k);
  check_positive("element bytes", q.elem_bytes);
  check_positive("active blocks", q.active_blocks);

  WorkingSet w;
  w.blocks = int(std::min<int64_t>(q.active_blocks, int64_t(q.num_m_blocks) * q.num_n_blocks));
  std::vector<bool> a_seen(q.num_m_blocks), b_seen(q.num_n_blocks);
  for (int64_t i = 0; i < w.blocks; ++i) {
    const TileCoord t = tile_coord(q.order, i, q.num_m_blocks, q.num_n_blocks);
    if (!a_seen[t.m_block]) a_seen[t.m_block] = true, ++w.a_strips;
    if (!b_seen[t.n_block]) b_seen[t.n_block] = true, ++w.b_strips;
  }
  w.a_strip_bytes = int64_t(q.block_m) * q.k * q.elem_bytes;
  w.b_strip_bytes = int64_t(q.block_n) * q.k * q.elem_bytes;
  return w;
}

}  // namespace tessel::analysis
