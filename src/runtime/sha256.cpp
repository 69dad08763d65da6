#include "tessel/runtime/sha256.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>

#include <fmt/format.h>

namespace tessel::runtime {
namespace {

using State = std::array<std::uint32_t, 8>;

// First 32 bits of the fractional parts of the square roots of the first 8 primes (FIPS 180-4 5.3.3).
constexpr State kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// First 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 4.2.2).
constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::size_t kBlockBytes = 64;

std::uint32_t load_big_endian(const unsigned char* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

// Folds one 64-byte block into the state (FIPS 180-4 6.2.2).
void compress(State& state, const unsigned char* block) {
  std::array<std::uint32_t, 64> w;
  for (int t = 0; t < 16; ++t) w[t] = load_big_endian(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    std::uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    std::uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }

  auto [a, b, c, d, e, f, g, h] = state;
  for (int t = 0; t < 64; ++t) {
    std::uint32_t sum1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    std::uint32_t choose = (e & f) ^ (~e & g);
    std::uint32_t t1 = h + sum1 + choose + kRoundConstants[t] + w[t];
    std::uint32_t sum0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    std::uint32_t t2 = sum0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const State next = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += next[i];
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  State state = kInitialState;

  // Whole blocks straight from the input; only the tail is copied, to append the padding.
  const std::size_t whole = data.size() / kBlockBytes * kBlockBytes;
  for (std::size_t offset = 0; offset < whole; offset += kBlockBytes) compress(state, bytes + offset);

  // Padding (FIPS 180-4 5.1.1): a 1 bit, zeros, then the message length in bits as a 64-bit
  // big-endian integer ending a block. It spills into a second block when the tail leaves fewer
  // than 9 free bytes.
  std::array<unsigned char, 2 * kBlockBytes> tail{};
  const std::size_t rest = data.size() - whole;
  std::copy_n(bytes + whole, rest, tail.begin());  // not memcpy: `bytes` may be null when empty
  tail[rest] = 0x80;
  const std::size_t tail_bytes = rest + 1 + 8 <= kBlockBytes ? kBlockBytes : 2 * kBlockBytes;
  const std::uint64_t bit_length = std::uint64_t(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_bytes - 1 - i] = static_cast<unsigned char>(bit_length >> (8 * i));
  for (std::size_t offset = 0; offset < tail_bytes; offset += kBlockBytes) compress(state, tail.data() + offset);

  std::string hex;
  hex.reserve(64);
  for (std::uint32_t word : state) fmt::format_to(std::back_inserter(hex), "{:08x}", word);
  return hex;
}

}  // namespace tessel::runtime
