// Philox random numbers on the simulator: every word and uniform value against the host reference,
// the reference against Random123's known answer, and misuse.
#include "expect_error.hpp"
#include "random_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Random, TheHostReferenceGivesRandom123sKnownAnswer) {
  // Philox-4x32-10 of the counter 0 under the key 0 (Random123's kat_vectors).
  EXPECT_EQ(philox_reference(0, 0), (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Random, EveryWordAndUniformValueMatchesTheReference) {
  check_random_numbers(Device::simulator(), 300, 0, 0);
  check_random_numbers(Device::simulator(), 513, 1 << 30, 0x0123456789abcdefull);
  check_random_numbers(Device::simulator(), 40, -7, 42);                    // negative offsets count as their u32 bits
  check_random_numbers(Device::simulator(), 33, 5, 0xfedcba9876543210ull);  // a seed of 2^63 or more
}

struct RandomOfFloatOffsets : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), rand(7, t), {0});
  }
};

TEST(Random, OffsetsOtherThan32BitIntegersAreRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<RandomOfFloatOffsets>(x),
            source_at("tests/random_test.cpp", "rand(7, t)") +
                ": randint4x: the offsets are a tile of f32; Philox counts in 32 bits, so give a tile of i32 or u32 "
                "(convert with .to<int32_t>())");
}

}  // namespace
}  // namespace tessel::testing
