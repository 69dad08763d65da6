// Tuning on the GPU: the ladder's last step is tuned over its whole space with parallel
// compilation and gives the right answer; a later kernel object reuses the result without
// compiling; the timing runs leave the caller's buffers as they were; a candidate that never
// finishes or faults stops the tuning with an error that names it, in a process that can still end.
#include <cstdlib>
#include <filesystem>

#include "../pointer_table_kernels.hpp"
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

// Tuning would run the kernel on the vector many times and could not put it back: refused, and a
// chosen configuration runs once.
TEST_F(TuningOnGpu, AKernelThatWritesThroughATableOfPointersIsNotTimed) {
  const Device gpu = Device::gpu();
  const int n = 4096;
  const auto values = cli::random_vector<float>(n, 31);
  Buffer<float> vector(gpu, values);
  Buffer<uint64_t> table(gpu, std::vector<uint64_t>{reinterpret_cast<uintptr_t>(vector.data())});
  std::string error = "no error";
  try {
    Kernel<testing::IncrementsThroughATable> tuned(gpu);
    tuned(n, table);
  } catch (const Error& e) {
    error = e.message();
  }
  EXPECT_NE(error.find(fmt::format("tuning runs each candidate many times, and this kernel writes through a pointer "
                                   "it reads from memory (made at {}), whose buffer tuning cannot put back "
                                   "afterwards; choose its configuration (KernelOptions::configuration), or set "
                                   "TESSEL_TUNE=off to run its first feasible candidate",
                                   testing::pointer_table_kernels_line(testing::IncrementsThroughATable::made_line))),
            std::string::npos)
      << error;
  EXPECT_EQ(vector.download(), values);
  Kernel<testing::IncrementsThroughATable> configured(gpu, KernelOptions{.configuration = "block=256"});
  configured(n, table);
  const auto got = vector.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[size_t(i)], values[size_t(i)] + 1.0f) << i;
}

// Under parity 1, the second warp waits for a phase of the barrier that never completes.
struct WaitsForItsPhase : Script {
  int parity = 0;
  static Space space() { return tune("parity", &WaitsForItsPhase::parity, {0, 1}); }
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto bars = mbarrier.alloc({1});
    thread_group(0, 32, [&] { single_thread([&] { mbarrier.arrive(bars[0]); }); });
    thread_group(32, 32, [&] {
      mbarrier.wait(bars[0], parity);
      store_global(global_view(out, {32}), register_tensor<float>({32}, 1.0f), {0});
    });
  }
};

// Under far = 1, stores 32 values at element n - 32 of its view, however small its buffer.
struct StoresFarPastItsBuffer : Script {
  int far = 0;
  static Space space() { return tune("far", &StoresFarPastItsBuffer::far, {0, 1}); }
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 at = 0;
    if (far) at = n - 32;
    store_global(global_view(out, {n}), register_tensor<float>({32}, 1.0f), {at});
  }
};

TEST_F(TuningOnGpu, ACandidateThatNeverFinishesStopsTheTuningNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(testing::run_and_exit([] {
                setenv("TESSEL_RUN_TIME_LIMIT", "2", 1);
                const Device gpu = Device::gpu();
                Buffer<float> out(gpu, std::vector<float>(32, 0.0f));
                Kernel<WaitsForItsPhase> k(gpu);
                k(out);
              }),
              ::testing::ExitedWithCode(3),
              testing::contains_in_order(
                  {"error: tuning WaitsForItsPhase",
                   " stopped: candidate [parity=1] failed on the GPU (the warm-up runs "
                   "did not finish within 2 s: a deadlock, or a run longer than TESSEL_RUN_TIME_LIMIT allows), which "
                   "can run nothing more in this process; run the candidate on the simulator or in debug mode "
                   "(TESSEL_DEBUG=1), which name the line of a fault or a deadlock (docs/debugging.md)\n"}));
}

TEST_F(TuningOnGpu, ACandidateThatFaultsStopsTheTuningNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(testing::run_and_exit([] {
                const Device gpu = Device::gpu();
                Buffer<float> out(gpu, std::vector<float>(32, 0.0f));
                Kernel<StoresFarPastItsBuffer> k(gpu);
                k(2147483584, out.data());  // 2^31 - 64 floats: 8 GiB past the buffer, which a raw pointer hides
              }),
              ::testing::ExitedWithCode(3),
              // The fault is met where the next call after it waits: a launch, or the wait for the runs.
              // The driver names it by where the address lands: CUDA_ERROR_ILLEGAL_ADDRESS, or
              // CUDA_ERROR_INVALID_ADDRESS_SPACE where it falls in another address space's window.
              testing::contains_in_order({"error: tuning StoresFarPastItsBuffer (",
                                          ") stopped: candidate [far=1] failed on the GPU (CUDA driver call ",
                                          "), which can run nothing more in this process"}));
}

}  // namespace
}  // namespace tessel
