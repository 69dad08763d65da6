// The Hopper matmul ladder on the simulator: every step against the host reference at sizes that
// are and are not multiples of its tiles, under every completion order, and its targets.

#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "expect_error.hpp"
#include "matmul_example.hpp"
#include "matmul_hopper/v1_tma_wgmma.hpp"
#include "matmul_hopper/v2_multistage.hpp"
#include "matmul_hopper/v3_warp_specialized.hpp"
#include "matmul_hopper/v4_pipeline_class.hpp"
#include "matmul_hopper/v5_persistent.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel {
namespace {

TEST(HopperLadder, V1MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"hopper_v1", "hopper_v1_bf16"})
    for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{256, 128, 128}, std::vector<int64_t>{200, 136, 96}})
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), sizes, o);
        EXPECT_TRUE(r.ok) << r.summary;
      }
}

// Step 1 with two warpgroups, each running the mma of its 64 rows of the block.
struct V1TwoWarpgroups : examples::hopper::MatmulV1TmaWgmma<f16> {
  V1TwoWarpgroups() { warpgroups = 2; }
};

TEST(HopperLadder, V1WithTwoWarpgroupsMatchesTheHostReferenceUnderEveryOrder) {
  const cli::KernelEntry e = examples::matmul_example<V1TwoWarpgroups>("hopper_v1_two_warpgroups", "");
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{128, 256, 128}, std::vector<int64_t>{200, 136, 96}})
    for (const KernelOptions& o : testing::every_order_options()) {
      const cli::RunResult r = e.run(Device::simulator(), sizes, o);
      EXPECT_TRUE(r.ok) << r.summary;
    }
}

// k = 320 and 296 give more k-tiles than stages, so the ring wraps and both parities are used;
// k = 40 gives fewer k-tiles than the prologue would fill.
const std::vector<std::vector<int64_t>> v2_sizes = {{256, 128, 320}, {200, 136, 296}, {136, 200, 40}};

TEST(HopperLadder, V2MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"hopper_v2", "hopper_v2_bf16"})
    for (const std::vector<int64_t>& sizes : v2_sizes)
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), sizes, o);
        EXPECT_TRUE(r.ok) << name << " " << r.summary;
      }
}

// The other points of step 2's space, and two warpgroups, fixed (one candidate each).
template <int Stages, int BlockK, int Warpgroups> struct V2Fixed : examples::hopper::MatmulV2Multistage<f16> {
  V2Fixed() {
    stages = Stages;
    block_k = BlockK;
    warpgroups = Warpgroups;
  }
  static Space space() { return Space{}; }
};

template <class S> void expect_v2_matches_under_every_order(const char* name) {
  const cli::KernelEntry e = examples::matmul_example<S>(name, "");
  for (const std::vector<int64_t>& sizes : v2_sizes)
    for (const KernelOptions& o : testing::every_order_options()) {
      const cli::RunResult r = e.run(Device::simulator(), sizes, o);
      EXPECT_TRUE(r.ok) << name << " " << r.summary;
    }
}

TEST(HopperLadder, V2AtEveryStageCountAndBlockKMatchesTheHostReference) {
  expect_v2_matches_under_every_order<V2Fixed<2, 64, 1>>("v2_stages2_k64");
  expect_v2_matches_under_every_order<V2Fixed<4, 64, 1>>("v2_stages4_k64");
  expect_v2_matches_under_every_order<V2Fixed<2, 32, 1>>("v2_stages2_k32");
  expect_v2_matches_under_every_order<V2Fixed<3, 32, 1>>("v2_stages3_k32");
  expect_v2_matches_under_every_order<V2Fixed<4, 32, 1>>("v2_stages4_k32");
  expect_v2_matches_under_every_order<V2Fixed<3, 64, 2>>("v2_two_warpgroups");
}

template <class S>
void expect_matches_under_every_order(const char* name, const std::vector<std::vector<int64_t>>& sizes) {
  const cli::KernelEntry e = examples::matmul_example<S>(name, "");
  for (const std::vector<int64_t>& size : sizes)
    for (const KernelOptions& o : testing::every_order_options()) {
      const cli::RunResult r = e.run(Device::simulator(), size, o);
      EXPECT_TRUE(r.ok) << name << " " << r.summary;
    }
}

// Steps 3 and 4 at their first candidates (block 128 x 256), and at the other block width and
// stage count of their spaces. 600 and 1400 columns leave a last group of rasterized tiles narrower
// than swizzle_size; 1400 has a full group before it.
const std::vector<std::vector<int64_t>> specialized_sizes = {{256, 512, 320}, {200, 600, 296}, {136, 1400, 40}};

TEST(HopperLadder, V3MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"hopper_v3", "hopper_v3_bf16"})
    for (const std::vector<int64_t>& sizes : specialized_sizes)
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), sizes, o);
        EXPECT_TRUE(r.ok) << name << " " << r.summary;
      }
}

template <int BlockN, int Stages, int ConsumerWarpgroups> struct V3Fixed
    : examples::hopper::MatmulV3WarpSpecialized<f16> {
  V3Fixed() {
    block_n = BlockN;
    stages = Stages;
    consumer_warpgroups = ConsumerWarpgroups;
  }
  static Space space() { return Space{}; }
};

TEST(HopperLadder, V3AtOtherBlockWidthsStagesAndConsumerCountsMatchesTheHostReference) {
  expect_matches_under_every_order<V3Fixed<128, 3, 2>>("v3_n128_stages3", specialized_sizes);
  expect_matches_under_every_order<V3Fixed<128, 2, 1>>("v3_one_consumer", specialized_sizes);
}

// ptxas serializes step 3's wgmma at block_n = 256 (its epilogue reads the accumulators inside the
// pipeline stage): the compile says so once, under the kernel's name, from NVRTC's log or the cache.
TEST(HopperLadder, V3sSerializedWgmmaIsReportedOnceAtCompileTime) {
  const auto warnings = [] {
    Kernel<V3Fixed<256, 4, 2>> kernel(Device::simulator(), KernelOptions{"sm_90a"});
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 2; ++i) kernel.cubin(200, 136, 96, (f16*)nullptr, (f16*)nullptr, (f16*)nullptr);
    return ::testing::internal::GetCapturedStderr();
  };
  for (int compile = 0; compile < 2; ++compile) {  // NVRTC or the cache, then the cache
    const std::string got = warnings();
    const std::string note =
        "tessel: warning: kernel V3Fixed_256_4_2 for sm_90a: ptxas: (C7514) Potential Performance Loss: "
        "wgmma.mma_async instructions are serialized";
    EXPECT_EQ(got.find(note), 0u) << got;
    ASSERT_NE(got.find(note), std::string::npos) << got;
    EXPECT_EQ(got.find(note, got.find(note) + 1), std::string::npos) << "said once: " << got;
  }
}

TEST(HopperLadder, V4MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"hopper_v4", "hopper_v4_bf16"})
    for (const std::vector<int64_t>& sizes : specialized_sizes)
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), sizes, o);
        EXPECT_TRUE(r.ok) << name << " " << r.summary;
      }
}

template <int SwizzleSize, int BlockN> struct V4Fixed : examples::hopper::MatmulV4PipelineClass<f16> {
  V4Fixed() {
    swizzle_size = SwizzleSize;
    block_n = BlockN;
  }
  static Space space() { return Space{}; }
};

TEST(HopperLadder, V4AtEverySwizzleSizeMatchesTheHostReference) {
  expect_matches_under_every_order<V4Fixed<1, 256>>("v4_swizzle1", specialized_sizes);
  expect_matches_under_every_order<V4Fixed<8, 128>>("v4_swizzle8_n128", specialized_sizes);
}

// The simulated device has 4 multiprocessors unless told otherwise, so the persistent blocks of
// step 5 take 1 to 3 tiles each at these sizes; with 1 and 5, one block takes every tile (the
// ring and the output tile's store run on across them), or some blocks take none.
TEST(HopperLadder, V5OnOneAndOnFiveMultiprocessorsMatchesTheHostReference) {
  for (int multiprocessors : {1, 5})
    for (const std::vector<int64_t>& sizes : specialized_sizes)
      for (sim::Options o : testing::every_order()) {
        o.multiprocessors = multiprocessors;
        const cli::RunResult r =
            examples::find_example("hopper_v5").run(Device::simulator(), sizes, KernelOptions{.sim = o});
        EXPECT_TRUE(r.ok) << multiprocessors << " multiprocessors: " << r.summary;
      }
}

TEST(HopperLadder, V5MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"hopper_v5", "hopper_v5_bf16"})
    for (const std::vector<int64_t>& sizes : specialized_sizes)
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), sizes, o);
        EXPECT_TRUE(r.ok) << name << " " << r.summary;
      }
}

template <int SwizzleSize, int BlockN, int Stages, int SplitK = 1> struct V5Fixed
    : examples::hopper::MatmulV5Persistent<f16> {
  V5Fixed() {
    swizzle_size = SwizzleSize;
    block_n = BlockN;
    stages = Stages;
    split_k = SplitK;
  }
  static Space space() { return Space{}; }
};

// The decode candidates: one consumer warpgroup of 64 rows.
template <int BlockN, int Stages> struct V5OneConsumer : V5Fixed<4, BlockN, Stages> {
  V5OneConsumer() {
    this->block_m = 64;
    this->consumer_warpgroups = 1;
  }
};

// Swapped operands: B's rows are the mma's M and A's 16 rows its N.
template <int ConsumerWarpgroups, int Stages> struct V5Swapped : V5Fixed<4, 128, Stages> {
  V5Swapped() {
    this->block_m = 16;
    this->consumer_warpgroups = ConsumerWarpgroups;
    this->swap_ab = 1;
  }
};

TEST(HopperLadder, V5AtTheOtherPointsOfItsSpaceMatchesTheHostReference) {
  expect_matches_under_every_order<V5Fixed<1, 128, 5>>("v5_swizzle1_n128_stages5", specialized_sizes);
  expect_matches_under_every_order<V5Fixed<8, 128, 4>>("v5_swizzle8_n128_stages4", specialized_sizes);
  expect_matches_under_every_order<V5OneConsumer<128, 8>>("v5_one_consumer", {{16, 600, 296}, {200, 264, 296}});
  // 112 columns, whose output tile is one unswizzled epilogue block of 224-byte rows.
  expect_matches_under_every_order<V5Fixed<4, 112, 6>>("v5_n112_stages6", specialized_sizes);
  expect_matches_under_every_order<V5OneConsumer<112, 9>>("v5_one_consumer_n112", {{16, 600, 296}, {200, 264, 296}});
  // 40 rows are three blocks of 16, the last one partial.
  expect_matches_under_every_order<V5Swapped<1, 10>>("v5_swapped", {{16, 600, 296}, {40, 264, 296}});
  expect_matches_under_every_order<V5Swapped<2, 11>>("v5_swapped_two_consumers", {{16, 600, 296}, {40, 264, 296}});
}

// Stages of two 64-column chunks of k. k = 296 is 2 stages and a partial third (the last chunk
// past k), k = 40 a partial first chunk; 4 splits of k = 296 take 1, 1, 1 and no stages.
template <class Base> struct V5TwoChunks : Base {
  V5TwoChunks() {
    this->k_chunks = 2;
    this->stages = std::max(2, this->stages / 2);
  }
};

TEST(HopperLadder, V5WithStagesOfTwoChunksMatchesTheHostReferenceUnderEveryOrder) {
  const std::vector<std::vector<int64_t>> sizes = {{200, 264, 296}, {136, 200, 40}};
  expect_matches_under_every_order<V5TwoChunks<V5Fixed<4, 112, 6>>>("v5_n112_two_chunks", sizes);
  expect_matches_under_every_order<V5TwoChunks<V5OneConsumer<128, 8>>>("v5_one_consumer_two_chunks", sizes);
  expect_matches_under_every_order<V5TwoChunks<V5Swapped<1, 10>>>("v5_swapped_two_chunks",
                                                                  {{16, 600, 296}, {40, 264, 40}});
  const cli::KernelEntry split =
      examples::matmul_example<V5TwoChunks<V5Fixed<4, 128, 4, 4>>>("v5_split4_two_chunks", "");
  for (sim::Options o : testing::every_order()) {
    o.multiprocessors = 5;
    const cli::RunResult r = split.run(Device::simulator(), {16, 600, 296}, KernelOptions{.sim = o});
    EXPECT_TRUE(r.ok) << r.summary;
  }
}

// tf32 operands into f32: 128 x 256 output tiles staged in 2 or 4 passes of the TMA-store epilogue,
// each pass's stores reading the shared tile before the next pass overwrites it (on 5
// multiprocessors a block takes several tiles, and the tile before's last pass is waited for too).
template <int Stages, int Passes> struct V5Tf32 : examples::hopper::MatmulV5Persistent<tf32, float> {
  V5Tf32() {
    stages = Stages;
    epilogue_passes = Passes;
  }
  static Space space() { return Space{}; }
};

TEST(HopperLadder, V5Tf32EpilogueInPassesMatchesTheHostReferenceUnderEveryOrder) {
  for (const cli::KernelEntry& e : {examples::tf32_matmul_example<V5Tf32<3, 2>>("v5_tf32_two_passes", ""),
                                    examples::tf32_matmul_example<V5Tf32<4, 4>>("v5_tf32_four_passes", "")})
    for (sim::Options o : testing::every_order()) {
      o.multiprocessors = 5;
      for (const std::vector<int64_t>& size : {std::vector<int64_t>{300, 600, 104}, {130, 256, 40}}) {
        const cli::RunResult r = e.run(Device::simulator(), size, KernelOptions{.sim = o});
        EXPECT_TRUE(r.ok) << e.name << " " << r.summary;
      }
    }
}

struct V5ThreePasses : V5Fixed<4, 128, 4> {
  V5ThreePasses() { epilogue_passes = 3; }
};

TEST(HopperLadder, V5RefusesEpiloguePassesThatDoNotShareTheTileOut) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(128 * 64)), b(dev, std::vector<f16>(128 * 64)),
      c(dev, std::vector<f16>(128 * 128));
  EXPECT_EQ(testing::error_of<V5ThreePasses>(128, 128, 64, a, b, c),
            testing::source_at("examples/matmul_hopper/v5_persistent.hpp", "epilogue = TmaStoreEpilogue<Out>") +
                ": TmaStoreEpilogue: 128 columns make 2 blocks of 64, which 3 passes do not share out evenly");
}

struct V5NoChunks : V5Fixed<4, 128, 4> {
  V5NoChunks() { k_chunks = 0; }
};

TEST(HopperLadder, V5RefusesStagesOfNoChunk) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(128 * 64)), b(dev, std::vector<f16>(128 * 64)),
      c(dev, std::vector<f16>(128 * 128));
  EXPECT_EQ(testing::error_of<V5NoChunks>(128, 128, 64, a, b, c),
            "kernel V5NoChunks: MatmulV5Persistent: k_chunks must be at least 1, not 0");
}

struct V5SwappedSplit : V5Swapped<1, 10> {
  V5SwappedSplit() { split_k = 2; }
};

TEST(HopperLadder, V5RefusesSwappedOperandsWithSplitK) {
  const Device dev = Device::simulator();
  Buffer<f16> a(dev, std::vector<f16>(16 * 64)), b(dev, std::vector<f16>(128 * 64)), c(dev, std::vector<f16>(16 * 128));
  EXPECT_EQ(testing::error_of<V5SwappedSplit>(16, 128, 64, a, b, c),
            "kernel V5SwappedSplit: MatmulV5Persistent: swap_ab = 1 takes split_k = 1");
}

// Split-K: k = 296 is 5 k-tiles, so 2 splits take 3 and 2 and 4 splits take 2, 2, 1 and none. A
// tile's units run on different blocks on 5 multiprocessors, and on one block on 1.
TEST(HopperLadder, V5WithSplitKMatchesTheHostReference) {
  const std::vector<std::vector<int64_t>> sizes = {{16, 600, 296}, {200, 264, 296}};
  const cli::KernelEntry two = examples::matmul_example<V5Fixed<1, 128, 4, 2>>("v5_split2", "");
  const cli::KernelEntry four = examples::matmul_example<V5Fixed<4, 128, 4, 4>>("v5_split4", "");
  for (const std::vector<int64_t>& size : sizes)
    for (sim::Options o : testing::every_order())
      for (int multiprocessors : {1, 5}) {
        o.multiprocessors = multiprocessors;
        for (const cli::KernelEntry* e : {&two, &four}) {
          const cli::RunResult r = e->run(Device::simulator(), size, KernelOptions{.sim = o});
          EXPECT_TRUE(r.ok) << e->name << " on " << multiprocessors << " multiprocessors: " << r.summary;
        }
      }
}

using testing::Cli;
using testing::tessel;

TEST(HopperLadder, EveryStepCompilesForSm90aAndIsRefusedForSm80NamingSm90a) {
  const Cli listed = tessel("list");
  for (const char* step : {"hopper_v1", "hopper_v2", "hopper_v3", "hopper_v4", "hopper_v5"}) {
    EXPECT_NE(listed.output.find(step), std::string::npos) << listed.output;
    const Cli hopper = tessel(std::string("compile ") + step + " --arch sm_90a");
    EXPECT_EQ(hopper.status, 0) << hopper.output;
    const Cli ampere = tessel(std::string("compile ") + step + " --arch sm_80");
    EXPECT_NE(ampere.status, 0) << ampere.output;
    EXPECT_EQ(ampere.output,
              fmt::format("error: kernel {} is registered for sm_90a only, not sm_80 (KernelInfo::targets)\n", step));
  }
}

}  // namespace
}  // namespace tessel
