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
