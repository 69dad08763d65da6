// Global scratch buffers on the GPU; skipped, visibly, without one.
#include "../scratch_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using ScratchOnGpu = GpuTest;

TEST_F(ScratchOnGpu, LastBlockAddsThePartials) {
  check_last_block_column_sums(Device::gpu(), 4099);
  check_last_block_column_sums(Device::gpu(), 200);
}

// Each launch's last block adds 4096 partials one after another, so the other stream's launch runs
// meanwhile: with one set of buffers it would overwrite those partials and take tickets from the
// same counter.
TEST_F(ScratchOnGpu, LaunchesOnTwoStreamsRunAtOnceWithBuffersOfTheirOwn) {
  const Device dev = Device::gpu();
  auto& d = runtime::CudaDriver::get();
  const int rows = 16 * 4096;
  std::mt19937 rng(11);
  std::vector<std::vector<float>> inputs(2, std::vector<float>(size_t(rows) * 64));
  // Multiples of 1/64 of at most 1/2: the sums stay below 2^15 and add exactly in any order.
  for (auto& x : inputs)
    for (float& v : x) v = float(int(rng() % 65) - 32) / 64;
  std::vector<std::vector<double>> want(2, std::vector<double>(64, 0.0));
  for (int s = 0; s < 2; ++s)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < 64; ++c) want[s][c] += inputs[s][size_t(r) * 64 + c];

  d.context();  // current on this thread, for the streams
  CUstream streams[2];
  for (CUstream& s : streams) d.check(d.streamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "a test stream");
  Buffer<float> x0(dev, inputs[0]), x1(dev, inputs[1]);
  Buffer<float>* x[2] = {&x0, &x1};
  Kernel<LastBlockColumnSums<>> kernel(dev);
  constexpr int kRounds = 4;
  std::vector<Buffer<float>> sums;
  for (int i = 0; i < 2 * kRounds; ++i) sums.emplace_back(dev, std::vector<float>(64, -1.0f));
  // The uploads ran on the legacy stream, which the non-blocking streams do not wait for.
  d.check(d.ctxSynchronize(), "cuCtxSynchronize", "the test's uploads");
  for (int round = 0; round < kRounds; ++round)
    for (int s = 0; s < 2; ++s) kernel.launch_on(streams[s], rows, *x[s], sums[size_t(2 * round + s)]);
  d.check(d.ctxSynchronize(), "cuCtxSynchronize", "the test's launches");
  for (CUstream s : streams) d.streamDestroy(s);
  for (int i = 0; i < 2 * kRounds; ++i) {
    const auto got = sums[size_t(i)].download();
    for (int c = 0; c < 64; ++c)
      EXPECT_EQ(double(got[size_t(c)]), want[size_t(i % 2)][size_t(c)])
          << "round " << i / 2 << ", stream " << i % 2 << ", column " << c;
  }
}

}  // namespace
}  // namespace tessel::testing
