// Printing from a kernel: tiles of several ranks and types and kernel values, all from block 1
// (block 0 prints nothing), and from a thread group. tests/print_test.cpp checks the simulator's
// text; tests/gpu/print_gpu_test.cpp checks that the GPU prints the same text.
#pragma once

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

struct PrintsTilesAndValues : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 2;
    attrs.warps = 2;
    auto t = load_global(global_view(x, {4, 8}), {0, 0}, {4, 8});
    print("x", t, {1, 0, 0});
    auto cube = arange({2, 3, 4}, 0) * 100 + arange({2, 3, 4}, 1) * 10 + arange({2, 3, 4}, 2) - n;
    print("cube", cube, {1, 0, 0});
    print("row sums", sum(t, 1).to<f16>(), {1, 0, 0});
    print({1, 0, 0}, "n = {}, half of n = {}, n > 3: {}", n, cast<float>(n) / 2.0f, n > 3);
    thread_group(32, 32, [&] {
      auto s = register_tensor<uint32_t>({1, 32}, 7u) * 3u;
      print("second warp", s, {1, 0, 0});
    });
  }
};

// What the kernel prints with n = 5 and x[i] = i / 4 - 3.
inline std::string run_prints(const Device& dev) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = float(i) / 4 - 3;
  Buffer<float> dx(dev, x);
  Kernel<PrintsTilesAndValues> k(dev);
  ::testing::internal::CaptureStdout();
  k(5, dx);
  dev.synchronize();
  return ::testing::internal::GetCapturedStdout();
}

}  // namespace tessel::testing
