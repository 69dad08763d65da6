// Philox random numbers (tessel/lib/random.hpp) against a host reference of the same algorithm
// (Triton's randint4x and rand), on the simulator (random_test.cpp) and on the GPU
// (gpu/random_gpu_test.cpp).
#pragma once

#include <array>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/lib/random.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// bits[4 i + j] = word j of randint4x(seed, offset0 + i), and uniform[i] = rand(seed, offset0 + i),
// for i below n; blocks of 256 offsets.
struct RandomNumbers : Script {
  void operator()(Int32 n, Int32 offset0, UInt64 seed, Ptr<uint32_t> bits, Ptr<float> uniform) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 2;
    const Int32 first = blockIdx.x * 256;
    const RegisterTensor offsets = arange({256}, 0) + (first + offset0);
    const std::array<RegisterTensor, 4> words = randint4x(seed, offsets);
    auto g_bits = global_view(bits, {n, 4});
    for (int j = 0; j < 4; ++j) store_global(g_bits, reshape(words[size_t(j)], {256, 1}), {first, j});
    store_global(global_view(uniform, {n}), rand(seed, offsets), {first});
  }
};

// The host reference: Philox-4x32 with 10 rounds, counter (offset, 0, 0, 0), key (seed's low and
// high words).
inline std::array<uint32_t, 4> philox_reference(uint64_t seed, uint32_t offset) {
  uint32_t c[4] = {offset, 0, 0, 0}, k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p2 = uint64_t(0xCD9E8D57u) * c[2];
    const uint32_t next[4] = {uint32_t(p2 >> 32) ^ c[1] ^ k0, uint32_t(p2), uint32_t(p0 >> 32) ^ c[3] ^ k1,
                              uint32_t(p0)};
    std::memcpy(c, next, sizeof c);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c[0], c[1], c[2], c[3]};
}

inline float uniform_reference(uint32_t bits) {
  int32_t x;
  std::memcpy(&x, &bits, sizeof x);
  if (x < 0) x = -(x + 1);
  return float(x) * 4.6566127342e-10f;
}

// Runs RandomNumbers on `dev` and checks every word and every uniform value exactly.
inline void check_random_numbers(const Device& dev, int n, int offset0, uint64_t seed) {
  Buffer<uint32_t> bits(dev, std::vector<uint32_t>(size_t(n) * 4, 0xDEADBEEFu));
  Buffer<float> uniform(dev, std::vector<float>(size_t(n), -1.0f));
  Kernel<RandomNumbers> kernel(dev);
  kernel(n, offset0, seed, bits, uniform);
  const std::vector<uint32_t> got = bits.download();
  const std::vector<float> got_uniform = uniform.download();
  for (int i = 0; i < n; ++i) {
    const std::array<uint32_t, 4> want = philox_reference(seed, uint32_t(offset0 + i));
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(got[size_t(i) * 4 + size_t(j)], want[size_t(j)]) << "offset " << i << ", word " << j;
    ASSERT_EQ(got_uniform[size_t(i)], uniform_reference(want[0])) << "offset " << i;
    ASSERT_GE(got_uniform[size_t(i)], 0.0f);
    ASSERT_LT(got_uniform[size_t(i)], 1.0f);
  }
}

}  // namespace tessel::testing
