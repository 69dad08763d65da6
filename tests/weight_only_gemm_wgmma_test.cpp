// The weight-only GEMM on wgmma (examples/quantized/weight_only_gemm_wgmma.hpp) on the simulator:
// weights of every width as the register A operand, tiles of many rows and of a few, persistent
// blocks that take several tiles, and split-K, at sizes that are not multiples of the tiles.
#include <tuple>

#include "any_width_kernels.hpp"
#include "expect_error.hpp"
#include "quantized/weight_only_gemm_check.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

template <class W, int BlockM = 128, int SplitK = 1, int Warpgroups = 2, int Overlap = 0, int EpilogueTma = 0,
          int Promote = 0, int RowBlocks = 1, int KSlices = 1, int InterleaveK = 0, int StreamK = 0>
struct WgmmaConfig : examples::quantized::WeightOnlyGemmWgmma<W> {
  WgmmaConfig() {
    this->k_slices = KSlices;
    this->block_m = BlockM;
    this->split_k = SplitK;
    this->consumer_warpgroups = Warpgroups;
    this->overlap = Overlap;
    this->epilogue_tma = EpilogueTma;
    this->promote = Promote;
    this->row_blocks = RowBlocks;
    this->interleave_k = InterleaveK;
    this->stream_k = StreamK;
  }
  static Space space() { return Space{}; }
};

template <class S, class W, class Act = f16>
void expect_wgmma_gemm(int m, int n, int k, const KernelOptions& options = {}) {
  const std::string label =
      fmt::format("weight_only_gemm_wgmma<{}, {}>", dtype_name(dtype_v<W>), dtype_name(dtype_v<Act>));
  const cli::RunResult r =
      examples::quantized::run_weight_only_gemm<W, S, Act>(Device::simulator(), m, n, k, options, label);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(WeightOnlyGemmWgmma, EveryWidth) {
  for_each_any_width_type([](auto type) {
    using W = decltype(type);
    expect_wgmma_gemm<WgmmaConfig<W>, W>(130, 136, 384);
  });
  expect_wgmma_gemm<WgmmaConfig<i4>, i4>(130, 136, 384);
  expect_wgmma_gemm<WgmmaConfig<u4>, u4>(130, 136, 384);
  expect_wgmma_gemm<WgmmaConfig<int8_t>, int8_t>(130, 136, 384);
  expect_wgmma_gemm<WgmmaConfig<f8e4m3>, f8e4m3>(130, 136, 384);
}

// bf16 activations, scales and output: every integer width (1, 2 and 4 bits under bf16's exponent,
// from more shifts of each word than f16 takes; 8 bits, which bf16's 7 mantissa bits cannot hold,
// under f32's exponent; the others as planes) and a packed float, with and without the
// products scaled, split over k at decode sizes and in halves of each k-tile.
template <class W, int BlockM = 128, int SplitK = 1, int Promote = 0, int KSlices = 1> struct Bf16Config
    : examples::quantized::WeightOnlyGemmWgmma<W, bf16> {
  Bf16Config() {
    this->block_m = BlockM;
    this->split_k = SplitK;
    this->promote = Promote;
    this->k_slices = KSlices;
  }
  static Space space() { return Space{}; }
};

TEST(WeightOnlyGemmWgmma, Bf16ActivationsForEveryIntegerWidth) {
  const auto each = [](auto... types) {
    (expect_wgmma_gemm<Bf16Config<decltype(types)>, decltype(types), bf16>(130, 136, 384), ...);
  };
  std::apply(each, std::tuple<i1, u1, i2, u2, i3, u3, i4, u4, i5, u5, i6, u6, i7, u7, int8_t, uint8_t, f6e3m2>{});
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<Bf16Config<i4, 16, 2, 1, 2>, i4, bf16>(5, 520, 640, o);
    expect_wgmma_gemm<Bf16Config<i3, 16, 4, 1>, i3, bf16>(17, 264, 640, o);
    expect_wgmma_gemm<Bf16Config<int8_t, 64, 1, 0, 2>, int8_t, bf16>(70, 264, 384, o);
  }
}

// 9 tiles of 128 x 128 on one and on five multiprocessors: each persistent block takes several,
// and the ring's stages and phases run on from one tile to the next; with the output through shared
// memory, each tile's TMA store has read it before the next tile's output overwrites it.
TEST(WeightOnlyGemmWgmma, PersistentBlocksUnderEveryOrder) {
  for (int multiprocessors : {1, 5})
    for (KernelOptions o : every_order_options()) {
      o.sim.multiprocessors = multiprocessors;
      expect_wgmma_gemm<WgmmaConfig<i4>, i4>(300, 264, 384, o);
      expect_wgmma_gemm<WgmmaConfig<i3, 128, 1, 2, 0, 1>, i3>(300, 264, 384, o);
    }
}

// Decode sizes: 16 rows of X as the wgmma's N, with k = 384 (3 k-tiles) split 4 ways (1, 1, 1 and
// none) and 2 ways (2 and 1); with each warpgroup dequantizing the next k-tile during its mma, over
// two and four consumer warpgroups. 64 rows in tiles of 64 with k = 640 split 4 ways (2, 2, 1 and
// none), the products scaled.
TEST(WeightOnlyGemmWgmma, SplitKUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<WgmmaConfig<i4, 64, 4, 2, 0, 0, 1>, i4>(70, 136, 640, o);
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 4>, i4>(5, 200, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i3, 16, 2>, i3>(17, 264, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 4, 2, 1>, i4>(5, 200, 384, o);
    expect_wgmma_gemm<WgmmaConfig<f4e2m1, 16, 2, 4, 1>, f4e2m1>(17, 520, 640, o);
  }
}

// 8 rows of X as the wgmma's N (m64n8k16), for one to eight rows: one row, split 2 over two
// warpgroups of two row blocks with the products scaled; and 9 rows (two tiles of 8), split 4, in
// halves of each k-tile.
TEST(WeightOnlyGemmWgmma, EightRowsOfXUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<WgmmaConfig<i4, 8, 2, 2, 0, 0, 1, 2>, i4>(1, 520, 640, o);
    expect_wgmma_gemm<WgmmaConfig<int8_t, 8, 4, 2, 0, 0, 0, 1, 2>, int8_t>(9, 264, 384, o);
  }
}

// The consumer warpgroups on the same rows, taking the k-tiles in turn and summing their partials
// through shared memory: one row of X over 5 k-tiles (3 and 2) in tiles of 128 rows, each block
// taking several tiles, so that the ring's fillings run on across tiles of an odd count; 9 rows,
// split 2 (3 and 2 k-tiles) over four warpgroups, one of which has no k-tile of an item, in halves
// of each k-tile; 3-bit weights (the generic dequantization) over two; 7 k-tiles split 2 (4 and 3)
// over three warpgroups of two row blocks.
TEST(WeightOnlyGemmWgmma, InterleavedWarpgroupsUnderEveryOrder) {
  for (KernelOptions o : every_order_options()) {
    o.sim.multiprocessors = 2;
    expect_wgmma_gemm<WgmmaConfig<i4, 8, 1, 2, 0, 0, 1, 2, 1, 1>, i4>(1, 520, 640, o);
    expect_wgmma_gemm<WgmmaConfig<int8_t, 8, 2, 4, 0, 0, 0, 1, 2, 1>, int8_t>(9, 264, 640, o);
    expect_wgmma_gemm<WgmmaConfig<i3, 16, 1, 2, 0, 0, 0, 1, 1, 1>, i3>(17, 136, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 2, 3, 0, 0, 1, 2, 2, 1>, i4>(5, 264, 896, o);
    // Many laps of the ring: 32 k-tiles over three warpgroups of 2 stages each. Where they shared
    // the ring's 8 stages, one came to a stage a lap ahead of the filling before its own, whose
    // bytes could land after later ones, and read the stage while it was written (an H200 faulted
    // within thousands of launches at 1 x 14336 x 4096; the lazy order here found it).
    expect_wgmma_gemm<WgmmaConfig<int8_t, 16, 1, 3, 0, 0, 1, 2, 1, 1>, int8_t>(1, 128, 4096, o);
  }
}

// Stream-K: 5 tiles of 5 k-tiles shared out among 3, 4 and 7 blocks, so that runs start and end
// inside tiles and, on 7, tile 3 is cut among three blocks (runs of 4, 4, 4, 4, 3, 3, 3), one of
// them inside it alone; with interleaved warpgroups of two row blocks at one row of X, with two
// warpgroups side by side at 5 rows, and in tiles of 64 rows of X (two of them at 70 rows).
TEST(WeightOnlyGemmWgmma, StreamKUnderEveryOrder) {
  for (int multiprocessors : {3, 4, 7})
    for (KernelOptions o : every_order_options()) {
      o.sim.multiprocessors = multiprocessors;
      SCOPED_TRACE(multiprocessors);
      expect_wgmma_gemm<WgmmaConfig<i4, 8, 1, 3, 0, 0, 1, 2, 1, 1, 1>, i4>(1, 520, 640, o);
      expect_wgmma_gemm<WgmmaConfig<i4, 16, 1, 2, 0, 0, 1, 1, 1, 0, 1>, i4>(5, 520, 640, o);
    }
  KernelOptions o;
  o.sim.multiprocessors = 3;
  expect_wgmma_gemm<WgmmaConfig<i3, 64, 1, 2, 0, 0, 0, 1, 1, 0, 1>, i3>(70, 136, 640, o);
}

// Each k-tile's product of the unscaled weights scaled into the accumulator by the rows' scales:
// 4-bit integers (their own dequantization), 3-bit integers and fp4 (the generic one), each with
// and without the next k-tile dequantized during the mma, and warpgroups of two 64-row blocks.
TEST(WeightOnlyGemmWgmma, ScalesAppliedToEachProductUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 2, 4, 0, 0, 1>, i4>(5, 520, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i3, 16, 2, 2, 1, 0, 1>, i3>(17, 264, 384, o);
    expect_wgmma_gemm<WgmmaConfig<f4e2m1, 64, 1, 2, 0, 0, 1>, f4e2m1>(70, 136, 256, o);
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 2, 2, 0, 0, 1, 2>, i4>(5, 520, 640, o);
    expect_wgmma_gemm<WgmmaConfig<int8_t, 64, 1, 2, 0, 0, 0, 2>, int8_t>(70, 264, 384, o);
  }
}

// Each k-tile's dequantization and mma in two halves of k, the first half's mma running while the
// second half dequantizes: 4- and 8-bit integers (their own dequantization, a half of 2 and 4
// words), 2-bit integers, 6-bit integers (planes of 4 and 2 bits, a half of each plane's words) and
// 6-bit floats (the generic one, a half of 1 and 3 words), with and without the products scaled, at
// decode sizes split over k and at 64 rows.
TEST(WeightOnlyGemmWgmma, HalvesOfEachKTileUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<WgmmaConfig<i4, 16, 2, 2, 0, 0, 1, 2, 2>, i4>(5, 520, 640, o);
    expect_wgmma_gemm<WgmmaConfig<int8_t, 64, 1, 2, 0, 0, 0, 1, 2>, int8_t>(70, 264, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i2, 16, 2, 4, 0, 0, 1, 1, 2>, i2>(17, 520, 384, o);
    expect_wgmma_gemm<WgmmaConfig<i6, 64, 1, 2, 0, 0, 0, 1, 2>, i6>(70, 264, 384, o);
    expect_wgmma_gemm<WgmmaConfig<u6, 16, 2, 2, 0, 0, 1, 1, 2>, u6>(5, 520, 384, o);
    expect_wgmma_gemm<WgmmaConfig<f6e3m2, 16, 4, 2, 0, 0, 0, 1, 2>, f6e3m2>(5, 264, 384, o);
  }
}

TEST(WeightOnlyGemmWgmma, RefusesHalvesOfOddWidthsOverlappedKTilesAndLoneInterleavedWarpgroups) {
  const Device dev = Device::simulator();
  Buffer<f16> x(dev, 16 * 256), y(dev, 16 * 64), scales(dev, 2 * 8 * 16);
  Buffer<uint32_t> units(dev, 64 * 256 / 8);
  EXPECT_EQ((error_of<WgmmaConfig<i3, 16, 2, 2, 0, 0, 1, 1, 2>>(16, 64, 256, x, units, scales, y)),
            "kernel WgmmaConfig_i3_16_2_2_0_0_1_1_2_0_0: WeightOnlyGemmWgmma: k_slices = 2 needs 1, or 2 with weights "
            "of even bits and overlap = 0 (3 bits, "
            "overlap = 0)");
  EXPECT_EQ((error_of<WgmmaConfig<i4, 16, 2, 2, 1, 0, 1, 1, 2>>(16, 64, 256, x, units, scales, y)),
            "kernel WgmmaConfig_i4_16_2_2_1_0_1_1_2_0_0: WeightOnlyGemmWgmma: k_slices = 2 needs 1, or 2 with weights "
            "of even bits and overlap = 0 (4 bits, "
            "overlap = 1)");
  EXPECT_EQ((error_of<WgmmaConfig<i4, 16, 2, 2, 0, 0, 1, 1, 4>>(16, 64, 256, x, units, scales, y)),
            "kernel WgmmaConfig_i4_16_2_2_0_0_1_1_4_0_0: WeightOnlyGemmWgmma: k_slices = 4 needs 1, or 2 with weights "
            "of even bits and overlap = 0 (4 bits, "
            "overlap = 0)");
  EXPECT_EQ((error_of<WgmmaConfig<i4, 16, 1, 1, 0, 0, 1, 2, 1, 1>>(16, 64, 256, x, units, scales, y)),
            "kernel WgmmaConfig_i4_16_1_1_0_0_1_2_1_1_0: WeightOnlyGemmWgmma: interleave_k = 1 needs "
            "consumer_warpgroups > 1 and overlap = 0 "
            "(consumer_warpgroups = 1, overlap = 0)");
  EXPECT_EQ((error_of<WgmmaConfig<i4, 16, 1, 2, 1, 0, 1, 2, 1, 1>>(16, 64, 256, x, units, scales, y)),
            "kernel WgmmaConfig_i4_16_1_2_1_0_1_2_1_1_0: WeightOnlyGemmWgmma: interleave_k = 1 needs "
            "consumer_warpgroups > 1 and overlap = 0 "
            "(consumer_warpgroups = 2, overlap = 1)");
}

// The first lap's weights loaded before the kernel's wait for the kernel before it: decode tiles of
// 16 rows split 2 over two warpgroups of two row blocks (more k-tiles than stages, so the ring
// turns), and 64-row tiles of several tiles per block, under every order.
template <class W, int BlockM, int SplitK, int RowBlocks> struct EarlyWeights
    : WgmmaConfig<W, BlockM, SplitK, 2, 0, 0, 1, RowBlocks> {
  EarlyWeights() { this->early_weights = 1; }
};

TEST(WeightOnlyGemmWgmma, EarlyWeightsUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options()) {
    expect_wgmma_gemm<EarlyWeights<i4, 16, 2, 2>, i4>(5, 520, 2048, o);
    expect_wgmma_gemm<EarlyWeights<i3, 64, 1, 1>, i3>(70, 264, 384, o);
  }
}

// Right after the repack that writes them, the weights loaded before the wait race with it.
TEST(WeightOnlyGemmWgmma, EarlyWeightsRightAfterTheirRepackRace) {
  const Device dev = Device::simulator();
  const int m = 5, n = 64, k = 256;
  const examples::quantized::QuantizedWeights q = examples::quantized::random_quantized_weights(DType::I4, n, k);
  const std::vector<uint8_t> packed = pack_bits(DType::I4, q.fields);
  Buffer<uint8_t> w(dev, packed);
  Buffer<f16> scales(dev, examples::quantized::converted<f16>(q.scales)),
      zeros(dev, examples::quantized::converted<f16>(q.zeros)), x(dev, cli::random_vector<f16>(size_t(m) * k, 3)),
      y(dev, size_t(m) * n), unit_scales(dev, size_t(k / 128) * (n / 8) * 16);
  Buffer<uint32_t> units(dev, size_t(n) * k / 8);
  Kernel<examples::quantized::RepackWeights<i4>>{dev}(n, k, w, scales, zeros, units, unit_scales);
  const std::string error =
      error_of_call([&] { Kernel<EarlyWeights<i4, 16, 2, 2>>{dev}(m, n, k, x, units, unit_scales, y); });
  const std::string load =
      source_at("examples/quantized/weight_only_gemm_wgmma.hpp", "tma.global_to_shared(g_units, s_units[stage]");
  EXPECT_EQ(error, load + ": data race on global memory, byte 0 of a " + std::to_string(n * k / 2) +
                       "-byte allocation: the tma.global_to_shared at " + load +
                       " by warp 0 of block (0, 0, 0) is not ordered after the store_global of kernel "
                       "RepackWeights_i4_f16 at " +
                       source_at("examples/quantized/repack_weights.hpp",
                                 "store_global(g_units, stored(runs).template to<W>()") +
                       " (launched before this kernel); this kernel calls grid_dependency.wait(), so it is launched "
                       "to run beside the kernels before it until its wait: make the access after "
                       "grid_dependency.wait(), in the thread that waited or in one ordered after it (a sync(), an "
                       "mbarrier phase)");
  // Once the host has waited for the repack, nothing overlaps it.
  dev.synchronize();
  EXPECT_EQ(error_of_call([&] { Kernel<EarlyWeights<i4, 16, 2, 2>>{dev}(m, n, k, x, units, unit_scales, y); }),
            "no error");
}

// The kernel itself refuses sizes the repacked units do not cover, whoever calls it.
TEST(WeightOnlyGemmWgmma, SizesTheUnitsDoNotCoverAreRefusedAtLaunch) {
  const Device dev = Device::simulator();
  Buffer<f16> x(dev, 16 * 256), y(dev, 16 * 64), scales(dev, 2 * 8 * 16);
  Buffer<uint32_t> units(dev, 64 * 256 / 8);
  const std::string where =
      source_at("examples/quantized/weight_only_gemm_wgmma.hpp", "require_whole_units(*this, n, k)");
  EXPECT_EQ(error_of<WgmmaConfig<i4>>(16, 64, 200, x, units, scales, y),
            where +
                ": kernel WgmmaConfig_i4_128_1_2_0_0_0_1_1_0_0: k must be a multiple of 128, the depth of a "
                "quantization group (this launch has k = 200)");
  EXPECT_EQ(error_of<WgmmaConfig<i4>>(16, 60, 256, x, units, scales, y),
            where +
                ": kernel WgmmaConfig_i4_128_1_2_0_0_0_1_1_0_0: n must be a multiple of 8, the rows of a unit "
                "of repacked weights (this launch has n = 60)");
}

}  // namespace
}  // namespace tessel::testing
