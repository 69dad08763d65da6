// `tessel space`: every candidate of an example's space built for a GPU that is not here, with the
// exact reason each dropped candidate gives, and the exit status.

#include <functional>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "matmul_ampere/v5_swizzled.hpp"
#include "matmul_blackwell/v0_tcgen05.hpp"
#include "matmul_blackwell/v2_multistage.hpp"
#include "matmul_blackwell/v4_pipeline_class.hpp"
#include "matmul_hopper/v5_persistent.hpp"
#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel {
namespace {

using testing::Cli;
using testing::tessel;

// The table row of a candidate: its hyperparameters, then the columns.
std::string row_of(const std::string& output, const std::string& hyperparameters) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(hyperparameters + " ")) return line;
  return "no row for [" + hyperparameters + "]";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Calls `each` with every candidate's hyperparameters and a script with them set (scripts are
// not copied: their instruction groups know the script they belong to).
template <class S> size_t for_each_candidate(const std::function<void(const std::string&, const S&)>& each) {
  const Space space = S::space();
  for (const Space::Candidate& c : space.candidates()) {
    S script;
    for (const Space::Setting& s : c) s.apply(&script);
    each(Space::describe(c), script);
  }
  return space.size();
}

using HopperV5 = examples::hopper::MatmulV5Persistent<f16>;
using AmpereV5 = examples::ampere::MatmulV5Swizzled<f16>;

TEST(SpaceCommand, EveryCandidateOfHopperStep5FitsAnH200) {
  const Cli r = tessel("space hopper_v5 --gpu h200");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "hopper_v5 at m=200 n=136 k=96 on H200 SXM 141GB (sm_90a; 232448 bytes of shared "
                       "memory and 65536 registers per block)"))
      << r.output;
  // threads (two or three warpgroups), shared bytes, registers from ptxas, spill bytes, verdict
  const std::regex feasible(R"(\s+(256|384)\s+\d+\s+[1-9]\d*\s+\d+\s+feasible.*)");
  const size_t candidates = for_each_candidate<HopperV5>([&](const std::string& hyperparameters, const HopperV5&) {
    const std::string row = row_of(r.output, hyperparameters);
    EXPECT_TRUE(std::regex_match(row.substr(std::min(row.size(), hyperparameters.size())), feasible)) << row;
  });
  EXPECT_EQ(candidates, 27u);
  EXPECT_TRUE(contains(r.output, "\n27 feasible of 27 candidates on H200\n")) << r.output;
}

// An opt-in hyperparameter is listed with its values, which `tessel space` prints above its table:
// tuning never tries them, so the table's candidates do not show them.
TEST(SpaceCommand, OptInsAreListedWithTheirValues) {
  EXPECT_EQ(examples::find_example("weight_only_gemm_wgmma_i4").opt_ins(),
            std::vector<std::string>{"early_weights: 0, 1"});
  EXPECT_TRUE(examples::find_example("hopper_v5").opt_ins().empty());
}

// A GPU of a target the kernel is not registered for (KernelInfo::targets) is refused by name, as
// the commands that build refuse the target.
TEST(SpaceCommand, AGpuOfATargetHopperStep5LacksIsRefusedByName) {
  const Cli r = tessel("space hopper_v5 --gpu b200");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(r.output, "error: kernel hopper_v5 is registered for sm_90a only, not sm_100a (KernelInfo::targets)\n");
}

// Ampere step 5 keeps `stages` A and B tiles of f16 in shared memory: (block_m + block_n) x block_k
// elements per stage. The candidates over the A100's opt-in limit fail to lower; every other one
// fits, and with TESSEL_FAIL_ON_SPILL=1 the ones whose registers spill are dropped too.
TEST(SpaceCommandSweep, AmpereStep5CandidatesOverTheA100sSharedMemoryAreDroppedWithBothNumbers) {
  const Cli r = tessel("space ampere_v5_swizzled --gpu a100");
  EXPECT_EQ(r.status, 0) << r.output;
  const int64_t limit = analysis::gpu_spec("a100").shared_per_block_optin;
  size_t over = 0;
  std::vector<std::string> spilling;
  const size_t candidates = for_each_candidate<AmpereV5>([&](const std::string& hyperparameters, const AmpereV5& s) {
    const int64_t shared = int64_t(s.block_m + s.block_n) * s.block_k * 2 * s.stages;
    const std::string row = row_of(r.output, hyperparameters);
    if (shared > limit) {
      ++over;
      EXPECT_TRUE(contains(row, "  dropped: ")) << row;
      EXPECT_TRUE(contains(row, "v5_swizzled.hpp:")) << row;
      EXPECT_TRUE(
          contains(row, fmt::format(": kernel MatmulV5Swizzled_f16_f16 needs {} bytes of shared memory per block, "
                                    "more than the {} bytes sm_80 allows: ",
                                    shared, limit)))
          << row;
    } else {
      EXPECT_TRUE(contains(row, fmt::format(" {}  ", shared))) << row;
      EXPECT_TRUE(contains(row, "  feasible")) << row;
      if (contains(row, "feasible; registers spill (")) spilling.push_back(hyperparameters);
    }
  });
  EXPECT_GT(over, 0u);
  EXPECT_TRUE(
      contains(r.output, fmt::format("\n{} feasible of {} candidates on A100\n", candidates - over, candidates)))
      << r.output;

  const Cli no_spills = tessel("space ampere_v5_swizzled --gpu a100", "TESSEL_FAIL_ON_SPILL=1");
  for (const std::string& hyperparameters : spilling) {
    const std::string row = row_of(no_spills.output, hyperparameters);
    EXPECT_TRUE(std::regex_search(row, std::regex(R"(dropped: registers spill \(\d+ bytes spill stores, \d+ bytes )"
                                                  R"(spill loads\) and TESSEL_FAIL_ON_SPILL=1$)")))
        << row;
  }
  EXPECT_TRUE(contains(no_spills.output, fmt::format("\n{} feasible of {} candidates on A100\n",
                                                     candidates - over - spilling.size(), candidates)))
      << no_spills.output;
}

// The seeds' Blackwell spaces, built for a B200: every candidate lowers for sm_100a, compiles, and
// fits; its shared memory is its stages of A and B (and V2's and V4's epilogue tile) and less than
// 1 KiB of barriers and alignment.
template <class S> void expect_every_candidate_fits_a_b200(const std::string& example, int stages_of(const S&)) {
  const Cli r = tessel("space " + example + " --gpu b200");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, example + " at m=136 n=2104 k=72 on B200 HGX 180GB (sm_100a; 232448 bytes of shared "
                                           "memory and 65536 registers per block)"))
      << r.output;
  const std::regex columns(R"(\s+128\s+(\d+)\s+[1-9]\d*\s+\d+\s+feasible.*)");
  const size_t candidates = for_each_candidate<S>([&](const std::string& hyperparameters, const S& s) {
    const std::string row = row_of(r.output, hyperparameters);
    std::smatch m;
    const std::string rest = row.substr(std::min(row.size(), hyperparameters.size()));
    ASSERT_TRUE(std::regex_match(rest, m, columns)) << row;
    int64_t tiles = int64_t(s.block_m + s.block_n) * s.block_k * 2 * stages_of(s);
    if constexpr (requires { s.e_block_n; }) tiles += int64_t(s.block_m) * s.e_block_n * 2;
    const int64_t shared = std::stoll(m[1]);
    EXPECT_GE(shared, tiles) << row;
    EXPECT_LT(shared, tiles + 1024) << row;
  });
  EXPECT_TRUE(contains(r.output, fmt::format("\n{0} feasible of {0} candidates on B200\n", candidates))) << r.output;
}

TEST(SpaceCommandSweep, EveryCandidateOfTheSeedKernelsFitsAB200) {
  using namespace examples::blackwell;
  expect_every_candidate_fits_a_b200<BlackwellMatmulV0>("blackwell_v0", [](const BlackwellMatmulV0&) { return 1; });
  expect_every_candidate_fits_a_b200<BlackwellMatmulV2>("blackwell_v2",
                                                        [](const BlackwellMatmulV2& s) { return s.stages; });
  expect_every_candidate_fits_a_b200<BlackwellMatmulV4>("blackwell_v4",
                                                        [](const BlackwellMatmulV4& s) { return s.stages; });
}

TEST(SpaceCommand, WithoutAGpuHereTheDefaultIsTheH200) {
  if (runtime::CudaDriver::get().available()) GTEST_SKIP() << "a GPU is attached: it is the default";
  const Cli r = tessel("space hopper_v5");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "on H200 SXM 141GB (sm_90a;")) << r.output;
}

TEST(SpaceCommand, MistakesAreOneLineErrors) {
  const Cli gpu = tessel("space hopper_v5 --gpu z100");
  EXPECT_EQ(gpu.status, 2);
  EXPECT_EQ(gpu.output, "error: unknown GPU 'z100' (known: a100, h100, h200, b200)\n");
  const Cli sizes = tessel("space hopper_v5 256 256");
  EXPECT_EQ(sizes.status, 2);
  EXPECT_EQ(sizes.output, "error: hopper_v5 takes 3 sizes (m, n, k), 2 given\n");
}

}  // namespace
}  // namespace tessel
