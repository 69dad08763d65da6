// A TMA load of elements of the tensor that no wait ever saw land is an error at its line when
// the block ends: a consumer loop that ends a step before its producer's leaves the last stage
// loaded and unread, and the result is wrong without any race. (Loads wholly outside the tensor,
// such as seed V2's prefetches past K, are a warning: blackwell_ladder_test.cpp.)
#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

int tma_line = 0, bars_line = 0;

// One thread loads four 8 x 32 tiles, each onto its own barrier; the warp waits for the first
// `Consumed` of them and writes their sum.
template <int Consumed> struct SumsTheStagesItWaitsFor : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto g_in = global_view(in, {32, 32});
    auto stages = shared_tensor<float>({4, 8, 32});
    bars_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1, 1, 1, 1});
    single_thread([&] {
      for (int i = 0; i < 4; ++i) {
        mbarrier.arrive_and_expect_tx(bars[i], stages[i].nbytes());
        tma_line = __LINE__ + 1;
        tma.global_to_shared(g_in, stages[i], {i * 8, 0}, bars[i]);
      }
    });
    auto sum = register_tensor<float>({8, 32}, 0.0f);
    for (int i = 0; i < Consumed; ++i) {
      mbarrier.wait(bars[i], 0u);
      sum = sum + load_shared(stages[i]);
    }
    store_global(global_view(out, {8, 32}), sum, {0, 0});
  }
};

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(UnreadLoads, ALoadOfTheTensorThatNoWaitSawLandIsReportedAtItsLine) {
  const std::vector<float> in = random_floats(32 * 32);
  Buffer<float> d_in(Device::simulator(), in), out(Device::simulator(), std::vector<float>(8 * 32));
  for (const sim::Options& o : every_order()) {
    const std::string got = simulation_error<SumsTheStagesItWaitsFor<3>>(o, d_in, out);
    EXPECT_EQ(got,
              fmt::format("{0}:{1}: tma.global_to_shared: this load of elements of the tensor by block (0, 0, 0) was "
                          "never waited for: no wait saw phase 0 of barrier 3 of the array allocated at {0}:{2} "
                          "complete before the block ended, so nothing read what it loaded (does a consumer loop end "
                          "a step before its producer's?)",
                          __FILE__, tma_line, bars_line));
  }

  std::vector<float> want(8 * 32, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (size_t e = 0; e < want.size(); ++e) want[e] += in[size_t(i) * 8 * 32 + e];
  for (const sim::Options& o : every_order()) {
    Buffer<float> result(Device::simulator(), std::vector<float>(8 * 32, -1.0f));
    simulate<SumsTheStagesItWaitsFor<4>>(o, d_in, result);
    const std::vector<float> got = result.download();
    for (size_t e = 0; e < want.size(); ++e) EXPECT_NEAR(got[e], want[e], 1e-4f) << e;
  }
}

}  // namespace
}  // namespace tessel::testing
