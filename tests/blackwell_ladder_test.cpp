// The Blackwell seed kernels on the simulator (as sm_100a kernels): every version against the
// host reference at the seeds' size and at sizes that are not tile multiples, under every
// completion order; their sm_100a compiles; and the refusal to compile them for sm_90a.
#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "simulate.hpp"

namespace tessel {
namespace {

// 256 x 256 x 512 is the seeds' test size; 200 x 136 x 296 masks rows, columns and k in every
// tile; 136 x 600 x 40 has fewer k-tiles than V2's prefill and a last group of rasterized tiles
// narrower than swizzle_size.
const std::vector<std::vector<int64_t>> sizes = {{256, 256, 512}, {200, 136, 296}, {136, 600, 40}};

void expect_matches_under_every_order(const char* name) {
  for (const std::vector<int64_t>& size : sizes)
    for (const sim::Options& o : testing::every_order()) {
      const examples::RunResult r = examples::find_example(name).run(Device::simulator(), size, KernelOptions{.sim = o});
      EXPECT_TRUE(r.ok) << name << ": " << r.summary;
    }
}

TEST(BlackwellLadder, V0MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v0"); }
TEST(BlackwellLadder, V1MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v1"); }
TEST(BlackwellLadder, V2MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v2"); }
TEST(BlackwellLadder, V3MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v3"); }
TEST(BlackwellLadder, V4MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v4"); }
TEST(BlackwellLadder, V5MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v5"); }
TEST(BlackwellLadder, V6MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("blackwell_v6"); }

// V5's blocks cancel the launch of blocks that have not started: with 1 resident block it computes
// every tile, with 3 the blocks share them, and with every block resident no request succeeds.
TEST(BlackwellLadder, V5MatchesTheHostReferenceWithOneThreeAndAllBlocksResident) {
  for (int resident : {1, 3, 64})
    for (sim::Options o : testing::every_order()) {
      o.resident_clusters = resident;
      const examples::RunResult r =
          examples::find_example("blackwell_v5").run(Device::simulator(), {200, 600, 296}, KernelOptions{.sim = o});
      EXPECT_TRUE(r.ok) << resident << " resident: " << r.summary;
    }
}

// V6's pairs: with 1 resident cluster one pair computes all 6 tiles, so each block's epilogue and
// the pair's mma hand both accumulators back and forth across tiles; with 2 the pairs share them.
TEST(BlackwellLadder, V6MatchesTheHostReferenceWithOneAndTwoClustersResident) {
  for (int resident : {1, 2})
    for (sim::Options o : testing::every_order()) {
      o.resident_clusters = resident;
      const examples::RunResult r =
          examples::find_example("blackwell_v6").run(Device::simulator(), {520, 528, 136}, KernelOptions{.sim = o});
      EXPECT_TRUE(r.ok) << resident << " resident: " << r.summary;
    }
}

using testing::Cli;
using testing::tessel;

TEST(BlackwellLadder, V5RunsFromTheCommandLineWithOneBlockResident) {
  const Cli r = tessel("run blackwell_v5 200 600 296 --resident-clusters 1 --order lazy");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("blackwell_v5 200x600x296: PASS"), std::string::npos) << r.output;
}

TEST(BlackwellLadder, EveryVersionCompilesForSm100aAndIsRefusedForSm90aNamingSm100a) {
  const Cli listed = tessel("list");
  for (const char* version : {"blackwell_v0", "blackwell_v1", "blackwell_v2", "blackwell_v3", "blackwell_v4",
                              "blackwell_v5", "blackwell_v6"}) {
    EXPECT_NE(listed.output.find(version), std::string::npos) << listed.output;
    const Cli blackwell = tessel(std::string("compile ") + version + " --arch sm_100a");
    EXPECT_EQ(blackwell.status, 0) << blackwell.output;
    const Cli hopper = tessel(std::string("compile ") + version + " --arch sm_90a");
    EXPECT_NE(hopper.status, 0) << hopper.output;
    EXPECT_NE(hopper.output.find("needs sm_100a or newer; the kernel is compiled for sm_90a"), std::string::npos)
        << version << ": " << hopper.output;
  }
}

}  // namespace
}  // namespace tessel
