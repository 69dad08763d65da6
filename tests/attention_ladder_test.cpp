// The attention ladder on the simulator: every step against the f64 host reference (with rows of
// logits large enough to overflow an unshifted exp) under every completion order, at sequence
// lengths that are not block multiples, causal and not, with grouped K and V heads and both head
// dimensions; `tessel check` over each step; step 4's candidates and step 5 (Blackwell) through
// NVRTC.
#include <gtest/gtest.h>

#include "attention/attention_example.hpp"
#include "attention/v4_overlapped.hpp"
#include "cli.hpp"
#include "examples.hpp"
#include "simulate.hpp"

namespace tessel {
namespace {

// [batch, heads, kv_heads, seq_q, seq_k, head_dim, causal]
const std::vector<std::vector<int64_t>> sizes = {
    {1, 4, 2, 150, 170, 64, 1},  // the default: causal, two query heads per K/V head
    {2, 4, 1, 130, 97, 128, 0},  // four query heads per K/V head, keys fewer than queries
    {1, 2, 2, 77, 200, 64, 0},   // one query block, keys ending mid-block
    {1, 2, 2, 200, 64, 128, 1},  // causal, queries past the last key
};

void expect_matches_under_every_order(const char* name) {
  for (const std::vector<int64_t>& size : sizes)
    for (const sim::Options& o : testing::every_order()) {
      const cli::RunResult r = examples::find_example(name).run(Device::simulator(), size, KernelOptions{.sim = o});
      EXPECT_TRUE(r.ok) << r.summary;
    }
}

TEST(AttentionLadder, V1MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("attention_v1"); }
TEST(AttentionLadder, V1Bf16MatchesTheHostReferenceUnderEveryOrder) {
  expect_matches_under_every_order("attention_v1_bf16");
}

TEST(AttentionLadder, V2MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("attention_v2"); }
TEST(AttentionLadder, V2Bf16MatchesTheHostReferenceUnderEveryOrder) {
  expect_matches_under_every_order("attention_v2_bf16");
}

TEST(AttentionLadder, V3MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("attention_v3"); }
TEST(AttentionLadder, V3Bf16MatchesTheHostReferenceUnderEveryOrder) {
  expect_matches_under_every_order("attention_v3_bf16");
}

TEST(AttentionLadder, V4MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("attention_v4"); }
TEST(AttentionLadder, V4Bf16MatchesTheHostReferenceUnderEveryOrder) {
  expect_matches_under_every_order("attention_v4_bf16");
}

// Step 4's persistent blocks walk every other pass backwards when causal: the default size's 8 tiles
// take three passes on 3 multiprocessors (the second backwards, the last partial) and 8 on one.
TEST(AttentionLadder, V4CausalWalkComputesEveryTileOnOneAndOnThreeMultiprocessors) {
  for (int multiprocessors : {3, 1})
    for (sim::Options o : testing::every_order()) {
      o.multiprocessors = multiprocessors;
      const cli::RunResult r =
          examples::find_example("attention_v4").run(Device::simulator(), sizes[0], KernelOptions{.sim = o});
      EXPECT_TRUE(r.ok) << multiprocessors << " multiprocessors: " << r.summary;
    }
}

// Step 4 in ping-pong (not tuned; asked for by a script object): with three K and V stages and O
// stored from registers, and with one block per tile, 64-key blocks and O stored by TMA.
template <int Persistent, int BlockN, int Stages, int EpilogueTma> struct V4PingPong
    : examples::attention::AttentionV4Overlapped<f16> {
  V4PingPong() {
    ping_pong = 1;
    persistent = Persistent;
    block_n = BlockN;
    k_stages = v_stages = Stages;
    epilogue_tma = EpilogueTma;
  }
  static Space space() { return Space{}; }
};

TEST(AttentionLadder, V4InPingPongMatchesTheHostReferenceUnderEveryOrder) {
  for (const cli::KernelEntry& e : {examples::attention_example<V4PingPong<1, 128, 3, 0>, f16>("v4_ping_pong", ""),
                                    examples::attention_example<V4PingPong<0, 64, 2, 1>, f16>("v4_ping_pong_tma", "")})
    for (const std::vector<int64_t>& size : sizes)
      for (const sim::Options& o : testing::every_order()) {
        const cli::RunResult r = e.run(Device::simulator(), size, KernelOptions{.sim = o});
        EXPECT_TRUE(r.ok) << e.name << ": " << r.summary;
      }
}

// Step 4 with three consumer warpgroups on 192 query rows (a candidate of its space, for head
// dimension 64), and the same in ping-pong, the three taking turns.
template <int PingPong> struct V4ThreeWarpgroups : examples::attention::AttentionV4Overlapped<f16> {
  V4ThreeWarpgroups() {
    block_m = 192;
    consumer_warpgroups = 3;
    ping_pong = PingPong;
  }
  static Space space() { return Space{}; }
};

// Without a mask, step 4's persistent blocks deal the key blocks of the tiles after the last full
// pass out as runs, and each tile's first run merges the others' partials. Six tiles of 4 key
// blocks on 4 multiprocessors leave two tiles in halves; on 5 one tile in four runs of one block,
// one range empty; five tiles of 5 key blocks on 3 multiprocessors give a range two runs, the
// end of one tile and the start of the next; with 192-row tiles, the fourth splits one tile of 4
// key blocks over 5 multiprocessors. In ping-pong each consumer group has its own flags.
TEST(AttentionLadder, V4SplitTailMergesEveryRunsPartialUnderEveryOrder) {
  const struct {
    std::vector<int64_t> size;
    int multiprocessors;
  } cases[] = {{{1, 2, 2, 300, 450, 64, 0}, 4},
               {{1, 2, 2, 300, 450, 64, 0}, 5},
               {{1, 5, 1, 100, 600, 128, 0}, 3},
               {{1, 2, 2, 450, 450, 64, 0}, 5}};
  const cli::KernelEntry& v4 = examples::find_example("attention_v4");
  const cli::KernelEntry ping_pong = examples::attention_example<V4PingPong<1, 128, 3, 0>, f16>("v4_ping_pong", "");
  const cli::KernelEntry three = examples::attention_example<V4ThreeWarpgroups<0>, f16>("v4_three_warpgroups", "");
  const cli::KernelEntry three_in_turn =
      examples::attention_example<V4ThreeWarpgroups<1>, f16>("v4_three_warpgroups_ping_pong", "");
  for (const auto& c : cases)
    for (sim::Options o : testing::every_order()) {
      o.multiprocessors = c.multiprocessors;
      for (const cli::KernelEntry* e : {&v4, &ping_pong, &three, &three_in_turn}) {
        const cli::RunResult r = e->run(Device::simulator(), c.size, KernelOptions{.sim = o});
        EXPECT_TRUE(r.ok) << e->name << " on " << c.multiprocessors << " multiprocessors: " << r.summary;
      }
    }
}

TEST(AttentionLadder, V5MatchesTheHostReferenceUnderEveryOrder) { expect_matches_under_every_order("attention_v5"); }
TEST(AttentionLadder, V5Bf16MatchesTheHostReferenceUnderEveryOrder) {
  expect_matches_under_every_order("attention_v5_bf16");
}

// Step 5 is a Blackwell kernel: NVRTC compiles it for sm_100a (no GPU needed), at both head
// dimensions.
TEST(AttentionLadder, Step5CompilesForSm100a) {
  for (const char* head_dim : {"64", "128"}) {
    const testing::Cli r =
        testing::tessel(std::string("compile attention_v5 1 16 16 1024 1024 ") + head_dim + " 1 --arch sm_100a");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("attention_v5 for sm_100a:"), std::string::npos) << r.output;
  }
}

TEST(AttentionLadder, CheckPassesForEveryStep) {
  for (const char* name :
       {"attention_v1", "attention_v1_bf16", "attention_v2", "attention_v2_bf16", "attention_v3", "attention_v3_bf16",
        "attention_v4 --all-candidates", "attention_v4_bf16", "attention_v5", "attention_v5_bf16"}) {
    const testing::Cli r = testing::tessel(std::string("check ") + name);
    EXPECT_EQ(r.status, 0) << r.output;
  }
}

// NVRTC compiles every candidate of step 4's space for the H200 (no GPU needed), with a mask and
// without (the split tail's partials and flags): the score tile of the loop body, out of scope
// after the loop, must not be named by the last wait's fences.
TEST(AttentionLadder, EveryCandidateOfStep4CompilesForTheH200) {
  for (const char* dim_and_mask : {"64 1", "128 1", "128 0"}) {
    const testing::Cli r =
        testing::tessel(std::string("space attention_v4 1 16 16 1024 1024 ") + dim_and_mask + " --gpu h200");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("18 feasible of 18 candidates on H200"), std::string::npos) << r.output;
  }
}

TEST(AttentionLadder, SizesBelowTheirSmallestAreRefused) {
  // causal takes 0; a head dimension below one mma step (16) is refused before anything is built.
  const testing::Cli r = testing::tessel("run attention_v1 1 2 2 64 64 8 0 --device sim");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "error: attention_v1: size head_dim = 8 is out of range\n");
}

}  // namespace
}  // namespace tessel
