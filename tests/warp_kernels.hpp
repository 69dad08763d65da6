// Warp shuffles and votes, with host expectations: tile shuffles of every mode over two warps,
// and scalar shuffles and votes of per-thread tickets (a permutation from one counter), checked
// through what holds whatever order the tickets take. Run on the simulator by
// tests/warp_test.cpp and on the GPU by tests/gpu/warp_gpu_test.cpp.
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// x is [64, 4]: thread t of the two warps holds row t. Output k (of 4) is [64, 4]: xor 5, up 3,
// down 7, from lane 9.
struct TileShuffles : Script {
  void operator()(Ptr<int32_t> x, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const Layout rows = Layout::spatial({64, 1}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {64, 4}), {0, 0}, {64, 4}, rows);
    auto o = global_view(out, {4, 64, 4});
    store_global(o, reshape(warp.shuffle_xor(t, 5), {1, 64, 4}), {0, 0, 0});
    store_global(o, reshape(warp.shuffle_up(t, 3), {1, 64, 4}), {1, 0, 0});
    store_global(o, reshape(warp.shuffle_down(t, 7), {1, 64, 4}), {2, 0, 0});
    store_global(o, reshape(warp.shuffle(t, 9), {1, 64, 4}), {3, 0, 0});
  }
};

// Each thread of one warp takes a ticket (0..31) and writes, at its ticket: the warp's sum of the
// tickets by a butterfly of shuffle_xor, lane 0's ticket (shuffle), the ballot of even tickets, and
// any(ticket == 31), all(ticket < 32), all(ticket < 31) as bits 0 to 2.
struct ScalarShufflesAndVotes : Script {
  void operator()(Ptr<uint32_t> counter, Ptr<uint32_t> sums, Ptr<uint32_t> firsts, Ptr<uint32_t> ballots,
                  Ptr<uint32_t> votes) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Expr<uint32_t> ticket = atomic.fetch_add(global_view(counter, {1}), {0}, 1u);
    UInt32 sum = ticket;
    for (int mask = 16; mask >= 1; mask /= 2) sum += warp.shuffle_xor(sum, mask);
    const auto at = [&](Ptr<uint32_t> p) { return global_view(p, {32}); };
    atomic.store(at(sums), {ticket}, sum);
    atomic.store(at(firsts), {ticket}, warp.shuffle(ticket, 0));
    atomic.store(at(ballots), {ticket}, warp.ballot(ticket % 2u == 0u));
    Expr<uint32_t> any = select(warp.any(ticket == 31u), 1u, 0u);
    Expr<uint32_t> all = select(warp.all(ticket < 32u), 2u, 0u);
    Expr<uint32_t> not_all = select(warp.all(ticket < 31u), 4u, 0u);
    atomic.store(at(votes), {ticket}, any | all | not_all);
  }
};

inline void check_warp_shuffles_and_votes(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(12);
  std::vector<int32_t> x(256);
  for (int32_t& v : x) v = int32_t(rng() % 20001) - 10000;
  Buffer<int32_t> dx(dev, x), out(dev, std::vector<int32_t>(1024, -1));
  Kernel<TileShuffles>(dev, KernelOptions{.sim = options})(dx, out);
  const auto o = out.download();
  const auto source = [](int mode, int lane) {
    const int s = mode == 0 ? lane ^ 5 : mode == 1 ? lane - 3 : mode == 2 ? lane + 7 : 9;
    return s < 0 || s > 31 ? lane : s;
  };
  for (int mode = 0; mode < 4; ++mode)
    for (int row = 0; row < 64; ++row)
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(o[size_t(mode * 256 + row * 4 + c)], x[size_t((row / 32 * 32 + source(mode, row % 32)) * 4 + c)])
            << "mode " << mode << " row " << row;

  Buffer<uint32_t> counter(dev, std::vector<uint32_t>{0}), sums(dev, std::vector<uint32_t>(32, 7)),
      firsts(dev, std::vector<uint32_t>(32, 99)), ballots(dev, std::vector<uint32_t>(32, 7)),
      votes(dev, std::vector<uint32_t>(32, 99));
  Kernel<ScalarShufflesAndVotes>(dev, KernelOptions{.sim = options})(counter, sums, firsts, ballots, votes);
  const auto s = sums.download(), f = firsts.download(), b = ballots.download(), v = votes.download();
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(s[size_t(i)], 496u) << "ticket " << i;
    EXPECT_EQ(f[size_t(i)], f[0]) << "ticket " << i;
    EXPECT_EQ(b[size_t(i)], b[0]) << "ticket " << i;
    EXPECT_EQ(v[size_t(i)], 3u) << "ticket " << i;
  }
  EXPECT_LT(f[0], 32u);
  EXPECT_EQ(__builtin_popcount(b[0]), 16);
}

}  // namespace tessel::testing
