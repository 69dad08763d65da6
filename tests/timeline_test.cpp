// The simulator's timeline (sim::Options::trace_file, TESSEL_TRACE): a Chrome trace of each
// warp's thread groups and waits, each block's mbarrier phases and its agents' work, also written
// when a run ends in an error.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "expect_error.hpp"
#include "tcgen05_kernels.hpp"
#include "timeline_kernels.hpp"

namespace tessel::testing {
namespace {

nlohmann::json read_trace(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

// The events of `trace` of phase `ph` whose `key` contains `text`.
std::vector<nlohmann::json> events(const nlohmann::json& trace, const std::string& ph, const std::string& key,
                                   const std::string& text) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != ph) continue;
    const nlohmann::json& field = key == "detail" ? e["args"]["detail"] : e[key];
    if (field.is_string() && field.get<std::string>().find(text) != std::string::npos) out.push_back(e);
  }
  return out;
}

TEST(Timeline, ShowsRolesWaitsPhasesAndAgentsOfAPipelinedKernel) {
  const std::string path = (std::filesystem::temp_directory_path() / "tessel_timeline_test.json").string();
  std::filesystem::remove(path);
  KernelOptions options{.arch = "sm_100a"};
  options.sim.trace_file = path;
  check_tcgen05_matmul<Tcgen05WarpSpecialized<f16, 128, 128, 64, 4, 32>, f16>(options, 128, 128, 512);
  const nlohmann::json trace = read_trace(path);
  EXPECT_EQ(trace["otherData"]["kernel"], "Tcgen05WarpSpecialized_f16_128_128_64_4_32");
  EXPECT_FALSE(events(trace, "M", "name", "process_name").empty());
  // The TMA warp and the MMA warp run in their own thread groups and wait on the pipeline's
  // barriers; the barriers complete phases; the TMA engine and the tensor core have work in flight.
  EXPECT_FALSE(events(trace, "X", "name", "threads 0..31").empty());
  EXPECT_FALSE(events(trace, "X", "name", "threads 32..63").empty());
  EXPECT_FALSE(events(trace, "X", "name", "mbarrier.wait").empty());
  EXPECT_FALSE(events(trace, "i", "name", "full_barriers of the Pipeline").empty());
  EXPECT_FALSE(events(trace, "X", "detail", "the tensor core").empty());
  EXPECT_FALSE(events(trace, "X", "detail", "the TMA engine").empty());
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "X") EXPECT_GE(e["dur"].get<int64_t>(), 1) << e;
}

// Warps 2 and 3 skip the sync() that warps 0 and 1 wait at.
struct HalfTheWarpsSync : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    Int32 waits = 0;
    thread_group(0, 64, [&] { waits = 1; });
    if_(waits == 1, [&] { sync(); });
    store_global(global_view(x, {128}), register_tensor<float>({128}, 1.0f), {0});
  }
};

TEST(Timeline, IsWrittenWhenTheRunEndsInADeadlock) {
  const std::string path = (std::filesystem::temp_directory_path() / "tessel_timeline_deadlock.json").string();
  std::filesystem::remove(path);
  KernelOptions options;
  options.sim.trace_file = path;
  Buffer<float> x(Device::simulator(), 128);
  const std::string error = error_of_call([&] { Kernel<HalfTheWarpsSync>(Device::simulator(), options)(x); });
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  const nlohmann::json trace = read_trace(path);
  const std::vector<nlohmann::json> waits = events(trace, "X", "name", "sync()");
  ASSERT_EQ(waits.size(), 2u) << trace.dump(1);
  for (const nlohmann::json& w : waits) {
    EXPECT_LT(w["tid"].get<int>(), 2);
    EXPECT_NE(w["args"]["detail"].get<std::string>().find("waiting at sync() at"), std::string::npos);
  }
}

TEST(Timeline, ShowsTheUsersRegionsOnEachWarp) {
  const std::string path = (std::filesystem::temp_directory_path() / "tessel_timeline_regions.json").string();
  std::filesystem::remove(path);
  KernelOptions options;
  options.sim.trace_file = path;
  Buffer<float> x(Device::simulator(), std::vector<float>(128, 1.5f));
  Kernel<MarksRegions<2, 2, 64>>(Device::simulator(), options)(x);
  EXPECT_EQ(x.download(), std::vector<float>(128, 2.5f));
  const nlohmann::json trace = read_trace(path);
  for (const char* region : {"load", "store"}) {
    const std::vector<nlohmann::json> spans = events(trace, "X", "name", region);
    EXPECT_EQ(spans.size(), 4u) << region << ": 2 blocks of 2 warps\n" << trace.dump(1);
    for (const nlohmann::json& e : spans) EXPECT_EQ(e["args"]["detail"], "trace_region");
  }
  const std::string cuda =
      Kernel<MarksRegions<2, 2, 64>>(Device::simulator(), KernelOptions{"sm_90a"}).cuda_source((float*)nullptr);
  EXPECT_NE(cuda.find("mov.u64 %0, %%globaltimer;"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("// trace_region \"store\" ends"), std::string::npos) << cuda;
}

}  // namespace
}  // namespace tessel::testing
