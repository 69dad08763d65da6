// The wgmma fragment layouts against the PTX ISA's register tables (9.7.15.5.1), and the shared
// matrix descriptor against hand-computed bits (9.7.15.5.1.2.2).
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/layout/shared_swizzle.hpp"
#include "tessel/layout/wgmma_atoms.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"

namespace tessel {
namespace {

TEST(WgmmaAtoms, AccumulatorMatchesThePtxTableForEveryN) {
  for (int n = 8; n <= 256; n += 8) {
    const Layout c = wgmma_m64nNk16_c(n);
    ASSERT_EQ(c.shape(), (std::vector<int>{64, n}));
    ASSERT_EQ(c.num_threads(), 128);
    ASSERT_EQ(c.local_size(), n / 2);
    for (int thread = 0; thread < 128; ++thread)
      for (int i = 0; i < n / 2; ++i) {
        const int warp = thread / 32, lane = thread % 32, group = lane / 4, tid = lane % 4;
        const int row = 16 * warp + group + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * tid + (i & 1);
        ASSERT_EQ(c.coords(thread, i), (std::vector<int>{row, col})) << "n" << n << " thread " << thread << " d" << i;
      }
  }
}

TEST(WgmmaAtoms, RegisterAMatchesThePtxTable) {
  const Layout a = wgmma_m64nNk16_a();
  ASSERT_EQ(a.shape(), (std::vector<int>{64, 16}));
  ASSERT_EQ(a.num_threads(), 128);
  ASSERT_EQ(a.local_size(), 8);
  for (int thread = 0; thread < 128; ++thread)
    for (int i = 0; i < 8; ++i) {
      const int warp = thread / 32, lane = thread % 32, group = lane / 4, tid = lane % 4;
      const int row = 16 * warp + group + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * tid + (i & 1);
      EXPECT_EQ(a.coords(thread, i), (std::vector<int>{row, col})) << "thread " << thread << " a" << i;
    }
}

// 8-bit types (fp8, s8, u8): four elements per 32-bit register, k32 per instruction.
TEST(WgmmaAtoms, RegisterAOfEightBitTypesMatchesThePtxTable) {
  const Layout a = wgmma_m64nNk32_a();
  ASSERT_EQ(a.shape(), (std::vector<int>{64, 32}));
  ASSERT_EQ(a.num_threads(), 128);
  ASSERT_EQ(a.local_size(), 16);
  for (int thread = 0; thread < 128; ++thread)
    for (int i = 0; i < 16; ++i) {
      const int warp = thread / 32, lane = thread % 32, group = lane / 4, tid = lane % 4;
      const int row = 16 * warp + group + 8 * ((i >> 2) & 1), col = 16 * (i >> 3) + 4 * tid + (i & 3);
      EXPECT_EQ(a.coords(thread, i), (std::vector<int>{row, col})) << "thread " << thread << " a" << i;
    }
  for (DType t : {DType::I8, DType::U8, DType::F8E4M3, DType::F8E5M2}) {
    const WgmmaLayouts l = wgmma_layouts(128, 32, 64, 1, t);
    EXPECT_EQ(l.a.local_size(), 2 * 2 * 16) << dtype_name(t);
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < 16; ++i) {
        std::vector<int> want = a.coords(5, i);
        want[0] += 64;
        want[1] += 32 * s;
        EXPECT_EQ(l.a.coords(5, (2 + s) * 16 + i), want) << dtype_name(t);
      }
  }
}

TEST(WgmmaAtoms, BlockLayoutsRepeatTheAtomsWithRepetitionsOutermost) {
  const WgmmaLayouts l = wgmma_layouts(256, 64, 32, 2);
  EXPECT_EQ(l.c.shape(), (std::vector<int>{256, 64}));
  EXPECT_EQ(l.c.num_threads(), 256);
  EXPECT_EQ(l.c.local_size(), 2 * 32);
  EXPECT_EQ(l.a.local_size(), 2 * 2 * 8);
  const Layout c = wgmma_m64nNk16_c(64), a = wgmma_m64nNk16_a();
  for (int thread = 0; thread < 256; ++thread) {
    const int g = thread / 128, t = thread % 128;
    for (int r = 0; r < 2; ++r) {
      for (int i = 0; i < 32; ++i) {
        std::vector<int> want = c.coords(t, i);
        want[0] += 64 * g + 128 * r;
        ASSERT_EQ(l.c.coords(thread, r * 32 + i), want);
      }
      for (int s = 0; s < 2; ++s)
        for (int i = 0; i < 8; ++i) {
          std::vector<int> want = a.coords(t, i);
          want[0] += 64 * g + 128 * r;
          want[1] += 16 * s;
          ASSERT_EQ(l.a.coords(thread, (r * 2 + s) * 8 + i), want);
        }
    }
  }
}

TEST(WgmmaAtoms, IllegalShapesAreRejected) {
  EXPECT_THROW(wgmma_m64nNk16_c(12), Error);
  EXPECT_THROW(wgmma_m64nNk16_c(264), Error);
  EXPECT_THROW(wgmma_layouts(64, 64, 16, 2), Error) << "two warpgroups need m = 128";
  EXPECT_THROW(wgmma_layouts(64, 64, 24, 1), Error);
  EXPECT_TRUE(wgmma_n_is_legal(8));
  EXPECT_FALSE(wgmma_n_is_legal(0));
  // 8-bit integers: 8, 16, 24, then multiples of 16 (PTX ISA 9.7.15.5.2).
  for (int n = 8; n <= 256; n += 8) EXPECT_EQ(wgmma_n_is_legal(n, DType::I8), n <= 32 || n % 16 == 0) << n;
  EXPECT_TRUE(wgmma_n_is_legal(40, DType::F8E4M3));
  EXPECT_THROW(wgmma_layouts(64, 40, 32, 1, DType::U8), Error);
  EXPECT_THROW(wgmma_layouts(64, 32, 16, 1, DType::I8), Error) << "k32 per instruction";
}

// Bits by hand from PTX ISA 9.7.15.5.1.2.2: start >> 4 in 0-13, LBO >> 4 in 16-29, SBO >> 4 in
// 32-45, the swizzle mode in 62-63 (1 = 128B, 2 = 64B, 3 = 32B).
TEST(WgmmaDescriptor, BitsMatchHandComputedValues) {
  // 128-byte rows at 0x400: start 0x40, LBO 1, SBO 1024 >> 4 = 0x40, mode 1.
  EXPECT_EQ(wgmma_k_major_descriptor(0x400, 3).bits(), 0x4000004000010040ull);
  // 64-byte rows at 0x2020 (a k16 step into the row): start 0x202, SBO 512 >> 4 = 0x20, mode 2.
  EXPECT_EQ(wgmma_k_major_descriptor(0x2020, 2).bits(), 0x8000002000010202ull);
  // 32-byte rows at 0x100: start 0x10, SBO 256 >> 4 = 0x10, mode 3.
  EXPECT_EQ(wgmma_k_major_descriptor(0x100, 1).bits(), 0xC000001000010010ull);
  // Only the address's low 18 bits are kept.
  EXPECT_EQ(wgmma_k_major_descriptor(0x40400, 3).bits() & 0x3FFF, 0x40u);
}

TEST(WgmmaDescriptor, DecodeInvertsEncode) {
  for (int bits = 1; bits <= 3; ++bits)
    for (uint32_t start : {0u, 0x20u, 0x400u, 0x3FFF0u}) {
      const WgmmaDescriptor d = wgmma_k_major_descriptor(start, bits);
      EXPECT_EQ(WgmmaDescriptor::decode(d.bits()), d);
    }
  EXPECT_EQ(wgmma_swizzle_bits(128), 3);
  EXPECT_EQ(wgmma_swizzle_bits(64), 2);
  EXPECT_EQ(wgmma_swizzle_bits(32), 1);
  EXPECT_EQ(wgmma_swizzle_bits(256), -1);
  EXPECT_EQ(wgmma_swizzle_bits(16), -1);
}

// The address the tensor core reads (hw-semantics.md §4.3) is where tessel's swizzled row-major
// tile keeps the element, for every k16 step of a row of one span.
TEST(WgmmaDescriptor, AddressesAgreeWithTheSwizzledTile) {
  for (int bits = 1; bits <= 3; ++bits) {
    const int row_bytes = 16 << bits, halves = row_bytes / 2;
    const int64_t base = 2048;
    for (int step = 0; step < halves / 16; ++step) {
      const WgmmaDescriptor d = wgmma_k_major_descriptor(uint32_t(base + 32 * step), bits);
      for (int row = 0; row < 64; ++row)
        for (int k = 0; k < 16; ++k)
          ASSERT_EQ(wgmma_k_major_address(d, row, k, 2),
                    base + swizzle_byte(int64_t(row) * row_bytes + (16 * step + k) * 2, bits))
              << "bits " << bits << " step " << step << " row " << row << " k " << k;
    }
  }
}

}  // namespace
}  // namespace tessel
