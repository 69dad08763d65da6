// The GPU half of a kernel's timeline: with TESSEL_TRACE set, a launch of a kernel with
// trace_region marks writes the regions of each warp, timed by the global timer; skipped, visibly,
// without a GPU.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../timeline_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using TimelineOnGpu = GpuTest;

TEST_F(TimelineOnGpu, EachWarpsRegionsAreTimedByTheGlobalTimer) {
  const std::string path = (std::filesystem::temp_directory_path() / "tessel_gpu_timeline.json").string();
  std::filesystem::remove(path);
  Buffer<float> x(Device::gpu(), std::vector<float>(2048, 2.0f));
  Kernel<MarksRegions<4, 4, 512>> kernel(Device::gpu());
  setenv("TESSEL_TRACE", path.c_str(), 1);
  kernel(x);
  unsetenv("TESSEL_TRACE");
  EXPECT_EQ(x.download(), std::vector<float>(2048, 3.0f));
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const nlohmann::json trace = nlohmann::json::parse(in);
  EXPECT_EQ(trace["otherData"]["records"], 64) << "16 warps, 2 regions, a begin and an end each";
  int load = 0, store = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
    load += e["name"] == "load";
    store += e["name"] == "store";
  }
  EXPECT_EQ(load, 16);
  EXPECT_EQ(store, 16);
  kernel(x);  // without TESSEL_TRACE the marks record nothing and the file stays as it was
  EXPECT_EQ(x.download(), std::vector<float>(2048, 4.0f));
}

}  // namespace
}  // namespace tessel::testing
