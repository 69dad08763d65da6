// Kernels that exercise the launch path, with host expectations. Run on the simulator by
// tests/launch_test.cpp and on the GPU by tests/gpu/launch_gpu_test.cpp, where every parameter
// goes through the argument block.
#pragma once

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "tessel/tessel.hpp"
#include "vector_add.hpp"

namespace tessel::testing {

// A run-time parameter of every scalar type, in an order that puts each at an offset of its own
// alignment (bool at 0, i8 at 1, f16 at 2, f32 at 4, bf16 at 8, i64 at 16, u32 at 24, i32 at 28,
// the pointer at 32). The kernel writes each back as a float.
struct EveryParameterType : Script {
  void operator()(Var<bool> flag, Var<int8_t> small, Var<f16> half, Float32 single, Var<bf16> brain, Var<int64_t> wide,
                  UInt32 unsigned_word, Int32 word, Ptr<float> out) {
    attrs.blocks = {1};
    attrs.warps = 1;
    auto g = global_view(out, {8});
    single_thread([&] {
      store_global(g, register_tensor<float>({1}, cast<float>(flag)), {0});
      store_global(g, register_tensor<float>({1}, cast<float>(small)), {1});
      store_global(g, register_tensor<float>({1}, cast<float>(half)), {2});
      store_global(g, register_tensor<float>({1}, single), {3});
      store_global(g, register_tensor<float>({1}, cast<float>(brain)), {4});
      // The high word alone, so that a parameter cut to 32 bits shows.
      store_global(g, register_tensor<float>({1}, cast<float>(wide / (int64_t(1) << 32))), {5});
      store_global(g, register_tensor<float>({1}, cast<float>(unsigned_word)), {6});
      store_global(g, register_tensor<float>({1}, cast<float>(word)), {7});
    });
  }
};

inline void check_every_parameter_type(const Device& dev) {
  Buffer<float> out(dev, std::vector<float>(8, -1.0f));
  Kernel<EveryParameterType> k(dev);
  const int64_t wide = (int64_t(3) << 32) + 5;
  k(true, int8_t(-7), 1.5f, 2.25f, -3.0f, wide, uint32_t(4000000000u), -123456, out);
  const std::vector<float> expected = {1.0f, -7.0f, 1.5f, 2.25f, -3.0f, 3.0f, 4000000000.0f, -123456.0f};
  EXPECT_EQ(out.download(), expected);
}

// A null pointer and one that is not aligned to its element type are refused before anything
// runs, naming the kernel and the parameter: the output is untouched, and the next correct call
// runs.
inline void check_bad_pointers_are_refused(const Device& dev) {
  const int n = 300;
  Buffer<float> a(dev, std::vector<float>(n, 1.0f)), b(dev, std::vector<float>(n, 2.0f));
  Buffer<float> c(dev, std::vector<float>(n + 1, 0.0f));
  Kernel<examples::VectorAdd> add(dev);
  EXPECT_EQ(error_of_call([&] { add(n, a, static_cast<float*>(nullptr), c); }),
            "kernel VectorAdd, parameter b (argument 2): the pointer is null; pass device memory (a tessel::Buffer, "
            "or an allocation of the device the kernel runs on)");
  float* unaligned = reinterpret_cast<float*>(reinterpret_cast<char*>(c.data()) + 2);
  EXPECT_EQ(error_of_call([&] { add(n, a, b, unaligned); }),
            fmt::format("kernel VectorAdd, parameter c (argument 3): the pointer {} is not aligned to its element "
                        "type f32 (4 bytes); pass the address of a whole f32 element",
                        static_cast<const void*>(unaligned)));
  EXPECT_EQ(c.download(), std::vector<float>(n + 1, 0.0f));
  add(n, a, b, c);
  std::vector<float> expected(n + 1, 3.0f);
  expected[n] = 0.0f;
  EXPECT_EQ(c.download(), expected);
}

}  // namespace tessel::testing
