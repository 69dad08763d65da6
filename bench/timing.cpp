#include "timing.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "tessel/dtype.hpp"

namespace tessel::bench {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

Timer::Timer() {
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
  scrub_bytes_ = size_t(l2) * 4;  // writing several times the L2 size evicts what the last run left
  check(cudaMalloc(&scrub_, scrub_bytes_), "cudaMalloc scrub");
}

Timer::~Timer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaFree(scrub_);
}

void Timer::flush_l2() { check(cudaMemsetAsync(scrub_, 0x5a, scrub_bytes_), "L2 flush"); }

double Timer::median_ms(const std::function<void()>& work, int runs, int warmup) {
  for (int i = 0; i < warmup; ++i) work();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    flush_l2();
    check(cudaEventRecord(start_), "cudaEventRecord");
    work();
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    check(cudaGetLastError(), "kernel");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

template <class T> T* random_device_array(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> host(n);
  for (auto& x : host) x = T(dist(rng));
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

template float* random_device_array<float>(size_t, uint64_t);
template f16* random_device_array<f16>(size_t, uint64_t);

void free_device(void* p) { cudaFree(p); }

}  // namespace tessel::bench
