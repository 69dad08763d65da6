// The tensor-core fragment layouts against the PTX ISA's element-to-register tables.
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel {
namespace {

TEST(MmaAtoms, AFragmentMatchesThePtxTable) {
  const Layout a = mma_m16n8k16_a();
  ASSERT_EQ(a.shape(), (std::vector<int>{16, 16}));
  ASSERT_EQ(a.num_threads(), 32);
  ASSERT_EQ(a.local_size(), 8);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 8; ++i) {
      const int group = lane / 4, tid = lane % 4;
      const int row = group + ((i / 2) % 2) * 8, col = tid * 2 + (i % 2) + (i / 4) * 8;
      EXPECT_EQ(a.coords(lane, i), (std::vector<int>{row, col})) << lane << " a" << i;
    }
}

TEST(MmaAtoms, BFragmentMatchesThePtxTable) {
  const Layout b = mma_m16n8k16_b();
  ASSERT_EQ(b.shape(), (std::vector<int>{16, 8}));
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const int group = lane / 4, tid = lane % 4;
      EXPECT_EQ(b.coords(lane, i), (std::vector<int>{tid * 2 + (i % 2) + (i / 2) * 8, group})) << lane << " b" << i;
    }
}

TEST(MmaAtoms, CFragmentMatchesThePtxTable) {
  const Layout c = mma_m16n8k16_c();
  ASSERT_EQ(c.shape(), (std::vector<int>{16, 8}));
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const int group = lane / 4, tid = lane % 4;
      EXPECT_EQ(c.coords(lane, i), (std::vector<int>{group + (i / 2) * 8, tid * 2 + (i % 2)})) << lane << " c" << i;
    }
}

// PTX ISA 9.7.14.5, "Matrix Fragments for mma.m16n8k32", .s8 operands.
TEST(MmaAtoms, S8AFragmentMatchesThePtxTable) {
  const Layout a = mma_m16n8k32_s8_a();
  ASSERT_EQ(a.shape(), (std::vector<int>{16, 32}));
  ASSERT_EQ(a.num_threads(), 32);
  ASSERT_EQ(a.local_size(), 16);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 16; ++i) {
      const int group = lane / 4, tid = lane % 4;
      const int row = group + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8);
      const int col = tid * 4 + (i & 3) + (i >= 8 ? 16 : 0);
      EXPECT_EQ(a.coords(lane, i), (std::vector<int>{row, col})) << lane << " a" << i;
    }
}

TEST(MmaAtoms, S8BFragmentMatchesThePtxTable) {
  const Layout b = mma_m16n8k32_s8_b();
  ASSERT_EQ(b.shape(), (std::vector<int>{32, 8}));
  ASSERT_EQ(b.local_size(), 8);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 8; ++i) {
      const int group = lane / 4, tid = lane % 4;
      EXPECT_EQ(b.coords(lane, i), (std::vector<int>{tid * 4 + (i & 3) + (i >= 4 ? 16 : 0), group}))
          << lane << " b" << i;
    }
}

TEST(MmaAtoms, AtomsByOperandType) {
  EXPECT_EQ(mma_atom(DType::F16).k, 16);
  EXPECT_EQ(mma_atom(DType::BF16).a, mma_m16n8k16_a());
  EXPECT_EQ(mma_atom(DType::I8).k, 32);
  EXPECT_EQ(mma_atom(DType::I8).c, mma_m16n8k16_c()) << "s32 accumulators sit where f32 ones do";
  EXPECT_THROW(mma_atom(DType::F32), Error);
  const MmaLayouts l = mma_layouts(64, 32, 64, 2, 2, DType::I8);
  EXPECT_EQ(l.a.shape(), (std::vector<int>{64, 64}));
  EXPECT_EQ(l.a.local_size(), 2 * 2 * 16);
  EXPECT_THROW(mma_layouts(64, 32, 48, 2, 2, DType::I8), Error) << "k must be a multiple of 32";
}

TEST(MmaAtoms, WarpSplitsAreOrderedByFragmentTraffic) {
  auto splits = [](int m, int n, int k, int warps, DType t) {
    std::vector<std::pair<int, int>> out;
    for (const WarpSplit& s : mma_warp_splits(m, n, k, warps, t)) out.emplace_back(s.m, s.n);
    return out;
  };
  EXPECT_EQ(splits(128, 128, 32, 4, DType::F16), (std::vector<std::pair<int, int>>{{2, 2}, {4, 1}, {1, 4}}));
  EXPECT_EQ(splits(64, 32, 32, 4, DType::F16), (std::vector<std::pair<int, int>>{{4, 1}, {2, 2}, {1, 4}}));
  EXPECT_TRUE(splits(64, 32, 16, 4, DType::I8).empty());
}

TEST(MmaAtoms, BlockLayoutsGiveEachWarpItsRegion) {
  const MmaLayouts l = mma_layouts(64, 64, 32, 2, 2);
  EXPECT_EQ(l.c.num_threads(), 128);
  EXPECT_EQ(l.a.num_threads(), 128);
  EXPECT_EQ(l.b.num_threads(), 128);
  // Warp (1, 0) = threads 64..95 holds C rows of the second row of warps, A rows likewise.
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(l.c.coords(64 + lane, 0)[1] / 32, 0);
    EXPECT_GE(l.c.coords(64 + lane, 0)[0] % 32, 16);
    EXPECT_EQ(l.a.coords(64 + lane, 0), l.a.coords(96 + lane, 0)) << "A is replicated over a row of warps";
    EXPECT_EQ(l.b.coords(32 + lane, 0), l.b.coords(96 + lane, 0)) << "B is replicated over a column of warps";
  }
  EXPECT_THROW(mma_layouts(48, 64, 32, 2, 2), Error);
}

}  // namespace
}  // namespace tessel
