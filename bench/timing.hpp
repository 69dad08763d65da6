// The one timing method of every benchmark: CUDA events around each run, the L2 cache flushed
// before each run, warm-up runs first, the median of many runs reported.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tessel::bench {

void check(cudaError_t e, const char* what);

class Timer {
 public:
  Timer();
  ~Timer();
  // Median milliseconds of `runs` executions of `work` (after `warmup` untimed ones).
  double median_ms(const std::function<void()>& work, int runs = 50, int warmup = 5);

 private:
  void flush_l2();
  cudaEvent_t start_, stop_;
  void* scrub_ = nullptr;
  size_t scrub_bytes_ = 0;
};

// Device memory with random contents (never zeros).
template <class T> T* random_device_array(size_t n, uint64_t seed);
void free_device(void* p);

}  // namespace tessel::bench
