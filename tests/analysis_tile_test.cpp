// Tile analysis: the tiling seed's worked numbers, then the occupancy rules the seed leaves out.
#include "tessel/analysis/tile_analysis.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::analysis {
namespace {

TileConfig tile(int m, int n, int k, int stages, int threads = 256) {
  TileConfig c;
  c.block_m = m;
  c.block_n = n;
  c.block_k = k;
  c.stages = stages;
  c.threads = threads;
  return c;
}

// "(128 x 32 + 32 x 128) x 2 x 2 = 32,768 bytes = 32 KB"
TEST(TileAnalysis, SeedSharedMemoryOf128x128x32TwoStages) {
  const TileAnalysis a = analyze_tile(tile(128, 128, 32, 2), gpu_spec("a100"));
  EXPECT_EQ(a.shared_per_stage, 16384);
  EXPECT_EQ(a.shared_bytes, 32768);
  EXPECT_TRUE(a.feasible());
}

// "(256 x 64 + 64 x 256) x 2 x 3 = 196,608 bytes = 192 KB. This exceeds the A100's 164 KB limit."
TEST(TileAnalysis, Seed256x256x64ThreeStagesDoesNotFitOnA100) {
  const TileAnalysis a = analyze_tile(tile(256, 256, 64, 3, 1024), gpu_spec("a100"));
  EXPECT_EQ(a.shared_bytes, 196608);
  EXPECT_FALSE(a.feasible());
  ASSERT_EQ(a.problems.size(), 2u);
  EXPECT_EQ(a.problems[0],
            "needs 196608 bytes of shared memory per block; A100 allows 166912 (163 KB), 29696 bytes "
            "too many");
  // The seed does not say so, but a 256x256 f32 accumulator is 256 KB, the SM's whole register
  // file: registers are a second reason, whatever the number of threads.
  EXPECT_EQ(a.problems[1],
            "needs 98304 registers per block (3072 per warp, 32 warps counted in fours); the limit is "
            "65536, 32768 too many");
  EXPECT_EQ(a.blocks_per_sm, 0);
  EXPECT_EQ(a.limited_by, (std::vector<std::string>{"shared memory", "registers"}));
  // The shared memory fits the 227 KB of a Hopper block.
  EXPECT_EQ(analyze_tile(tile(256, 256, 64, 3, 1024), gpu_spec("h100")).blocks_allowed_by("shared memory"), 1);
}

// "Tiled AI = 2 x 128 x 128 / ((128 + 128) x 2) = 64 FLOPs/Byte"
TEST(TileAnalysis, SeedIntensityOf128x128F16) {
  EXPECT_EQ(tile_intensity(128, 128, 2), 64);
  EXPECT_EQ(analyze_tile(tile(128, 128, 32, 2), gpu_spec("a100")).intensity, 64);
  EXPECT_EQ(tile_intensity(128, 128, 4), 32);
}

// "Ridge Point = 312 TFLOPS / 2 TB/s = 156 FLOPs/Byte"
TEST(TileAnalysis, SeedRidgePointOfA100) {
  const GpuSpec& a100 = gpu_spec("a100");
  EXPECT_EQ(ridge_point(peak_rate(a100, MathType::F16), a100.hbm_bandwidth), 156);
  // The 128x128 tile at 64 FLOP/B is memory-bound: 2 TB/s x 64 = 128 TFLOP/s.
  EXPECT_EQ(attainable(312e12, 2e12, 64), 128e12);
  EXPECT_EQ(attainable(312e12, 2e12, 1000), 312e12);
}

// "Regs/thread ~ (128 x 128 / 1024) + 32 = 48"
TEST(TileAnalysis, SeedRegisterEstimate) {
  EXPECT_EQ(analyze_tile(tile(128, 128, 32, 2, 1024), gpu_spec("a100")).registers_per_thread, 48);
  EXPECT_EQ(analyze_tile(tile(128, 128, 32, 2, 256), gpu_spec("a100")).registers_per_thread, 96);
  TileConfig tmem = tile(128, 128, 32, 2, 128);
  tmem.accumulator = Accumulator::TensorMemory;
  EXPECT_EQ(analyze_tile(tmem, gpu_spec("b200")).registers_per_thread, 32);
}

// "With a 32 KB tile, theoretically one SM can host 5 thread blocks (floor(164/32) = 5)": that
// counts shared memory alone and ignores the 1 KB the driver reserves per block, which leaves
// room for 4 (167936 / (32768 + 1024)), as cudaOccupancyMaxActiveBlocksPerMultiprocessor says.
TEST(TileAnalysis, SeedBlocksPerSmBySharedMemory) {
  GpuSpec seed = gpu_spec("a100");
  seed.shared_reserved_per_block = 0;
  EXPECT_EQ(analyze_tile(tile(128, 128, 32, 2), seed).blocks_allowed_by("shared memory"), 5);
  EXPECT_EQ(analyze_tile(tile(128, 128, 32, 2), gpu_spec("a100")).blocks_allowed_by("shared memory"), 4);
}

// The seed's calculator shows 100% occupancy (64/64 warps) for 128x128x32 with 1024 threads, but
// 48 registers x 2048 threads is more than the SM's 65536: registers admit one block, 32 warps.
TEST(TileAnalysis, RegistersLimitTheSeedsCalculatorExample) {
  const TileAnalysis a = analyze_tile(tile(128, 128, 32, 2, 1024), gpu_spec("a100"));
  EXPECT_TRUE(a.feasible());
  EXPECT_EQ(a.warps, 32);
  EXPECT_EQ(a.registers_per_block, 48 * 1024);
  EXPECT_EQ(a.blocks_allowed_by("registers"), 1);  // 16384 / (48 x 32) = 10 warps per sub-partition
  EXPECT_EQ(a.blocks_allowed_by("warps"), 2);
  EXPECT_EQ(a.blocks_allowed_by("block slots"), 32);
  EXPECT_EQ(a.blocks_per_sm, 1);
  EXPECT_EQ(a.limited_by, std::vector<std::string>{"registers"});
  EXPECT_EQ(a.active_warps, 32);
  EXPECT_EQ(a.occupancy, 0.5);
}

// cudaOccupancyMaxActiveBlocksPerMultiprocessor on an H200 (CUDA 13.0) for kernels of exactly
// `registers` registers per thread (__maxnreg__), `threads` per block and `shared` bytes of dynamic
// shared memory (the opt-in maximum set). 720 such combinations agreed; these cover each rule.
TEST(TileAnalysis, BlockLimitsAgreeWithTheCudaOccupancyCalculator) {
  struct Measured {
    int registers, threads, shared, blocks;
  };
  const Measured measured[] = {
      {24, 32, 0, 32},      {24, 32, 16384, 13},   {24, 32, 32768, 6},   {24, 96, 1024, 21}, {24, 256, 0, 8},
      {24, 256, 33000, 6},  {24, 256, 100000, 2},  {24, 1024, 0, 2},     {32, 1024, 0, 2},   {40, 96, 1024, 16},
      {40, 256, 0, 6},      {40, 1024, 0, 1},      {48, 96, 1024, 13},   {48, 256, 0, 5},    {64, 96, 1024, 10},
      {64, 256, 0, 4},      {96, 96, 1024, 6},     {96, 1024, 0, 0},     {100, 96, 1024, 5}, {100, 256, 0, 2},
      {128, 96, 1024, 5},   {128, 256, 100000, 2}, {168, 96, 1024, 4},   {168, 256, 0, 1},   {255, 96, 1024, 2},
      {255, 256, 33000, 1}, {255, 1024, 0, 0},     {32, 128, 232448, 1},
  };
  for (const Measured& m : measured) {
    int blocks = 1 << 30;
    for (const BlockLimit& l : block_limits(gpu_spec("h200"), m.threads, m.registers, m.shared))
      blocks = std::min(blocks, l.blocks);
    EXPECT_EQ(blocks, m.blocks) << m.registers << " registers, " << m.threads << " threads, " << m.shared << " bytes";
  }
}

TEST(TileAnalysis, SeveralLimitsCanBind) {
  // 64x64x32, 2 stages = 16 KB: shared memory admits 9, 256 threads with 48 registers admit 5
  // (16384 / 1536 = 10 warps per sub-partition, 40 per SM), warps admit 8.
  const TileAnalysis a = analyze_tile(tile(64, 64, 32, 2, 256), gpu_spec("a100"));
  EXPECT_EQ(a.registers_per_thread, 48);
  EXPECT_EQ(a.blocks_allowed_by("shared memory"), 9);
  EXPECT_EQ(a.blocks_allowed_by("registers"), 5);
  EXPECT_EQ(a.blocks_allowed_by("warps"), 8);
  EXPECT_EQ(a.blocks_per_sm, 5);
  EXPECT_EQ(a.occupancy, 40.0 / 64);
  // 32 threads of 32 registers: 64 warps, and then the 32 block slots bind with the warps.
  TileConfig small = tile(16, 16, 16, 1, 32);
  small.register_overhead = 24;
  const TileAnalysis b = analyze_tile(small, gpu_spec("h100"));
  EXPECT_EQ(b.registers_per_thread, 32);
  EXPECT_EQ(b.blocks_per_sm, 32);
  EXPECT_EQ(b.limited_by, (std::vector<std::string>{"block slots"}));
  EXPECT_EQ(b.occupancy, 0.5);
}

TEST(TileAnalysis, RegisterProblemsSayByHowMuch) {
  const TileAnalysis a = analyze_tile(tile(256, 256, 32, 2, 256), gpu_spec("h100"));
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_EQ(a.problems[0],
            "needs about 288 registers per thread (256 accumulator + 32 other); the limit is 255, 33 "
            "too many");
  EXPECT_EQ(a.blocks_allowed_by("registers"), 0);
  // 72 + 32 = 104 registers is allowed per thread, but 1024 threads of it are 106496 per block.
  const TileAnalysis b = analyze_tile(tile(256, 288, 16, 2, 1024), gpu_spec("h100"));
  EXPECT_EQ(b.registers_per_thread, 104);
  ASSERT_EQ(b.problems.size(), 1u);
  EXPECT_EQ(b.problems[0],
            "needs 106496 registers per block (3328 per warp, 32 warps counted in fours); the limit is "
            "65536, 40960 too many");
  // Registers go to warps in units of 256: 100 registers per thread take 3328 per warp, as 104 do.
  EXPECT_EQ(analyze_tile(tile(256, 272, 16, 2, 1024), gpu_spec("h100")).registers_per_block, 3328 * 32);
}

TEST(TileAnalysis, ThreadsPerBlock) {
  const TileAnalysis a = analyze_tile(tile(64, 64, 32, 2, 2048), gpu_spec("a100"));
  EXPECT_EQ(a.problems.front(), "2048 threads per block; A100 allows 1024, 1024 too many");
  EXPECT_EQ(analyze_tile(tile(64, 64, 32, 2, 100), gpu_spec("a100")).warps, 4);
}

TEST(TileAnalysis, TensorMemoryColumns) {
  EXPECT_EQ(tmem_columns_for(128, 256, 4, 128), 256);
  EXPECT_EQ(tmem_columns_for(128, 64, 4, 128), 64);
  EXPECT_EQ(tmem_columns_for(128, 16, 4, 128), 32);   // at least 32
  EXPECT_EQ(tmem_columns_for(128, 96, 4, 128), 128);  // a power of two
  EXPECT_EQ(tmem_columns_for(64, 128, 4, 128), 128);
  EXPECT_EQ(tmem_columns_for(256, 256, 4, 128), 512);  // two 128-lane halves side by side

  TileConfig c = tile(128, 256, 64, 4, 128);
  c.accumulator = Accumulator::TensorMemory;
  const TileAnalysis a = analyze_tile(c, gpu_spec("b200"));
  EXPECT_TRUE(a.feasible());
  EXPECT_EQ(a.tmem_columns, 256);
  EXPECT_EQ(a.blocks_allowed_by("tensor memory"), 2);
  EXPECT_EQ(a.shared_bytes, 196608);
  EXPECT_EQ(a.blocks_per_sm, 1);  // 233472 / 197632

  c.block_m = 256;
  c.block_n = 512;
  c.block_k = 16;
  c.stages = 2;
  const TileAnalysis big = analyze_tile(c, gpu_spec("b200"));
  ASSERT_EQ(big.problems.size(), 1u);
  EXPECT_EQ(big.problems[0], "needs 1024 tensor-memory columns for a 256x512 accumulator; an SM has 512, 512 too many");

  c = tile(128, 128, 32, 2);
  c.accumulator = Accumulator::TensorMemory;
  const TileAnalysis hopper = analyze_tile(c, gpu_spec("h100"));
  ASSERT_EQ(hopper.problems.size(), 1u);
  EXPECT_EQ(hopper.problems[0], "H100 (sm_90) has no tensor memory; keep the accumulator in registers");
}

TEST(TileAnalysis, BadSizesAreUserErrors) {
  auto message = [](TileConfig c) {
    try {
      analyze_tile(c, gpu_spec("a100"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(tile(0, 128, 32, 2)), "block_m = 0 is out of range (1..65536)");
  EXPECT_EQ(message(tile(128, 128, -32, 2)), "block_k = -32 is out of range (1..65536)");
  EXPECT_EQ(message(tile(128, 128, 32, 0)), "stages = 0 is out of range (1..64)");
  EXPECT_EQ(message(tile(128, 128, 32, 2, 0)), "threads = 0 is out of range (1..65536)");
  EXPECT_THROW(ridge_point(0, 2e12), Error);
  EXPECT_THROW(attainable(312e12, 2e12, -1), Error);
  EXPECT_THROW(tile_intensity(128, 0, 2), Error);
}

// The largest sizes allowed do not overflow anything.
TEST(TileAnalysis, LargestSizes) {
  TileConfig c = tile(1 << 16, 1 << 16, 1 << 16, 64, 1);
  c.in_bytes = c.acc_bytes = 16;
  const TileAnalysis a = analyze_tile(c, gpu_spec("b200"));
  EXPECT_EQ(a.shared_bytes, int64_t(2) * (1 << 16) * (1 << 16) * 16 * 64);
  EXPECT_EQ(a.registers_per_thread, (int64_t(1) << 34) + 32);
  EXPECT_FALSE(a.feasible());
  EXPECT_EQ(a.blocks_per_sm, 0);
}

}  // namespace
}  // namespace tessel::analysis
