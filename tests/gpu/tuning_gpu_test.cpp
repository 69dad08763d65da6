// Tuning on the GPU: the ladder's last step is tuned over its whole space with parallel
// compilation and gives the right answer; a later kernel object reuses the result without
// compiling; the timing runs leave the caller's buffers as they were.
#include <cstdlib>
#include <filesystem>

#include "examples.hpp"
#include "gpu_test.hpp"
#include "tessel/cli/host_check.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

class TuningOnGpu : public testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    dir_ = std::filesystem::temp_directory_path() / fmt::format("tessel-gpu-tuning-{}", getpid());
    std::filesystem::remove_all(dir_);
    setenv("TESSEL_CACHE_DIR", dir_.c_str(), 1);
    setenv("TESSEL_TUNE", "on", 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TuningOnGpu, TheLadderStepIsTunedOnceAndThenReused) {
  const cli::KernelEntry& e = examples::find_example("ampere_v5_swizzled");
  const Device gpu = Device::gpu();
  const cli::RunResult first = e.run(gpu, {1000, 1000, 512}, {});
  EXPECT_TRUE(first.ok) << first.summary;
  EXPECT_EQ(first.stats.selection, Selection::Tuned);
  EXPECT_GE(first.stats.candidates, 24);
  const cli::RunResult second = e.run(gpu, {1000, 1000, 512}, {});
  EXPECT_TRUE(second.ok) << second.summary;
  EXPECT_EQ(second.stats.selection, Selection::FromDatabase);
  EXPECT_TRUE(second.stats.from_cache);
  EXPECT_EQ(second.stats.hyperparameters, first.stats.hyperparameters);
}

// z += x in place, with a tuned block size: a timing run that leaked would add x again.
struct AccumulateInPlace : Script {
  int block = 128;
  static Space space() { return tune("block", &AccumulateInPlace::block, {128, 256, 512}); }
  void operator()(Int32 n, Ptr<float> x, Ptr<float> z) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = block / 32;
    const Layout one_per_thread = Layout::spatial({block});
    auto gz = global_view(z, {n});
    auto rx = load_global(global_view(x, {n}), {blockIdx.x * block}, {block}, one_per_thread);
    auto rz = load_global(gz, {blockIdx.x * block}, {block}, one_per_thread);
    store_global(gz, rz + rx, {blockIdx.x * block});
  }
};

TEST_F(TuningOnGpu, TimingRunsLeaveTheCallersBuffersUntouched) {
  const Device gpu = Device::gpu();
  const int n = 100000;
  const auto x = cli::random_vector<float>(n, 11), z = cli::random_vector<float>(n, 12);
  Buffer<float> dx(gpu, x), dz(gpu, z);
  Kernel<AccumulateInPlace> k(gpu);
  k(n, dx, dz);
  gpu.synchronize();
  EXPECT_EQ(k.stats().selection, Selection::Tuned);
  const std::vector<float> out = dz.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], z[i] + x[i]) << i;
}

}  // namespace
}  // namespace tessel
