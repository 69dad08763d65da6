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
    print({1, 0, 0}, "n = {}, half of n = {}, n > 3: {}, of {} rows", n, cast<float>(n) / 2.0f, n > 3, 4);
    thread_group(32, 32, [&] {
      auto s = register_tensor<uint32_t>({1, 32}, 7u) * 3u;
      print("second warp", s, {1, 0, 0});
    });
    auto s_halves = shared_tensor<f16>({4, 16}, Swizzle::b32);
    store_shared(s_halves, (arange({4, 16}, 0) * 16 + arange({4, 16}, 1) - n).to<f16>());
    auto s_nibbles = shared_tensor<i4>({4, 64});
    thread_group(0, 32, [&] {
      const Layout words = Layout::spatial({4, 8}) * Layout::local({1, 8});
      store_shared(s_nibbles, (arange({4, 64}, 1, words) - arange({4, 64}, 0, words) * 5 - n).to<i4>());
    });
    sync();
    print("halves", s_halves, {1, 0, 0});
    print("nibbles", s_nibbles, {1, 0, 0});
  }
};

// The text of the shared tiles PrintsTilesAndValues prints with n = 5 after its register tiles.
inline std::string printed_shared_tiles() {
  std::string text = "halves: shared<f16>[4, 16] strides [16, 1] swizzle 32B, block (1, 0, 0)\n";
  for (int r = 0; r < 4; ++r) {
    text += "  [" + std::to_string(r) + "]";
    for (int c = 0; c < 16; ++c) text += " " + std::to_string(r * 16 + c - 5);
    text += "\n";
  }
  text += "nibbles: shared<i4>[4, 64] strides [64, 1], block (1, 0, 0)\n";
  for (int r = 0; r < 4; ++r) {
    text += "  [" + std::to_string(r) + "]";
    for (int c = 0; c < 64; ++c) text += " " + std::to_string(((c - 5 * r - 5) % 16 + 24) % 16 - 8);
    text += "\n";
  }
  return text;
}

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
