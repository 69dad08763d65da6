// Tile rasterization and the L2 working set of the first wave: the seed-004 example (8x8 tiles
// of 128x128, K = 8192, fp16, 16 active blocks) and the seed's compute_block_coord.
#include "tessel/analysis/l2_working_set.hpp"

#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::analysis {
namespace {

constexpr int64_t MiB = 1024 * 1024;

WorkingSetQuery seed_example(TileOrder order) {
  return {.num_m_blocks = 8,
          .num_n_blocks = 8,
          .block_m = 128,
          .block_n = 128,
          .k = 8192,
          .elem_bytes = 2,
          .active_blocks = 16,
          .order = order};
}

// "Each A row-strip and each B column-strip is 128 x 8192 in fp16 = 2 MB" (2 MiB: 2097152 bytes).
// Column-major: "Active A rows: 8 ... Active B columns: 2 ... Total L2 working set: 20 MB (10 unique
// tiles)".
TEST(L2WorkingSet, SeedColumnMajor) {
  const WorkingSet w = first_wave_working_set(seed_example(TileOrder::column_major()));
  EXPECT_EQ(w.blocks, 16);
  EXPECT_EQ(w.a_strip_bytes, 2 * MiB);
  EXPECT_EQ(w.b_strip_bytes, 2 * MiB);
  EXPECT_EQ(w.a_strips, 8);
  EXPECT_EQ(w.b_strips, 2);
  EXPECT_EQ(w.strips(), 10);
  EXPECT_EQ(w.a_bytes(), 16 * MiB);
  EXPECT_EQ(w.b_bytes(), 4 * MiB);
  EXPECT_EQ(w.bytes(), 20 * MiB);
}

// Swizzle 4: "Active A rows: 4 ... Active B columns: 4 ... Total L2 working set: 16 MB (8 unique
// tiles) — 20% smaller".
TEST(L2WorkingSet, SeedSwizzle4) {
  const WorkingSet w = first_wave_working_set(seed_example(TileOrder::swizzled(4)));
  EXPECT_EQ(w.a_strips, 4);
  EXPECT_EQ(w.b_strips, 4);
  EXPECT_EQ(w.strips(), 8);
  EXPECT_EQ(w.bytes(), 16 * MiB);
  EXPECT_EQ(w.bytes() * 5, first_wave_working_set(seed_example(TileOrder::column_major())).bytes() * 4);
}

// "the same 16 blocks are mapped to rows 0–3 of columns 0–3"
TEST(L2WorkingSet, SeedSwizzledWaveIsTheTopLeftSquare) {
  std::set<std::pair<int, int>> wave, square;
  for (int i = 0; i < 16; ++i) {
    const TileCoord t = tile_coord(TileOrder::swizzled(4), i, 8, 8);
    wave.insert({t.m_block, t.n_block});
  }
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) square.insert({m, n});
  EXPECT_EQ(wave, square);
  // Row-major within the group: (0,0), (0,1), ..., (1,0), ...
  EXPECT_EQ(tile_coord(TileOrder::swizzled(4), 1, 8, 8), (TileCoord{0, 1}));
  EXPECT_EQ(tile_coord(TileOrder::swizzled(4), 4, 8, 8), (TileCoord{1, 0}));
  EXPECT_EQ(tile_coord(TileOrder::swizzled(4), 32, 8, 8), (TileCoord{0, 4}));
}

// The seed's compute_block_coord, transcribed line by line (fast_divmod is divmod).
TileCoord seed_compute_block_coord(int linear_idx, int num_m_blocks, int num_n_blocks, int swizzle_size) {
  const int tiles_per_group = num_m_blocks * swizzle_size;
  const int group_idx = linear_idx / tiles_per_group, in_group_idx = linear_idx % tiles_per_group;
  const int first_n = group_idx * swizzle_size;
  const int remainder = num_n_blocks - num_n_blocks / swizzle_size * swizzle_size;
  const int last_group_width = remainder > 0 ? remainder : swizzle_size;
  int m_block = 0, n_block = 0;
  if (first_n + swizzle_size <= num_n_blocks) {
    m_block = in_group_idx / swizzle_size;
    n_block = first_n + in_group_idx % swizzle_size;
  } else {
    m_block = in_group_idx / last_group_width;
    n_block = first_n + in_group_idx % last_group_width;
  }
  return {m_block, n_block};
}

TEST(L2WorkingSet, SwizzleMatchesTheSeedAndVisitsEveryTileOnce) {
  for (int num_m = 1; num_m <= 9; ++num_m)
    for (int num_n = 1; num_n <= 11; ++num_n)
      for (int s = 1; s <= 13; ++s) {
        SCOPED_TRACE(fmt::format("{}x{} swizzle {}", num_m, num_n, s));
        std::set<std::pair<int, int>> seen;
        for (int i = 0; i < num_m * num_n; ++i) {
          const TileCoord t = tile_coord(TileOrder::swizzled(s), i, num_m, num_n);
          ASSERT_EQ(t, seed_compute_block_coord(i, num_m, num_n, s)) << "block " << i;
          ASSERT_TRUE(t.m_block >= 0 && t.m_block < num_m && t.n_block >= 0 && t.n_block < num_n);
          seen.insert({t.m_block, t.n_block});
        }
        ASSERT_EQ(seen.size(), size_t(num_m * num_n));
      }
}

// 3 x 5 tiles in groups of 2 columns: the last group is one column wide.
TEST(L2WorkingSet, PartialLastGroup) {
  const std::vector<TileCoord> expected = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {0, 2}, {0, 3},
                                           {1, 2}, {1, 3}, {2, 2}, {2, 3}, {0, 4}, {1, 4}, {2, 4}};
  for (int i = 0; i < 15; ++i) EXPECT_EQ(tile_coord(TileOrder::swizzled(2), i, 3, 5), expected[i]) << i;
}

TEST(L2WorkingSet, ColumnMajorWalksMFirstAndSwizzleOneIsColumnMajor) {
  EXPECT_EQ(tile_coord(TileOrder::column_major(), 0, 8, 8), (TileCoord{0, 0}));
  EXPECT_EQ(tile_coord(TileOrder::column_major(), 7, 8, 8), (TileCoord{7, 0}));
  EXPECT_EQ(tile_coord(TileOrder::column_major(), 8, 8, 8), (TileCoord{0, 1}));
  for (int i = 0; i < 35; ++i)
    EXPECT_EQ(tile_coord(TileOrder::swizzled(1), i, 5, 7), tile_coord(TileOrder::column_major(), i, 5, 7));
  EXPECT_EQ(TileOrder::column_major().str(), "column-major");
  EXPECT_EQ(TileOrder::swizzled(4).str(), "swizzle 4");
}

TEST(L2WorkingSet, AWaveLargerThanTheGridIsTheGrid) {
  WorkingSetQuery q = seed_example(TileOrder::swizzled(8));
  q.active_blocks = 1000;
  const WorkingSet w = first_wave_working_set(q);
  EXPECT_EQ(w.blocks, 64);
  EXPECT_EQ(w.strips(), 16);
  // Unequal strips: 128 x 8192 of A, 8192 x 256 of B.
  q = seed_example(TileOrder::column_major());
  q.block_n = 256;
  EXPECT_EQ(first_wave_working_set(q).bytes(), 8 * 2 * MiB + 2 * 4 * MiB);
}

TEST(L2WorkingSet, BadInputIsAUserError) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { tile_coord(TileOrder::column_major(), 64, 8, 8); }),
            "block 64 is outside a 8x8 grid of tiles");
  EXPECT_EQ(message([] { tile_coord(TileOrder::column_major(), -1, 8, 8); }),
            "block -1 is outside a 8x8 grid of tiles");
  EXPECT_EQ(message([] { tile_coord(TileOrder::swizzled(0), 0, 8, 8); }), "swizzle_size must be positive, got 0");
  EXPECT_EQ(message([] { tile_coord(TileOrder::column_major(), 0, 0, 8); }), "num_m_blocks must be positive, got 0");
  EXPECT_EQ(message([] {
              WorkingSetQuery q = seed_example(TileOrder::column_major());
              q.active_blocks = 0;
              first_wave_working_set(q);
            }),
            "active blocks must be positive, got 0");
}

}  // namespace
}  // namespace tessel::analysis
