// The GPU timer: a pause of the host between the start event and the work is not timed (the gate
// holds the GPU until the run is enqueued), and work that waits for the GPU is reported.
#include <chrono>
#include <thread>

#include "gpu_test.hpp"
#include "tessel/error.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/tuning/gpu_timer.hpp"

namespace tessel {
namespace {

using GpuTimerOnGpu = testing::GpuTest;

TEST_F(GpuTimerOnGpu, AHostPauseBeforeTheWorkIsNotTimed) {
  auto& d = runtime::CudaDriver::get();
  tuning::GpuTimer timer;  // makes the context current
  CUdeviceptr buffer = 0;
  d.check(d.memAlloc(&buffer, 1 << 20), "cuMemAlloc", "the test buffer");
  const double ms = timer.median_ms(
      [&](void* stream) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        d.check(d.memsetD8Async(buffer, 7, 1 << 20, static_cast<CUstream>(stream)), "cuMemsetD8Async", "the work");
      },
      {.warmup = 1, .min_runs = 3, .max_runs = 3});
  d.memFree(buffer);
  EXPECT_LT(ms, 2.0);  // a 1 MB memset, without the 20 ms the host slept before it
  EXPECT_GT(ms, 0.0);
}

TEST_F(GpuTimerOnGpu, WorkThatWaitsForTheGpuIsReported) {
  auto& d = runtime::CudaDriver::get();
  tuning::GpuTimer timer;
  const auto waits = [&](void*) { d.check(d.ctxSynchronize(), "cuCtxSynchronize", "the work"); };
  try {
    timer.median_ms(waits, {.warmup = 0, .min_runs = 1, .max_runs = 1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "GpuTimer: the timed work waited for the GPU before returning, so the gate that holds the GPU until "
              "the work is enqueued opened only after a second; time work that only enqueues");
  }
  // The timer is usable again.
  EXPECT_NO_THROW(timer.median_ms([](void*) {}, {.warmup = 0, .min_runs = 1, .max_runs = 1}));
}

}  // namespace
}  // namespace tessel
