#pragma once

#include <array>

#include "tessel/tessel.hpp"

namespace tessel {

// Counter-based random numbers: Philox-4x32 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC 2011), with the rounds, constants, key schedule and float conversion of Triton's
// tl.randint4x / tl.randint / tl.rand, so that a seed and an offset give the same numbers in both.
// Each element of `offsets` (an integer tile; its 32-bit value is the counter) draws its own
// numbers, and the same seed and offset always give the same ones: dropout recomputes its mask in
// the backward pass from them instead of storing it.
namespace philox {
inline constexpr uint32_t kRoundA = 0xD2511F53u, kRoundB = 0xCD9E8D57u;  // multipliers
inline constexpr uint32_t kKeyA = 0x9E3779B9u, kKeyB = 0xBB67AE85u;      // key increments (Weyl)

// The high 32 bits of the 64-bit product of a u32 tile and a constant.
inline RegisterTensor mul_high(const RegisterTensor& x, uint32_t constant) {
  return ((x.to<uint64_t>() * uint64_t(constant)) >> 32).to<uint32_t>();
}

// The key: a kernel integer or a C++ one.
template <class Seed> Expr<uint64_t> key(const Seed& seed) {
  if constexpr (std::is_integral_v<Seed>)
    return Expr<uint64_t>(uint64_t(seed));
  else
    return cast<uint64_t>(seed);
}

// The counters: the bits of a 32-bit integer tile.
inline RegisterTensor counters(const RegisterTensor& offsets, std::source_location loc) {
  if (offsets.dtype() == DType::U32) return offsets;
  if (offsets.dtype() == DType::I32) return offsets.bitcast<uint32_t>();
  throw Error(SourceLoc::from(loc),
              fmt::format("randint4x: the offsets are a tile of {}; Philox counts in 32 bits, so give a tile of "
                          "i32 or u32 (convert with .to<int32_t>())",
                          dtype_name(offsets.dtype())));
}
}  // namespace philox

// Four u32 tiles of random bits for each element of `offsets`, from `seed` (its low and high 32
// bits are the key) after `rounds` rounds (Triton's default, 10).
template <class Seed>
std::array<RegisterTensor, 4> randint4x(const Seed& seed, const RegisterTensor& offsets, int rounds = 10,
                                        std::source_location loc = std::source_location::current()) {
  const Expr<uint64_t> key = philox::key(seed);
  Expr<uint32_t> k0 = cast<uint32_t>(key & 0xFFFFFFFFull), k1 = cast<uint32_t>(key >> 32);
  RegisterTensor c0 = philox::counters(offsets, loc), c1 = c0 * 0u, c2 = c0 * 0u, c3 = c0 * 0u;
  for (int round = 0; round < rounds; ++round) {
    RegisterTensor next0 = philox::mul_high(c2, philox::kRoundB) ^ c1 ^ k0;
    RegisterTensor next2 = philox::mul_high(c0, philox::kRoundA) ^ c3 ^ k1;
    c1 = c2 * philox::kRoundB;
    c3 = c0 * philox::kRoundA;
    c0 = next0;
    c2 = next2;
    k0 = k0 + philox::kKeyA;
    k1 = k1 + philox::kKeyB;
  }
  return {c0, c1, c2, c3};
}

// The first of randint4x's tiles.
template <class Seed> RegisterTensor randint(const Seed& seed, const RegisterTensor& offsets, int rounds = 10,
                                             std::source_location loc = std::source_location::current()) {
  return randint4x(seed, offsets, rounds, loc)[0];
}

// u32 random bits -> f32 uniform in [0, 1), as Triton's uint_to_uniform_float: the bits as an i32,
// folded onto the non-negative values (-x - 1, which is ~x, for negative x: x ^ (x >> 31)), times
// 4.6566127342e-10 (2^-31, rounded down so that the largest value stays below 1).
inline RegisterTensor uniform_from_bits(const RegisterTensor& bits) {
  const RegisterTensor x = bits.bitcast<int32_t>();
  return (x ^ (x >> 31)).to<float>() * 4.6566127342e-10f;
}

// f32 uniform in [0, 1) for each element of `offsets`.
template <class Seed> RegisterTensor rand(const Seed& seed, const RegisterTensor& offsets, int rounds = 10,
                                          std::source_location loc = std::source_location::current()) {
  return uniform_from_bits(randint(seed, offsets, rounds, loc));
}

}  // namespace tessel
