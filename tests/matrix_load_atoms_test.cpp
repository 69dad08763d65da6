// The ldmatrix / stmatrix fragments against the PTX ISA's description (9.7.14.5.15/16).
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/layout/matrix_load_atoms.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel {
namespace {

// Lane l = 4g + t, register j, half h: matrix j at block (j % down, j / down); without .trans the
// element (row g, column 2t + h) of the matrix, with .trans (row 2t + h, column g).
void expect_ptx_mapping(const Layout& l, int down, int across, bool trans) {
  ASSERT_EQ(l.shape(), (std::vector<int>{8 * down, 8 * across}));
  ASSERT_EQ(l.num_threads(), 32);
  ASSERT_EQ(l.local_size(), 2 * down * across);
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < down * across; ++j)
      for (int h = 0; h < 2; ++h) {
        const int g = lane / 4, t = lane % 4;
        const int row = trans ? 2 * t + h : g, col = trans ? g : 2 * t + h;
        EXPECT_EQ(l.coords(lane, 2 * j + h), (std::vector<int>{8 * (j % down) + row, 8 * (j / down) + col}))
            << "x" << down * across << (trans ? ".trans" : "") << " lane " << lane << " register " << j << " half "
            << h;
      }
}

TEST(MatrixLoadAtoms, LdmatrixMatchesThePtxDescription) {
  for (bool trans : {false, true})
    for (auto [down, across] : {std::pair{1, 1}, {2, 1}, {1, 2}, {4, 1}, {2, 2}, {1, 4}})
      expect_ptx_mapping(ldmatrix_fragment(down, across, trans), down, across, trans);
}

TEST(MatrixLoadAtoms, StmatrixIsTheSameMappingInReverse) {
  for (bool trans : {false, true})
    for (auto [down, across] : {std::pair{1, 1}, {2, 1}, {2, 2}})
      expect_ptx_mapping(stmatrix_fragment(down, across, trans), down, across, trans);
}

TEST(MatrixLoadAtoms, TensorCoreFragmentsAreLdmatrixLoads) {
  EXPECT_EQ(ldmatrix_fragment(2, 2, false), mma_m16n8k16_a());
  // B [k, n] is loaded from B^T [n, k] rows: the untransposed load, viewed transposed.
  EXPECT_EQ(ldmatrix_fragment(1, 2, false).permute({1, 0}), mma_m16n8k16_b());
  EXPECT_EQ(ldmatrix_fragment(2, 1, true), mma_m16n8k16_b()) << "or the transposed load from B's own rows";
  EXPECT_EQ(ldmatrix_fragment(2, 1, false), mma_m16n8k16_c()) << "an accumulator atom is one x2 (st)matrix";
}

TEST(MatrixLoadAtoms, CountsOtherThanOneTwoOrFourAreRejected) {
  EXPECT_THROW(ldmatrix_fragment(3, 1, false), Error);
  EXPECT_THROW(ldmatrix_fragment(2, 4, true), Error);
  EXPECT_THROW(stmatrix_fragment(0, 1, false), Error);
}

}  // namespace
}  // namespace tessel
