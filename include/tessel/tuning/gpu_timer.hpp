// How tessel times GPU work, in the autotuner and in every benchmark: CUDA events around each
// run, the L2 cache flushed (by reading a buffer twice its size) before each run, warm-up runs
// first, the median of the timed runs. Each run is enqueued behind a gate, a kernel that holds the
// GPU until the host has enqueued the whole run, so that host delays (such as the compiles that the
// tuner runs meanwhile) between the start event and the work are never timed. A run that does not
// finish within a time limit is taken never to finish (a deadlock): nothing can stop it short of
// the process's end, so the timer says so instead of waiting with it.
#pragma once

#include <functional>

namespace tessel::tuning {

class GpuTimer {
 public:
  struct Options {
    int warmup = 2;
    int min_runs = 10, max_runs = 100;
    double budget_ms = 100;  // runs beyond min_runs stop once this much GPU time was measured
    double limit_s = 10;     // seconds after which a run (or the warm-up runs) is taken never to finish
  };

  // Needs a GPU; allocates a flush buffer of twice the L2 size and loads the kernel that reads it.
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Median milliseconds of `work`, which enqueues its GPU work on the stream it is given (a
  // CUstream) and must not wait for the GPU. Errors of the work (a failed launch, a fault) are
  // thrown as runtime::CudaError; a run past options.limit_s marks the driver hung and throws a
  // CudaError of CUDA_ERROR_LAUNCH_TIMEOUT.
  double median_ms(const std::function<void(void* stream)>& work, const Options& options);
  double median_ms(const std::function<void(void* stream)>& work) { return median_ms(work, Options{}); }

 private:
  void flush_l2();
  // Waits for `event` (a CUevent), or throws as median_ms says once `limit_s` have passed.
  void wait(void* event, const char* what, double limit_s);
  void close_gate();       // enqueues the gate for the next ticket
  void open_gate();        // opens it from a stream of its own
  void* start_ = nullptr;  // CUevent
  void* stop_ = nullptr;
  unsigned long long scrub_ = 0;  // CUdeviceptr
  size_t scrub_bytes_ = 0;
  void* flush_module_ = nullptr;    // CUmodule
  void* flush_function_ = nullptr;  // CUfunction: reads the scrub buffer
  unsigned flush_blocks_ = 0;
  void* gate_function_ = nullptr;  // CUfunction: waits for its ticket
  unsigned long long gate_ = 0;    // CUdeviceptr: the ticket that opens the gate, then the late flag
  void* opener_ = nullptr;         // CUstream that does not wait for the timed stream
  unsigned ticket_ = 0;
};

}  // namespace tessel::tuning
