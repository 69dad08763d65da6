// The host cost of launches without Python, for python_overhead.py (which loads this file with
// tessel.load and calls it through ctypes): bare cuLaunchKernel in a C++ loop, the floor, and a
// tessel::Kernel called in a C++ loop, what a C++ engine pays.
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>

#include "tessel/cli/registry.hpp"
#include "tessel/tessel.hpp"
#include "vector_add.hpp"  // the example (python_overhead.py adds examples/ to the include path)

TESSEL_KERNELS(kernels) {}

// Seconds for `calls` launches of `function` on `stream` with `params`, without waiting for them.
extern "C" double bare_launch_seconds(CUfunction function, void** params, int calls, unsigned grid, unsigned block,
                                      CUstream stream) {
  static const auto launch = reinterpret_cast<decltype(&cuLaunchKernel)>(
      dlsym(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), "cuLaunchKernel"));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) launch(function, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds for `calls` calls of a tessel::Kernel with GPU tensors over a, b and c (checked against
// the kernel's views, as a Python call's arrays are), without waiting for them.
extern "C" double tessel_launch_seconds(int calls, int n, float* a, float* b, float* c, CUstream stream) {
  static tessel::Kernel<tessel::examples::VectorAdd> add(tessel::Device::gpu());
  const tessel::Device gpu = tessel::Device::gpu();
  const tessel::Tensor<float> ta(gpu, a, {n});
  const tessel::Tensor<float> tb(gpu, b, {n});
  const tessel::Tensor<float> tc(gpu, c, {n});
  add.launch_on(stream, n, ta, tb, tc);  // compiles outside the timed loop
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) add.launch_on(stream, n, ta, tb, tc);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
