// The command line's host checks (tessel/cli/host_check.hpp): what passes and what fails.
#include <cmath>

#include <gtest/gtest.h>

#include "tessel/cli/host_check.hpp"

namespace tessel::testing {
namespace {

TEST(HostCheck, NoToleranceTakesEqualValuesOnly) {
  const std::vector<float> want = {0.01116071455180645f, 0.0f, -3.0f, INFINITY};
  EXPECT_TRUE(cli::compare(want, want, 0, 0, "exact").ok) << cli::compare(want, want, 0, 0, "exact").summary;
  std::vector<float> off = want;
  off[2] = std::nextafter(-3.0f, 0.0f);
  const cli::RunResult r = cli::compare(off, want, 0, 0, "exact");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.summary.substr(0, 46), "exact: FAIL (4 elements; worst element 2: got ");
  off[2] = NAN;
  EXPECT_FALSE(cli::compare(off, want, 1, 1, "nan").ok);
}

TEST(HostCheck, ATolerancePassesWhatItBounds) {
  const std::vector<float> want = {1.0f, -2.0f}, got = {1.25f, -2.5f};
  EXPECT_TRUE(cli::compare(got, want, 0.25, 0.125, "within").ok);
  EXPECT_FALSE(cli::compare(got, want, 0.2, 0.1, "outside").ok);
}

// 2^24 + 1 rounds to the float 2^24: compare_exact tells the two apart, compare cannot.
TEST(HostCheck, IntegersCompareExactlyAndTheFirstDifferenceIsNamed) {
  const std::vector<int32_t> want = {16777217, -5, 7, 9};
  EXPECT_TRUE(cli::compare_exact(want, want, "ints").ok);
  std::vector<int32_t> got = want;
  got[0] = 16777216;
  EXPECT_TRUE(cli::compare(got, std::vector<float>(want.begin(), want.end()), 0, 0, "as floats").ok);
  got[3] = 8;
  const cli::RunResult r = cli::compare_exact(got, want, "ints");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.summary, "ints: FAIL (4 elements, 2 differ; first element 0: got 16777216, want 16777217)");
  EXPECT_FALSE(cli::compare_exact(std::vector<int32_t>{1}, want, "short").ok);
}

}  // namespace
}  // namespace tessel::testing
