// The commands that build a registered kernel (cuda, compile, aot, run, check, and space for a GPU
// of another target) for a target it is not registered for: refused by name, before any tracing.
#include <filesystem>

#include <gtest/gtest.h>

#include "cli.hpp"

namespace tessel::testing {
namespace {

TEST(BuildCommands, ATargetTheKernelIsNotRegisteredForIsRefusedByName) {
  const std::string refusal =
      "error: kernel hopper_v5 is registered for sm_90a only, not sm_80 (KernelInfo::targets)\n";
  for (const char* command :
       {"cuda hopper_v5 --arch sm_80", "compile hopper_v5 --arch sm_80",
        "aot hopper_v5 --arch sm_80 --output /tmp/tessel-refused-target/k.hpp",
        "run hopper_v5 --device sim --arch sm_80", "check hopper_v5 --arch sm_80", "space hopper_v5 --gpu a100"}) {
    const Cli r = tessel(command);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.output, refusal) << command;
  }
}

// One header holds one launcher per kernel, named after it: a kernel exported twice is refused
// before anything is built or written.
TEST(BuildCommands, AKernelExportedTwiceIntoOneHeaderIsRefused) {
  const Cli r = tessel("aot vector_add:64 vector_add:3000 --output /tmp/tessel-exported-twice/k.hpp");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(r.output,
            "error: aot: vector_add is exported twice (vector_add:64 and vector_add:3000); a header holds one launcher "
            "per kernel, named after it: export the other into a header of its own\n");
}

// Two headers exported into one folder each keep their cubins beside them, named after the header.
TEST(BuildCommands, TwoHeadersInOneFolderKeepTheirOwnCubins) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "tessel-two-headers";
  std::filesystem::remove_all(folder);
  for (const std::string header : {"small", "large"}) {
    const Cli r = tessel(fmt::format("aot vector_add:{} --arch sm_80 --output {}/{}.hpp", header == "small" ? 64 : 3000,
                                     folder.string(), header));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("wrote {}/{}.vector_add.cubin", folder.string(), header)), std::string::npos)
        << r.output;
  }
  EXPECT_GT(std::filesystem::file_size(folder / "small.vector_add.cubin"), 0u);
  EXPECT_GT(std::filesystem::file_size(folder / "large.vector_add.cubin"), 0u);
  EXPECT_FALSE(std::filesystem::exists(folder / "vector_add.cubin"));
}

// run and check build the target asked for: the sm_80 code of a kernel registered for every target.
TEST(BuildCommands, RunAndCheckBuildTheTargetAskedFor) {
  const Cli run = tessel("run vector_add 3000 --device sim --arch sm_80 --verbose");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("  target: sm_80\n"), std::string::npos) << run.output;
  const Cli check = tessel("check vector_add 3000 --arch sm_80 --seeds 1");
  EXPECT_EQ(check.status, 0) << check.output;
}

// --verbose names a kernel with its configuration, and one without hyperparameters by its name alone.
TEST(BuildCommands, VerboseNamesAKernelWithItsConfigurationOrAlone) {
  const Cli configured = tessel("run vector_add 3000 --device sim --verbose");
  EXPECT_NE(configured.output.find("tessel: kernel VectorAdd [block=2048, warps=4] for sm_90a ("), std::string::npos)
      << configured.output;
  const Cli alone = tessel("run matmul_simt --device sim --verbose");
  EXPECT_NE(alone.output.find("tessel: kernel MatmulSimt for sm_90a ("), std::string::npos) << alone.output;
}

}  // namespace
}  // namespace tessel::testing
