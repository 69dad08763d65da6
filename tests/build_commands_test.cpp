// The commands that build a registered kernel (cuda, compile, aot) for a target it is not
// registered for: refused by name, before any tracing.
#include <gtest/gtest.h>

#include "cli.hpp"

namespace tessel::testing {
namespace {

TEST(BuildCommands, ATargetTheKernelIsNotRegisteredForIsRefusedByName) {
  const std::string refusal =
      "error: kernel hopper_v5 is registered for sm_90a only, not sm_80 (KernelInfo::targets)\n";
  for (const char* command : {"cuda hopper_v5 --arch sm_80", "compile hopper_v5 --arch sm_80",
                              "aot hopper_v5 --arch sm_80 --output /tmp/tessel-refused-target/k.hpp"}) {
    const Cli r = tessel(command);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.output, refusal) << command;
  }
}

}  // namespace
}  // namespace tessel::testing
