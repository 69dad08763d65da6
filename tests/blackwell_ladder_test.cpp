// The Blackwell seed kernels on the simulator (as sm_100a kernels): every version against the
// host reference at a square size and at sizes that are not tile multiples, under every
// completion order; every candidate of the seeds' spaces; the seed's V0 without its proxy fence;
// the warning for V2's loads past K; their sm_100a compiles; and the refusal to compile them for
// sm_90a.
#include <fstream>

#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/cli/host_check.hpp"

namespace tessel {
namespace {

// 256 x 256 x 512 is square and a tile multiple (the seeds time 8192 x 8192 x 8192, too large
// for the simulator); 200 x 136 x 296 masks rows, columns and k in every tile; 136 x 600 x 40 has
// fewer k-tiles than V2's prefill and a last group of rasterized tiles narrower than swizzle_size.
const std::vector<std::vector<int64_t>> sizes = {{256, 256, 512}, {200, 136, 296}, {136, 600, 40}};

void expect_matches_under_every_order(const char* name) {
  for (const std::vector<int64_t>& size : sizes)
    for (const sim::Options& o : testing::every_order()) {
      const cli::RunResult r = examples::find_example(name).run(Device::simulator(), size, KernelOptions{.sim = o});
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

// Every candidate of a seed kernel's space, each under one of the schedules in turn, at the
// examples' default size: 136 x 2104 x 72 gives 33, 17 and 9 column tiles for block_n 64, 128 and
// 256, so swizzle groups of 4 and 8 occur with a narrower last group after them, and 5, 3 and 2
// k-tiles for block_k 16, 32 and 64, so rings of stages wrap (at block_k 16 for every stage count).
void expect_every_candidate_matches(const char* name) {
  const cli::KernelEntry& e = examples::find_example(name);
  const std::vector<sim::Options> schedules = testing::every_order();
  const std::vector<std::string> configurations = e.configurations();
  for (size_t i = 0; i < configurations.size(); ++i) {
    const sim::Options& schedule = schedules[i % schedules.size()];
    const cli::RunResult r =
        e.run(Device::simulator(), e.default_sizes, KernelOptions{.sim = schedule, .configuration = configurations[i]});
    EXPECT_TRUE(r.ok) << name << " [" << configurations[i] << "], " << sim::schedule_name(schedule) << ": "
                      << r.summary;
  }
}

TEST(BlackwellLadder, EveryCandidateOfSeedV0MatchesTheHostReference) {
  EXPECT_EQ(examples::find_example("blackwell_v0").configurations().size(), 9u);
  expect_every_candidate_matches("blackwell_v0");
}
TEST(BlackwellLadder, EveryCandidateOfSeedV2MatchesTheHostReference) {
  EXPECT_EQ(examples::find_example("blackwell_v2").configurations().size(), 27u);
  expect_every_candidate_matches("blackwell_v2");
}
TEST(BlackwellLadder, EveryCandidateOfSeedV4MatchesTheHostReference) {
  EXPECT_EQ(examples::find_example("blackwell_v4").configurations().size(), 81u);
  expect_every_candidate_matches("blackwell_v4");
}

// The line of `examples/matmul_blackwell/<file>` that holds `statement`.
int example_line(const std::string& file, const std::string& statement) {
  return testing::line_of("examples/matmul_blackwell/" + file, statement);
}

std::vector<sim::Warning> warnings_of(const char* name, const std::vector<int64_t>& size) {
  std::vector<sim::Warning> warnings;
  sim::Options o;
  o.on_warning = [&](const sim::Warning& w) { warnings.push_back(w); };
  const cli::RunResult r = examples::find_example(name).run(Device::simulator(), size, KernelOptions{.sim = o});
  EXPECT_TRUE(r.ok) << r.summary;
  return warnings;
}

// V2 preloads in every iteration, the last stages - 1 past K; nothing waits for those, so the
// block may exit while they land. The seed does it on purpose: a warning at each load's line.
TEST(BlackwellLadder, SeedV2sPreloadsPastKAreAWarningAtTheirLines) {
  const std::vector<sim::Warning> warnings = warnings_of("blackwell_v2", {256, 256, 512});
  ASSERT_EQ(warnings.size(), 2u);
  const char* statements[] = {"tma.global_to_shared(g_a, s_a[preload_stage]",
                              "tma.global_to_shared(g_b, s_b[preload_stage]"};
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(warnings[i].at.line, example_line("v2_multistage.hpp", statements[i]));
    EXPECT_TRUE(warnings[i].at.file.ends_with("examples/matmul_blackwell/v2_multistage.hpp")) << warnings[i].at.file;
    // 8 blocks, each with stages - 1 = 1 load of A and one of B past K
    EXPECT_EQ(warnings[i].message,
              "tma.global_to_shared: 8 loads issued here (the first by block (0, 0, 0)) were never waited for: no "
              "wait saw their mbarrier phase complete before the block ended, and on a GPU a load may still write "
              "the block's shared memory after the block has exited");
  }
  // V4's producer loads only k-tiles that its consumer waits for.
  EXPECT_TRUE(warnings_of("blackwell_v4", {256, 256, 512}).empty());
}

TEST(BlackwellLadder, TheWarningIsPrintedWithItsLineByTheCommand) {
  const testing::Cli r = testing::tessel(
      "run blackwell_v2 256 256 512 --config \"stages=3, block_k=64, "
      "block_n=128\" --order eager");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(
      r.output.find(fmt::format("v2_multistage.hpp:{}: warning: tma.global_to_shared: 8 loads issued here",
                                example_line("v2_multistage.hpp", "tma.global_to_shared(g_a, s_a[preload_stage]"))),
      std::string::npos)
      << r.output;
}

// Seed 002's V0 exactly as the seed writes it: no proxy fence between the cp.async writes (generic
// proxy) and the tcgen05.mma that reads them (async proxy).
struct SeedV0WithoutTheFence : Script {
  int block_m = 128, block_n = 64, block_k = 16;
  static inline int mma_line = 0, copy_line = 0, alloc_line = 0;

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;
    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    alloc_line = __LINE__ + 1;
    auto s_a = shared_tensor<f16>({block_m, block_k});
    auto s_b = shared_tensor<f16>({block_n, block_k});
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});
    auto mbarriers = mbarrier.alloc({1});
    UInt32 phase = 0u;
    sync();
    for (Int32 offset_k : range(0, k_size, block_k)) {
      copy_line = __LINE__ + 1;
      copy_async(g_a, s_a, {offset_m, offset_k});
      copy_async(g_b, s_b, {offset_n, offset_k});
      copy_async_wait_all();
      sync();
      single_warp([&] {
        mma_line = __LINE__ + 1;
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);
        tcgen05.commit(mbarriers[0]);
        mbarrier.wait(mbarriers[0], phase);
      });
      sync();
      phase ^= 1u;
    }
    auto r_acc = tcgen05.load(t_acc);
    auto g_c = global_view(c_ptr, {m_size, n_size});
    store_global(g_c, r_acc.to<f16>(), {offset_m, offset_n});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

TEST(BlackwellLadder, TheSeedsV0WithoutItsProxyFenceIsReportedAtTheMma) {
  const int m = 128, n = 64, k = 32;
  Buffer<f16> a(Device::simulator(), cli::random_vector<f16>(size_t(m) * k, 1));
  Buffer<f16> b(Device::simulator(), cli::random_vector<f16>(size_t(n) * k, 2));
  Buffer<f16> c(Device::simulator(), cli::poisoned<f16>(size_t(m) * n));
  for (const sim::Options& o : testing::every_order()) {
    const std::string got = testing::error_of_call([&] {
      Kernel<SeedV0WithoutTheFence>(Device::simulator(), KernelOptions{.arch = "sm_100a", .sim = o})(m, n, k, a, b, c);
    });
    EXPECT_EQ(got,
              fmt::format("{0}:{1}: shared memory allocated at {0}:{2}, byte 0 of the allocation, in block "
                          "(0, 0, 0): the tcgen05.mma at {0}:{1} by warp 0 of block (0, 0, 0) reads through the "
                          "async proxy what the copy_async at {0}:{3}, in group 0 of the cp.async groups of warp 0 "
                          "of block (0, 0, 0) wrote through the generic proxy, and no fence.proxy_async() (or "
                          "ProxySpace::all) lies between them; call it after the writes, in the threads that wrote, "
                          "before the sync(), arrival or release that hands the memory over (or in the reading "
                          "thread, after what orders the writes before it)",
                          __FILE__, SeedV0WithoutTheFence::mma_line, SeedV0WithoutTheFence::alloc_line,
                          SeedV0WithoutTheFence::copy_line))
        << sim::schedule_name(o);
  }
}

// Seed 004's V1 loop with its waits as the seed writes them, relaxed: the wait sees the TMA bytes
// complete the phase but orders nothing, so the mma after it reads tiles it is not ordered after.
struct SeedV1WithItsRelaxedWaits : Script {
  int block_m = 128, block_n = 64, block_k = 16;
  static inline int mma_line = 0, load_line = 0, alloc_line = 0, wait_line = 0, barrier_line = 0;

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<f16> a_ptr, Ptr<f16> b_ptr, Ptr<f16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;
    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    alloc_line = __LINE__ + 1;
    auto s_a = shared_tensor<f16>({block_m, block_k});
    auto s_b = shared_tensor<f16>({block_n, block_k});
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});
    barrier_line = __LINE__ + 1;
    auto tma_barrier = mbarrier.alloc({1});
    auto mma_barrier = mbarrier.alloc({1});
    UInt32 tma_phase = 0u;
    UInt32 mma_phase = 0u;
    sync();
    for (Int32 offset_k : range(0, k_size, block_k)) {
      single_warp([&] {
        single_thread([&] { mbarrier.arrive_and_expect_tx(tma_barrier[0], s_a.nbytes() + s_b.nbytes()); });
        load_line = __LINE__ + 1;
        tma.global_to_shared(g_a, s_a, {offset_m, offset_k}, tma_barrier[0]);
        tma.global_to_shared(g_b, s_b, {offset_n, offset_k}, tma_barrier[0]);
        wait_line = __LINE__ + 1;
        mbarrier.wait(tma_barrier[0], tma_phase, WaitSemantics::relaxed, WaitScope::cta);
        mma_line = __LINE__ + 1;
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);
        tcgen05.commit(mma_barrier[0]);
        mbarrier.wait(mma_barrier[0], mma_phase, WaitSemantics::relaxed, WaitScope::cta);
      });
      tma_phase ^= 1u;
      mma_phase ^= 1u;
      sync();
    }
    auto r_acc = tcgen05.load(t_acc);
    store_global(global_view(c_ptr, {m_size, n_size}), r_acc.to<f16>(), {offset_m, offset_n});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

TEST(BlackwellLadder, TheSeedsRelaxedWaitsAreReportedAtTheMma) {
  const int m = 128, n = 64, k = 32;
  Buffer<f16> a(Device::simulator(), cli::random_vector<f16>(size_t(m) * k, 1));
  Buffer<f16> b(Device::simulator(), cli::random_vector<f16>(size_t(n) * k, 2));
  Buffer<f16> c(Device::simulator(), cli::poisoned<f16>(size_t(m) * n));
  using S = SeedV1WithItsRelaxedWaits;
  for (const sim::Options& o : testing::every_order()) {
    const std::string got = testing::error_of_call(
        [&] { Kernel<S>(Device::simulator(), KernelOptions{.arch = "sm_100a", .sim = o})(m, n, k, a, b, c); });
    EXPECT_EQ(got, fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the "
                               "allocation, in block (0, 0, 0): the tcgen05.mma at {0}:{1} by warp 0 of block (0, 0, "
                               "0) is not ordered after the tma.global_to_shared at {0}:{3}, landed in phase 0 of "
                               "barrier 0 of the array allocated at {0}:{4} in block (0, 0, 0); the mbarrier wait at "
                               "{0}:{5} saw the phase that publishes it, but a relaxed wait orders no memory: wait "
                               "with WaitSemantics::acquire",
                               __FILE__, S::mma_line, S::alloc_line, S::load_line, S::barrier_line, S::wait_line))
        << sim::schedule_name(o);
  }
}

// V5's blocks cancel the launch of blocks that have not started: with 1 resident block it computes
// every tile, with 3 the blocks share them, and with every block resident no request succeeds.
TEST(BlackwellLadder, V5MatchesTheHostReferenceWithOneThreeAndAllBlocksResident) {
  for (int resident : {1, 3, 64})
    for (sim::Options o : testing::every_order()) {
      o.resident_clusters = resident;
      const cli::RunResult r =
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
      const cli::RunResult r =
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
    EXPECT_EQ(
        hopper.output,
        fmt::format("error: kernel {} is registered for sm_100a only, not sm_90a (KernelInfo::targets)\n", version));
  }
}

}  // namespace
}  // namespace tessel
