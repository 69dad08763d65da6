#include "timing.hpp"

#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "tessel/dtype.hpp"

namespace tessel::bench {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

double Timer::median_ms(const std::function<void()>& work, int runs, int warmup) {
  tuning::GpuTimer::Options o;
  o.warmup = warmup;
  o.min_runs = runs;
  o.max_runs = runs;
  return timer_.median_ms([&](void*) { work(); }, o);
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
template bf16* random_device_array<bf16>(size_t, uint64_t);

void free_device(void* p) { cudaFree(p); }

}  // namespace tessel::bench
