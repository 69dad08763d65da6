// Small kernels that exercise the language's semantics, with host expectations. Run on the
// simulator by tests/language_test.cpp and on the GPU by tests/gpu/language_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// The seed's Pipeline bookkeeping (stage and phase advancing around a ring), as a Class whose
// members are kernel variables.
struct StageRing : Class {
  const int num_stages;
  Int32 stage{0};
  UInt32 phase{0u};
  explicit StageRing(int n) : num_stages(n) {}
  void advance() {
    stage = (stage + 1) % num_stages;
    phase = phase ^ (stage == 0);
  }
};

struct PipelineWalk : Script {
  int stages = 3;
  void operator()(Int32 iters, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    StageRing ring(stages);
    auto g = global_view(out, {iters, 2});
    for (Int32 i : range(0, iters)) {
      single_thread([&] {
        store_global(g, register_tensor<int32_t>({1, 1}, ring.stage), {i, 0});
        store_global(g, register_tensor<int32_t>({1, 1}, cast<int32_t>(ring.phase)), {i, 1});
      });
      ring.advance();
    }
  }
};

inline void check_pipeline_walk(const Device& dev) {
  const int iters = 10;
  Buffer<int32_t> out(dev, std::vector<int32_t>(iters * 2, -7));
  Kernel<PipelineWalk> k(dev);
  k(iters, out);
  const auto got = out.download();
  int stage = 0, phase = 0;
  for (int i = 0; i < iters; ++i) {
    EXPECT_EQ(got[2 * i], stage) << "iteration " << i;
    EXPECT_EQ(got[2 * i + 1], phase) << "iteration " << i;
    stage = (stage + 1) % 3;
    phase ^= stage == 0;
  }
}

// Script methods returning tuples, if_/else_, while_ and select, per block.
struct CollatzPerBlock : Script {
  std::tuple<Expr<int32_t>, Expr<int32_t>> divmod(const Int32& x, int d) { return {x / d, x % d}; }

  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = n;
    attrs.warps = 1;
    Int32 x = blockIdx.x + 1;
    Int32 steps = 0;
    while_([&] { return x != 1; },
           [&] {
             auto [half, odd] = divmod(x, 2);
             if_(odd == 1, [&] { x = 3 * x + 1; }).else_([&] { x = half; });
             steps += 1;
           });
    Int32 parity = select(steps % 2 == 0, 100, 200);
    single_thread(
        [&] { store_global(global_view(out, {n}), register_tensor<int32_t>({1}, steps + parity), {blockIdx.x}); });
  }
};

inline void check_collatz(const Device& dev) {
  const int n = 27;
  Buffer<int32_t> out(dev, std::vector<int32_t>(n, -1));
  Kernel<CollatzPerBlock> k(dev);
  k(n, out);
  const auto got = out.download();
  for (int b = 0; b < n; ++b) {
    int x = b + 1, steps = 0;
    while (x != 1) {
      x = x % 2 ? 3 * x + 1 : x / 2;
      ++steps;
    }
    EXPECT_EQ(got[b], steps + (steps % 2 == 0 ? 100 : 200)) << "block " << b;
  }
}

// A while_ whose condition loads and names intermediate values (cdiv): each block walks the groups'
// sizes to the group whose tiles of 4 hold its index, testing each freshly loaded size.
struct WalkGroupSizes : Script {
  void operator()(Int32 groups, Int32 blocks, Ptr<int32_t> sizes, Ptr<int32_t> out) {
    attrs.blocks = blocks;
    attrs.warps = 2;
    auto g_sizes = global_view(sizes, {groups});
    const auto size_of = [&](const Int32& g) { return load_global(g_sizes, {g}, {1}, Layout{}, 0).item<int32_t>(); };
    Int32 group = 0, tiles_before = 0;
    while_([&] { return group < groups && blockIdx.x >= tiles_before + cdiv(size_of(group), 4); },
           [&] {
             tiles_before = tiles_before + cdiv(size_of(group), 4);
             group = group + 1;
           });
    // A condition that copies a Var: the copy is taken afresh before each test (and were it not, the
    // pure term would end the loop at -5 rather than let it spin).
    Int32 left = 3;
    Var<bool> more = true;
    while_(
        [&] {
          Var<bool> copy = more;
          return copy && left > -5;
        },
        [&] {
          left = left - 1;
          more = left > 0;
        });
    single_thread([&] {
      store_global(global_view(out, {blocks}),
                   register_tensor<int32_t>({1}, left * 100000 + group * 1000 + tiles_before), {blockIdx.x});
    });
  }
};

inline void check_while_condition_with_loads(const Device& dev) {
  const std::vector<int32_t> sizes = {5, 0, 9, 4, 13, 1};  // tiles of 4: 2, 0, 3, 1, 4, 1
  const int groups = int(sizes.size()), blocks = 13;
  Buffer<int32_t> dsizes(dev, sizes), out(dev, std::vector<int32_t>(size_t(blocks), -1));
  Kernel<WalkGroupSizes> k(dev);
  k(groups, blocks, dsizes, out);
  const auto got = out.download();
  for (int b = 0; b < blocks; ++b) {
    int group = 0, tiles_before = 0;
    while (group < groups && b >= tiles_before + (sizes[size_t(group)] + 3) / 4)
      tiles_before += (sizes[size_t(group++)] + 3) / 4;
    EXPECT_EQ(got[size_t(b)], group * 1000 + tiles_before) << "block " << b;
  }
}

// break_ leaves the innermost traced loop: a range loop the block leaves at its own limit (the
// increment after the break is skipped), a while_ that warp 1 leaves from inside its thread group
// two passes before warp 0 leaves, and an inner loop whose break leaves the outer one running.
// continue_ ends a pass: of a range loop (its next index follows), and of a while_ whose condition
// is computed by statements (the next test computes it afresh), warp 1 skipping passes of its own.
struct BreaksOutOfLoops : Script {
  static constexpr const char* param_names[] = {"limit", "out"};
  void operator()(Int32 limit, Ptr<int32_t> out) {
    attrs.blocks = 2;
    attrs.warps = 2;
    Int32 count = 0;
    for (Int32 i : range(0, 100)) {
      if_(i * (blockIdx.x + 1) >= limit, [&] { break_(); });
      count += 1;
    }
    Int32 passes = 0;
    while_([&] { return passes < 1000; },
           [&] {
             passes += 1;
             thread_group(32, 32, [&] { if_(passes == 3, [&] { break_(); }); });
             if_(passes == 5, [&] { break_(); });
           });
    Int32 inner_passes = 0;
    for (Int32 outer : range(0, 3)) {
      Int32 j = 0;
      while_([&] { return j < 100; },
             [&] {
               if_(j == outer + 1, [&] { break_(); });
               j += 1;
               inner_passes += 1;
             });
    }
    Int32 not_multiples_of_3 = 0;
    for (Int32 i : range(0, 10)) {
      if_(i % 3 == 0, [&] { continue_(); });
      not_multiples_of_3 += 1;
    }
    Int32 k = 0, counted = 0;
    while_(
        [&] {
          Int32 next = k + 1;
          return next <= 10;
        },
        [&] {
          k += 1;
          if_(k % 2 == 0, [&] { continue_(); });
          thread_group(32, 32, [&] { if_(k % 5 == 0, [&] { continue_(); }); });
          counted += 1;
        });
    auto g_out = global_view(out, {2, 2, 5});
    for (int w = 0; w < 2; ++w)
      thread_group(32 * w, 32, [&] {
        single_thread([&] {
          store_global(g_out, register_tensor<int32_t>({1, 1, 1}, count), {blockIdx.x, w, 0});
          store_global(g_out, register_tensor<int32_t>({1, 1, 1}, passes), {blockIdx.x, w, 1});
          store_global(g_out, register_tensor<int32_t>({1, 1, 1}, inner_passes), {blockIdx.x, w, 2});
          store_global(g_out, register_tensor<int32_t>({1, 1, 1}, not_multiples_of_3), {blockIdx.x, w, 3});
          store_global(g_out, register_tensor<int32_t>({1, 1, 1}, counted), {blockIdx.x, w, 4});
        });
      });
  }
};

inline void check_breaks_out_of_loops(const Device& dev) {
  Buffer<int32_t> out(dev, std::vector<int32_t>(20, -1));
  Kernel<BreaksOutOfLoops> k(dev);
  k(7, out);
  // Block b breaks at the first i with i (b + 1) >= 7: after 7 passes in block 0, 4 in block 1.
  // Of 0..9, 6 are not multiples of 3; of 1..10, 5 are odd, and 4 odd and not a multiple of 5.
  EXPECT_EQ(out.download(), (std::vector<int32_t>{7, 5, 6, 6, 5, 7, 3, 6, 6, 4, 4, 5, 6, 6, 5, 4, 3, 6, 6, 4}));
}

// break_ and continue_ of some lanes of a warp: lanes 0..15 pass over pass 3, lane 0 leaves at pass
// 6, and in an inner loop lanes 8..15 pass over the pass of the outer index; each lane stores its
// own counts.
struct ExitsOfSomeLanes : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 counted = 0, nested = 0;
    for (Int32 i : range(0, 10)) {
      thread_group(0, 16, [&] { if_(i == 3, [&] { continue_(); }); });
      single_thread([&] { if_(i == 6, [&] { break_(); }); });
      counted += 1;
    }
    for (Int32 outer : range(0, 3))
      for (Int32 j : range(0, 5)) {
        thread_group(8, 8, [&] { if_(j == outer, [&] { continue_(); }); });
        nested += 1;
      }
    store_global(global_view(out, {32}), register_tensor<int32_t>({32}, counted * 100 + nested, Layout::spatial({32})),
                 {0});
  }
};

inline void check_exits_of_some_lanes(const Device& dev) {
  Buffer<int32_t> out(dev, std::vector<int32_t>(32, -1));
  Kernel<ExitsOfSomeLanes> k(dev);
  k(out);
  std::vector<int32_t> want(32);
  for (int lane = 0; lane < 32; ++lane)
    want[size_t(lane)] = (lane == 0 ? 5 : lane < 16 ? 9 : 10) * 100 + (lane >= 8 && lane < 16 ? 12 : 15);
  EXPECT_EQ(out.download(), want);
}

// thread_index() and lane_index(): in the block, in a thread group of warps 2 and 3 and in one
// that starts inside a warp, as values each thread stores, and as a ballot's predicate.
struct ThreadIndices : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 2;
    attrs.warps = 4;
    auto g = global_view(out, {2, 4, 128});
    const Layout per_thread = Layout::spatial({1, 1, 128});
    store_global(g, register_tensor<int32_t>({1, 1, 128}, thread_index() * 10 + blockIdx.x, per_thread),
                 {blockIdx.x, 0, 0});
    store_global(g, register_tensor<int32_t>({1, 1, 128}, lane_index(), per_thread), {blockIdx.x, 1, 0});
    thread_group(64, 64, [&] {
      store_global(g, register_tensor<int32_t>({1, 1, 64}, thread_index(), Layout::spatial({1, 1, 64})),
                   {blockIdx.x, 2, 64});
      thread_group(40, 8, [&] {
        store_global(g, register_tensor<int32_t>({1, 1, 8}, thread_index() + 1000, Layout::spatial({1, 1, 8})),
                     {blockIdx.x, 2, 104});
      });
    });
    Expr<uint32_t> low_lanes = warp.ballot(lane_index() < 5);
    store_global(g, register_tensor<int32_t>({1, 1, 128}, low_lanes.to<int32_t>(), per_thread), {blockIdx.x, 3, 0});
  }
};

inline void check_thread_indices(const Device& dev) {
  Buffer<int32_t> out(dev, std::vector<int32_t>(2 * 4 * 128, -1));
  Kernel<ThreadIndices> k(dev);
  k(out);
  std::vector<int32_t> want(2 * 4 * 128, -1);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t) {
      want[size_t((b * 4 + 0) * 128 + t)] = t * 10 + b;
      want[size_t((b * 4 + 1) * 128 + t)] = t % 32;
      if (t >= 64) want[size_t((b * 4 + 2) * 128 + t)] = t >= 104 && t < 112 ? t - 104 + 1000 : t - 64;
      want[size_t((b * 4 + 3) * 128 + t)] = 0x1f;
    }
  EXPECT_EQ(out.download(), want);
}

// Conversions and elementwise math on a tile of random values.
struct MathAndCasts : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<f16> h, Ptr<bf16> bh, Ptr<int32_t> i, Ptr<uint32_t> u, Ptr<float> y0,
                  Ptr<float> y1) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto t = load_global(global_view(x, {n}), {0}, {256});
    store_global(global_view(h, {n}), t.to<f16>(), {0});
    store_global(global_view(bh, {n}), t.to<bf16>(), {0});
    store_global(global_view(i, {n}), (t * 100.0f).to<int32_t>(), {0});
    store_global(global_view(u, {n}), (abs(t) * 1000.0f).to<uint32_t>(), {0});
    auto pos = abs(t) + 0.5f;
    auto mixed = where(t > 0.0f, sqrt(pos) + log(pos), exp2(t) * rsqrt(pos));
    store_global(global_view(y0, {n}), maximum(mixed, -0.25f), {0});
    store_global(global_view(y1, {n}), minimum(exp(t), t - t * t), {0});
  }
};

inline void check_math_and_casts(const Device& dev) {
  const int n = 200;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3, 3);
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);
  Buffer<float> dx(dev, x), dy0(dev, std::vector<float>(n, 9e9f)), dy1(dev, std::vector<float>(n, 9e9f));
  Buffer<f16> dh(dev, n);
  Buffer<bf16> db(dev, n);
  Buffer<int32_t> di(dev, std::vector<int32_t>(n, 7));
  Buffer<uint32_t> du(dev, std::vector<uint32_t>(n, 7));
  Kernel<MathAndCasts> k(dev);
  k(n, dx, dh, db, di, du, dy0, dy1);
  const auto h = dh.download();
  const auto b = db.download();
  const auto i = di.download();
  const auto u = du.download();
  const auto y0 = dy0.download();
  const auto y1 = dy1.download();
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(h[j].bits, f16(x[j]).bits) << j;
    EXPECT_EQ(b[j].bits, bf16(x[j]).bits) << j;
    EXPECT_EQ(i[j], int32_t(x[j] * 100.0f)) << j;
    EXPECT_EQ(u[j], uint32_t(std::fabs(x[j]) * 1000.0f)) << j;
    const float pos = std::fabs(x[j]) + 0.5f;
    const float mixed = x[j] > 0 ? std::sqrt(pos) + std::log(pos) : std::exp2(x[j]) * (1.0f / std::sqrt(pos));
    EXPECT_NEAR(y0[j], std::max(mixed, -0.25f), 1e-5f * (1 + std::fabs(mixed))) << j;
    EXPECT_NEAR(y1[j], std::min(std::exp(x[j]), x[j] - x[j] * x[j]), 1e-5f * (1 + std::fabs(y1[j]))) << j;
  }
}

// fma of f16 and of bf16 tiles: one rounding of a * b + c.
struct HalfFma : Script {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<f16> c, Ptr<f16> d, Ptr<bf16> ba, Ptr<bf16> bb, Ptr<bf16> bc,
                  Ptr<bf16> bd) {
    attrs.blocks = 1;
    attrs.warps = 2;
    const auto tile = [&](const auto& p) { return load_global(global_view(p, {256}), {0}, {256}); };
    store_global(global_view(d, {256}), fma(tile(a), tile(b), tile(c)), {0});
    store_global(global_view(bd, {256}), fma(tile(ba), tile(bb), tile(bc)), {0});
  }
};

// x rounded once to `mantissa` bits (ties to even), with the least quantum 2^least.
inline double rounded_to(double x, int mantissa, int least) {
  if (x == 0) return x;
  int exponent = 0;
  std::frexp(x, &exponent);
  const int quantum = std::max(exponent - 1 - mantissa, least);
  return std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
}

inline void check_half_fma(const Device& dev) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<f16> a(256), b(256), c(256);
  std::vector<bf16> ba(256), bb(256), bc(256);
  for (int j = 0; j < 256; ++j) {
    a[j] = f16(dist(rng)), b[j] = f16(dist(rng)), c[j] = f16(8 * dist(rng));
    ba[j] = bf16(dist(rng)), bb[j] = bf16(dist(rng)), bc[j] = bf16(8 * dist(rng));
  }
  // a * b + c is just above a tie of two f16 values; rounded to f32 first, it would be the tie,
  // and round to the even one below (10.71875).
  a[0] = f16(0.6069335938f), b[0] = f16(0.1866455078f), c[0] = f16(10.609375f);
  Buffer<f16> da(dev, a), db(dev, b), dc(dev, c), dd(dev, std::vector<f16>(256, f16(-99.0f)));
  Buffer<bf16> dba(dev, ba), dbb(dev, bb), dbc(dev, bc), dbd(dev, std::vector<bf16>(256, bf16(-99.0f)));
  Kernel<HalfFma> kernel(dev);
  kernel(da, db, dc, dd, dba, dbb, dbc, dbd);
  const auto d = dd.download();
  const auto bd = dbd.download();
  EXPECT_EQ(float(d[0]), 10.7265625f);
  for (int j = 0; j < 256; ++j) {
    const double exact = std::fma(double(float(a[j])), double(float(b[j])), double(float(c[j])));
    EXPECT_EQ(d[j].bits, f16(float(rounded_to(exact, 10, -24))).bits) << j;
    const double bexact = std::fma(double(float(ba[j])), double(float(bb[j])), double(float(bc[j])));
    EXPECT_EQ(bd[j].bits, bf16(float(rounded_to(bexact, 7, -133))).bits) << j;
  }
}

// Reductions over each dimension of a 2-D tile, with the reduced dimension spread over lanes.
struct ColumnAndRowReductions : Script {
  void operator()(Ptr<float> x, Ptr<float> col_min, Ptr<float> row_max) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout layout = Layout::spatial({8, 4}) * Layout::local({2, 3});
    auto t = load_global(global_view(x, {16, 12}), {0, 0}, {16, 12}, layout);
    store_global(global_view(col_min, {1, 12}), min(t, 0), {0, 0});
    store_global(global_view(row_max, {16, 1}), max(t, 1), {0, 0});
  }
};

inline void check_reductions(const Device& dev) {
  std::vector<float> x(16 * 12);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (auto& v : x) v = dist(rng);
  Buffer<float> dx(dev, x), dmin(dev, std::vector<float>(12, 1e9f)), dmax(dev, std::vector<float>(16, -1e9f));
  Kernel<ColumnAndRowReductions> k(dev);
  k(dx, dmin, dmax);
  const auto mn = dmin.download();
  const auto mx = dmax.download();
  for (int c = 0; c < 12; ++c) {
    float want = 1e30f;
    for (int r = 0; r < 16; ++r) want = std::min(want, x[r * 12 + c]);
    EXPECT_EQ(mn[c], want) << "column " << c;
  }
  for (int r = 0; r < 16; ++r) {
    float want = -1e30f;
    for (int c = 0; c < 12; ++c) want = std::max(want, x[r * 12 + c]);
    EXPECT_EQ(mx[r], want) << "row " << r;
  }
}

// Sums of narrow integers and bools, which promote to 32 bits: per row of [4, 1024] tiles, the count
// of positive floats (a sum of bools), the sums of u8 and i8 bytes, and the running count of
// positives (a cumsum of bools), over 4 warps.
struct NarrowSums : Script {
  void operator()(Ptr<float> x, Ptr<uint8_t> u, Ptr<int8_t> i, Ptr<int32_t> counts, Ptr<uint32_t> u_sums,
                  Ptr<int32_t> i_sums, Ptr<int32_t> running) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto positive = load_global(global_view(x, {4, 1024}), {0, 0}, {4, 1024}) > 0.0f;
    store_global(global_view(counts, {4, 1}), sum(positive, 1), {0, 0});
    store_global(global_view(u_sums, {4, 1}), sum(load_global(global_view(u, {4, 1024}), {0, 0}, {4, 1024}), 1),
                 {0, 0});
    store_global(global_view(i_sums, {4, 1}), sum(load_global(global_view(i, {4, 1024}), {0, 0}, {4, 1024}), 1),
                 {0, 0});
    store_global(global_view(running, {4, 1024}), cumsum(positive, 1), {0, 0});
  }
};

inline void check_narrow_sums(const Device& dev) {
  std::mt19937 rng(17);
  std::vector<float> x(4 * 1024);
  std::vector<uint8_t> u(x.size());
  std::vector<int8_t> i(x.size());
  for (size_t e = 0; e < x.size(); ++e) {
    x[e] = std::uniform_real_distribution<float>(-1, 2)(rng);
    u[e] = uint8_t(rng() % 256);
    i[e] = int8_t(int(rng() % 256) - 128);
  }
  Buffer<float> dx(dev, x);
  Buffer<uint8_t> du(dev, u);
  Buffer<int8_t> di(dev, i);
  Buffer<int32_t> counts(dev, std::vector<int32_t>(4, -1)), i_sums(dev, std::vector<int32_t>(4, -1)),
      running(dev, std::vector<int32_t>(x.size(), -1));
  Buffer<uint32_t> u_sums(dev, std::vector<uint32_t>(4, 7));
  Kernel<NarrowSums> kernel(dev);
  kernel(dx, du, di, counts, u_sums, i_sums, running);
  const auto got_counts = counts.download(), got_i = i_sums.download(), got_running = running.download();
  const auto got_u = u_sums.download();
  for (int r = 0; r < 4; ++r) {
    int32_t count = 0, i_sum = 0;
    uint32_t u_sum = 0;
    for (int c = 0; c < 1024; ++c) {
      const size_t e = size_t(r) * 1024 + size_t(c);
      count += x[e] > 0.0f;
      u_sum += u[e];
      i_sum += i[e];
      ASSERT_EQ(got_running[e], count) << "row " << r << " column " << c;
    }
    EXPECT_EQ(got_counts[size_t(r)], count) << "row " << r;
    EXPECT_EQ(got_u[size_t(r)], u_sum) << "row " << r;
    EXPECT_EQ(got_i[size_t(r)], i_sum) << "row " << r;
    EXPECT_GT(u_sum, 255u);  // a sum in u8 would have wrapped
  }
}

// Column blocks of a tile whose columns are register blocks over threads: each block is scaled by
// its index + 1 and stored where it came from, and the middle two blocks once more, as one slice.
struct ColumnBlockSlices : Script {
  void operator()(Ptr<float> x, Ptr<float> blocks, Ptr<float> middle) {
    attrs.blocks = 1;
    attrs.warps = 4;
    const Layout layout = Layout::local({1, 4}) * Layout::spatial({32, 4}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {32, 64}), {0, 0}, {32, 64}, layout);
    for (int j = 0; j < 4; ++j)
      store_global(global_view(blocks, {32, 64}), t.slice({0, 16 * j}, {32, 16}) * float(j + 1), {0, 16 * j});
    store_global(global_view(middle, {32, 32}), t.slice({0, 16}, {32, 32}), {0, 0});
  }
};

inline void check_column_block_slices(const Device& dev) {
  std::vector<float> x(32 * 64);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-4, 4);
  for (auto& v : x) v = dist(rng);
  Buffer<float> dx(dev, x), dblocks(dev, std::vector<float>(32 * 64, 9e9f)),
      dmiddle(dev, std::vector<float>(32 * 32, 9e9f));
  Kernel<ColumnBlockSlices> k(dev);
  k(dx, dblocks, dmiddle);
  const auto blocks = dblocks.download();
  const auto middle = dmiddle.download();
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 64; ++c) EXPECT_EQ(blocks[r * 64 + c], x[r * 64 + c] * float(c / 16 + 1)) << r << ", " << c;
    for (int c = 0; c < 32; ++c) EXPECT_EQ(middle[r * 32 + c], x[r * 64 + 16 + c]) << r << ", " << c;
  }
}

// Unsigned 64-bit values (the width of an mbarrier word): scalars past 32 bits and past 2^63,
// where unsigned order, division and right shifts differ from signed ones, and u64 tiles.
struct Unsigned64BitValues : Script {
  void operator()(Int32 seed, Ptr<uint64_t> x, Ptr<uint64_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    UInt64 word = cast<uint64_t>(seed) << 40;
    word += 0xffffffffull;
    UInt64 top = word | (1ull << 63);
    auto rows = global_view(out, {5, 32});
    store_global(rows, register_tensor<uint64_t>({1, 32}, word), {0, 0});
    store_global(rows, register_tensor<uint64_t>({1, 32}, top / 3 + (top >> 60)), {1, 0});
    store_global(rows, register_tensor<uint64_t>({1, 32}, select(top > word, top % 1000003, word)), {2, 0});
    auto t = load_global(global_view(x, {1, 32}), {0, 0}, {1, 32});
    store_global(rows, maximum(t, top) / 7 + t * 3, {3, 0});
    store_global(rows, register_tensor<int32_t>({1, 32}, -seed).to<uint64_t>(), {4, 0});
  }
};

inline void check_unsigned_64_bit_values(const Device& dev) {
  const int seed = 0x3abcd;
  std::mt19937_64 rng(17);
  std::vector<uint64_t> x(32);
  for (auto& v : x) v = rng();
  Buffer<uint64_t> dx(dev, x), dout(dev, std::vector<uint64_t>(5 * 32, 0));
  Kernel<Unsigned64BitValues> k(dev);
  k(seed, dx, dout);
  const auto got = dout.download();
  const uint64_t word = (uint64_t(seed) << 40) + 0xffffffffull;
  const uint64_t top = word | (uint64_t(1) << 63);
  for (int j = 0; j < 32; ++j) {
    EXPECT_EQ(got[j], word) << j;
    EXPECT_EQ(got[32 + j], top / 3 + (top >> 60)) << j;
    EXPECT_EQ(got[64 + j], top % 1000003) << j;
    EXPECT_EQ(got[96 + j], std::max(x[j], top) / 7 + x[j] * 3) << j;
    EXPECT_EQ(got[128 + j], uint64_t(int64_t(-seed))) << j;  // sign-extended, as in C
  }
}

// A persistent kernel: min(tiles, multiprocessors) blocks, each looping over the tiles blockIdx.x,
// blockIdx.x + gridDim.x, ... Every tile writes y = 2x + 1 and records the block that did it and
// the value of multiprocessors inside the body.
struct PersistentTiles : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y, Ptr<int32_t> tile_records) {
    Int32 tiles = cdiv(n, 64);
    attrs.blocks = min(tiles, multiprocessors);
    attrs.warps = 2;
    auto gx = global_view(x, {n}), gy = global_view(y, {n});
    auto records = global_view(tile_records, {tiles, 2});
    for (Int32 t : range(blockIdx.x, tiles, gridDim.x)) {
      store_global(gy, load_global(gx, {t * 64}, {64}) * 2.0f + 1.0f, {t * 64});
      single_thread([&] {
        store_global(records, register_tensor<int32_t>({1, 1}, blockIdx.x), {t, 0});
        store_global(records, register_tensor<int32_t>({1, 1}, multiprocessors), {t, 1});
      });
    }
  }
};

// `multiprocessors` is the device's multiprocessor count under `options`.
inline void check_persistent_tiles(const Device& dev, const KernelOptions& options, int multiprocessors) {
  const int n = 1000, tiles = cdiv(n, 64);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);
  Buffer<float> dx(dev, x), dy(dev, std::vector<float>(n, 9e9f));
  Buffer<int32_t> drecords(dev, std::vector<int32_t>(tiles * 2, -1));
  Kernel<PersistentTiles> k(dev, options);
  EXPECT_EQ(k.multiprocessors(), multiprocessors);
  k(n, dx, dy, drecords);
  const auto y = dy.download();
  const auto records = drecords.download();
  for (int i = 0; i < n; ++i) EXPECT_EQ(y[i], 2 * x[i] + 1) << "element " << i;
  const int blocks = std::min(tiles, multiprocessors);
  for (int t = 0; t < tiles; ++t) {
    EXPECT_EQ(records[2 * t], t % blocks) << "block of tile " << t;
    EXPECT_EQ(records[2 * t + 1], multiprocessors) << "multiprocessors at tile " << t;
  }
}

}  // namespace tessel::testing
