// The benchmarks time everything (tessel kernels, cuBLAS, copies) with the autotuner's own method,
// tessel::tuning::GpuTimer: CUDA events, L2 flushed before each run, warm-up, median.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "tessel/tuning/gpu_timer.hpp"

namespace tessel::bench {

void check(cudaError_t e, const char* what);

class Timer {
 public:
  // Median milliseconds of at least `runs` executions of `work` (after `warmup` untimed ones).
  double median_ms(const std::function<void()>& work, int runs = 50, int warmup = 5);

 private:
  tuning::GpuTimer timer_;
};

// Device memory with random contents (never zeros).
template <class T> T* random_device_array(size_t n, uint64_t seed);
void free_device(void* p);

}  // namespace tessel::bench
