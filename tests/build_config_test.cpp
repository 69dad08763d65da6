// `tessel ir`, `cuda` and `compile` with --config: they build the first candidate of those the
// configuration fixes, and refuse one that no candidate has with the space's values.
#include <gtest/gtest.h>

#include "cli.hpp"

namespace tessel {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(BuildConfig, CudaAndIrBuildTheCandidateTheConfigurationFixes) {
  const testing::Cli first = testing::tessel("cuda vector_add 1000");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_TRUE(contains(first.output, "__launch_bounds__(128)")) << first.output;
  EXPECT_TRUE(contains(first.output, "(int(blockIdx.x) * 2048)")) << first.output;

  const testing::Cli wide = testing::tessel("cuda vector_add 1000 --config \"block=4096, warps=8\"");
  ASSERT_EQ(wide.status, 0) << wide.output;
  EXPECT_TRUE(contains(wide.output, "__launch_bounds__(256)")) << wide.output;
  EXPECT_TRUE(contains(wide.output, "(int(blockIdx.x) * 4096)")) << wide.output;

  // Only warps fixed: the first candidate with 8 warps, block 2048.
  const testing::Cli ir = testing::tessel("ir vector_add 1000 --config \"warps=8\"");
  ASSERT_EQ(ir.status, 0) << ir.output;
  EXPECT_TRUE(contains(ir.output, "warps=8")) << ir.output;
  EXPECT_TRUE(contains(ir.output, "mul(blockIdx.x, 2048)")) << ir.output;
}

TEST(BuildConfig, AConfigurationNoCandidateHasIsRefused) {
  const testing::Cli r = testing::tessel("compile vector_add 1000 --config \"block=3000\"");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.output,
                       "kernel VectorAdd: configuration \"block=3000\": no candidate of the space has these "
                       "values (block takes 2048, 4096)"))
      << r.output;
}

}  // namespace
}  // namespace tessel
