// The tcgen05 descriptors and the tcgen05.ld/st 32x32b layout against the PTX tables
// (hw-semantics.md §5.3-5.5).
#include <gtest/gtest.h>

#include "tessel/layout/tcgen05_atoms.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"

namespace tessel {
namespace {

TEST(Tcgen05Descriptors, SharedMemoryDescriptorFields) {
  // A 128-byte-swizzled K-major operand at shared byte 0x400: start 0x40, LBO 1 (unused), SBO 8
  // rows of 128 bytes, version 1 in bits 46-48, swizzle code 2 in bits 61-63.
  const uint64_t want = 0x40ull | 1ull << 16 | (1024ull >> 4) << 32 | 1ull << 46 | 2ull << 61;
  EXPECT_EQ(tcgen05_k_major_descriptor(0x400, 3).bits(), want);
  EXPECT_EQ(tcgen05_k_major_descriptor(0x400, 2).bits() >> 61, 4u);  // 64-byte swizzle
  EXPECT_EQ(tcgen05_k_major_descriptor(0x400, 1).bits() >> 61, 6u);  // 32-byte swizzle
}

TEST(Tcgen05Descriptors, ABlackwellDescriptorIsAHopperOnePlusTheVersion) {
  for (int bits = 1; bits <= 3; ++bits)
    for (uint32_t start : {0u, 0x80u, 0x1230u, 0x3FFF0u}) {
      const uint64_t blackwell = tcgen05_k_major_descriptor(start, bits).bits();
      EXPECT_EQ(blackwell, wgmma_k_major_descriptor(start, bits).bits() | 1ull << 46) << bits << " " << start;
      EXPECT_EQ(Tcgen05SmemDescriptor::decode(blackwell), tcgen05_k_major_descriptor(start, bits));
    }
}

TEST(Tcgen05Descriptors, OperandAddressesAreThoseOfWgmma) {
  for (int bits = 1; bits <= 3; ++bits) {
    const Tcgen05SmemDescriptor d = tcgen05_k_major_descriptor(0x800, bits);
    const WgmmaDescriptor h = wgmma_k_major_descriptor(0x800, bits);
    for (int row = 0; row < 128; row += 3)
      for (int k = 0; k < 16; ++k)
        EXPECT_EQ(tcgen05_k_major_address(d, row, k, 2), wgmma_k_major_address(h, row, k, 2));
  }
}

TEST(Tcgen05Descriptors, InstructionDescriptorFields) {
  const Tcgen05InstrDescriptor d{128, 256, DType::BF16, DType::BF16, DType::F32};
  EXPECT_EQ(d.bits(), 1u << 4 | 1u << 7 | 1u << 10 | (256u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(d.bits()), d);
  const Tcgen05InstrDescriptor f16{128, 16, DType::F16, DType::F16, DType::F32};
  EXPECT_EQ(f16.bits(), 1u << 4 | 2u << 17 | 8u << 24);
  EXPECT_TRUE(tcgen05_mma_shape_is_legal(128, 16));
  EXPECT_FALSE(tcgen05_mma_shape_is_legal(128, 8));
  EXPECT_TRUE(tcgen05_mma_shape_is_legal(64, 8));
  EXPECT_FALSE(tcgen05_mma_shape_is_legal(256, 128));
  EXPECT_TRUE(tcgen05_mma_shape_is_legal(256, 256, 2));
  EXPECT_TRUE(tcgen05_mma_shape_is_legal(128, 16, 2));
  EXPECT_FALSE(tcgen05_mma_shape_is_legal(256, 8, 2));
  EXPECT_FALSE(tcgen05_mma_shape_is_legal(64, 64, 2));
  const Tcgen05InstrDescriptor pair{256, 256, DType::F16, DType::F16, DType::F32};
  EXPECT_EQ(pair.bits() >> 24 & 0x1F, 16u);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(pair.bits()), pair);
  // kind::tf32: A and B type code 2, an f32 D; 8 of k per instruction.
  const Tcgen05InstrDescriptor tf32s{128, 64, DType::TF32, DType::TF32, DType::F32, false, false, Tcgen05Kind::tf32};
  EXPECT_EQ(tf32s.bits(), 1u << 4 | 2u << 7 | 2u << 10 | (64u >> 3) << 17 | (128u >> 4) << 24);
  EXPECT_EQ(Tcgen05InstrDescriptor::decode(tf32s.bits(), Tcgen05Kind::tf32), tf32s);
  EXPECT_EQ(tcgen05_kind({DType::TF32}, {DType::TF32}, Tcgen05ScaleFormat::none), Tcgen05Kind::tf32);
  EXPECT_EQ(tcgen05_instruction_k(Tcgen05Kind::tf32), 8);
}

TEST(Tcgen05Layout, Thread32qPlusLaneHoldsItsRowInRegisterOrder) {
  for (const auto& [rows, cols] : {std::pair{128, 16}, std::pair{64, 8}, std::pair{32, 128}}) {
    const Layout l = tcgen05_32x32b(rows, cols);
    EXPECT_EQ(l.num_threads(), rows);
    EXPECT_EQ(l.local_size(), cols);
    for (int thread = 0; thread < rows; ++thread)
      for (int j = 0; j < cols; ++j) EXPECT_EQ(l.coords(thread, j), (std::vector<int>{thread, j}));
  }
}

}  // namespace
}  // namespace tessel
