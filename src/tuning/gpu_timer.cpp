#include "tessel/tuning/gpu_timer.hpp"

#include <algorithm>
#include <vector>

#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::tuning {

namespace {
runtime::CudaDriver& driver() { return runtime::CudaDriver::get(); }
}  // namespace

GpuTimer::GpuTimer() {
  auto& d = driver();
  d.context();
  CUevent start = nullptr, stop = nullptr;
  d.check(d.eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", "the GPU timer");
  d.check(d.eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", "the GPU timer");
  start_ = start;
  stop_ = stop;
  // Writing twice the L2 size evicts whatever the previous run left there.
  scrub_bytes_ = size_t(std::max(d.device_info().l2_bytes, 1 << 20)) * 2;
  CUdeviceptr p = 0;
  d.check(d.memAlloc(&p, scrub_bytes_), "cuMemAlloc", "the L2 flush buffer");
  scrub_ = p;
}

GpuTimer::~GpuTimer() {
  auto& d = driver();
  d.eventDestroy(static_cast<CUevent>(start_));
  d.eventDestroy(static_cast<CUevent>(stop_));
  d.memFree(scrub_);
}

void GpuTimer::flush_l2() {
  auto& d = driver();
  d.check(d.memsetD8Async(scrub_, 0x5a, scrub_bytes_, nullptr), "cuMemsetD8Async", "the L2 flush");
}

double GpuTimer::median_ms(const std::function<void(void*)>& work, const Options& options) {
  auto& d = driver();
  auto start = static_cast<CUevent>(start_), stop = static_cast<CUevent>(stop_);
  for (int i = 0; i < options.warmup; ++i) work(nullptr);
  d.check(d.ctxSynchronize(), "cuCtxSynchronize", "warm-up runs");
  std::vector<float> times;
  double total = 0;
  while (int(times.size()) < options.max_runs && (int(times.size()) < options.min_runs || total < options.budget_ms)) {
    flush_l2();
    d.check(d.eventRecord(start, nullptr), "cuEventRecord", "timing");
    work(nullptr);
    d.check(d.eventRecord(stop, nullptr), "cuEventRecord", "timing");
    d.check(d.eventSynchronize(stop), "cuEventSynchronize", "a timed run");
    float ms = 0;
    d.check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime", "timing");
    times.push_back(ms);
    total += ms;
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace tessel::tuning
