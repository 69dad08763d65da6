// Atomics and reductions across warps, with host expectations: one-pass column sums over many
// blocks, counters whose old values are a permutation, compare-and-exchange claims, a flag handed
// between blocks with release and acquire, and row reductions whose rows span every warp. Run on
// the simulator by tests/atomics_test.cpp and on the GPU by tests/gpu/atomics_gpu_test.cpp.
#pragma once

#include <algorithm>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Column sums of an [n_rows, 256] matrix in one pass: each block sums its 16 rows and adds the
// [1, 256] partial into the output with a tile atomic (red); the partial's replicas add once.
template <class T> struct ColumnSums : Script {
  void operator()(Int32 n_rows, Ptr<T> x, Ptr<T> sums) {
    attrs.blocks = cdiv(n_rows, 16);
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n_rows, 256}), {blockIdx.x * 16, 0}, {16, 256});
    atomic.add(global_view(sums, {1, 256}), sum(t, 0), {0, 0});
  }
};

template <class T> void check_column_sums(const Device& dev, int rows, const sim::Options& options = {}) {
  std::mt19937 rng(11);
  std::vector<T> x(size_t(rows) * 256);
  for (T& v : x) v = std::is_floating_point_v<T> ? T(int(rng() % 2001) - 1000) / T(64) : T(int(rng() % 2001) - 1000);
  Buffer<T> dx(dev, x), dsums(dev, std::vector<T>(256, T(0)));
  Kernel<ColumnSums<T>>(dev, KernelOptions{.sim = options})(rows, dx, dsums);
  const auto got = dsums.download();
  for (int c = 0; c < 256; ++c) {
    double want = 0;
    for (int r = 0; r < rows; ++r) want += double(x[size_t(r) * 256 + c]);
    // Multiples of 1/64 below 2^17 add exactly in f32, in any order.
    EXPECT_EQ(double(got[size_t(c)]), want) << "column " << c;
  }
}

// Tickets: every element of every block's [64] tile of ones is added into one counter (a view whose
// stride is 0), and receives the count before it; the tickets are a permutation of 0..255. Within
// each block, every thread adds 1 to a shared counter and receives its ticket, and the block adds
// the largest and the sum of its tickets into global words.
struct Tickets : Script {
  void operator()(Ptr<uint32_t> counter, Ptr<uint32_t> tickets, Ptr<uint32_t> block_stats) {
    attrs.blocks = 4;
    attrs.warps = 2;
    auto ones = register_tensor<uint32_t>({64}, 1u, Layout::spatial({64}));
    auto ticket = atomic.fetch_add(global_view(counter, {64}, {0}), ones, {0});
    store_global(global_view(tickets, {256}), ticket, {blockIdx.x * 64});
    auto local = shared_tensor<uint32_t>({1});
    single_thread([&] { atomic.store(local, {0}, 0u); });
    sync();
    auto mine = atomic.fetch_add(local, {0}, 1u);
    atomic.max(global_view(block_stats, {4, 2}), {blockIdx.x, 0}, mine);
    atomic.add(global_view(block_stats, {4, 2}), {blockIdx.x, 1}, mine);
  }
};

inline void check_tickets(const Device& dev, const sim::Options& options = {}) {
  Buffer<uint32_t> counter(dev, std::vector<uint32_t>{0}), tickets(dev, std::vector<uint32_t>(256, 999)),
      stats(dev, std::vector<uint32_t>(8, 0));
  Kernel<Tickets>(dev, KernelOptions{.sim = options})(counter, tickets, stats);
  auto t = tickets.download();
  std::sort(t.begin(), t.end());
  for (uint32_t i = 0; i < 256; ++i) EXPECT_EQ(t[i], i);
  EXPECT_EQ(counter.download()[0], 256u);
  const auto s = stats.download();
  for (int block = 0; block < 4; ++block) {
    EXPECT_EQ(s[size_t(block) * 2], 63u) << "block " << block;
    EXPECT_EQ(s[size_t(block) * 2 + 1], 63u * 64 / 2) << "block " << block;
  }
}

// min, max, and, or and xor of a tile into one word each (views of stride 0), and claims by
// compare-and-exchange: element (r, c) of each block's [4, 32] tile claims slot c with its id + 1
// where the slot still holds 0; `won` says which claims found 0.
struct CombineAndClaim : Script {
  void operator()(Ptr<int32_t> x, Ptr<int32_t> extremes, Ptr<uint32_t> bits, Ptr<int32_t> slots, Ptr<int32_t> won) {
    attrs.blocks = 2;
    attrs.warps = 2;
    // Word w of extremes (and of bits) is element (w, i) for every i: strides [1, 0].
    auto t = load_global(global_view(x, {2, 64}), {blockIdx.x, 0}, {1, 64});
    auto extreme = global_view(extremes, {2, 64}, {1, 0});
    atomic.min(extreme, t, {0, 0});
    atomic.max(extreme, t, {1, 0});
    auto u = t.bitcast<uint32_t>();
    auto word = global_view(bits, {3, 64}, {1, 0});
    atomic.bit_and(word, u, {0, 0});
    atomic.bit_or(word, u, {1, 0});
    atomic.bit_xor(word, u, {2, 0});
    // One thread per element: a tile with replicas could not return each claim's old value.
    const Layout one_each = Layout::spatial({2, 32}) * Layout::local({2, 1});
    auto id = arange({4, 32}, 0, one_each) * 32 + arange({4, 32}, 1, one_each) + blockIdx.x * 128 + 1;
    auto previous = atomic.compare_exchange(global_view(slots, {4, 32}, {0, 1}), id * 0, id, {0, 0});
    store_global(global_view(won, {8, 32}), (previous == 0).to<int32_t>(), {blockIdx.x * 4, 0});
  }
};

inline void check_combine_and_claim(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(5);
  std::vector<int32_t> x(128);
  for (int32_t& v : x) v = int32_t(rng());
  Buffer<int32_t> dx(dev, x), extremes(dev, std::vector<int32_t>{INT32_MAX, INT32_MIN}),
      slots(dev, std::vector<int32_t>(32, 0)), won(dev, std::vector<int32_t>(256, 7));
  Buffer<uint32_t> bits(dev, std::vector<uint32_t>{0xffffffffu, 0, 0});
  Kernel<CombineAndClaim>(dev, KernelOptions{.sim = options})(dx, extremes, bits, slots, won);
  const auto e = extremes.download();
  EXPECT_EQ(e[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(e[1], *std::max_element(x.begin(), x.end()));
  uint32_t all = 0xffffffffu, any = 0, parity = 0;
  for (int32_t v : x) {
    all &= uint32_t(v);
    any |= uint32_t(v);
    parity ^= uint32_t(v);
  }
  EXPECT_EQ(bits.download(), (std::vector<uint32_t>{all, any, parity}));
  const auto s = slots.download();
  const auto w = won.download();
  for (int c = 0; c < 32; ++c) {
    int winners = 0;
    for (int r = 0; r < 8; ++r) {
      const int32_t id = (r / 4) * 128 + (r % 4) * 32 + c + 1;
      EXPECT_TRUE(w[size_t(r) * 32 + c] == 0 || w[size_t(r) * 32 + c] == 1);
      if (w[size_t(r) * 32 + c] == 1) {
        ++winners;
        EXPECT_EQ(s[size_t(c)], id) << "slot " << c;
      }
    }
    EXPECT_EQ(winners, 1) << "slot " << c;
  }
}

// A handoff between blocks: block `Writer` stores a tile, then releases a flag; block 1 - Writer
// spins until it acquires the flag, then copies the tile. With `Order` relaxed, or a scope that
// does not include the other block, nothing orders the copy after the store.
template <int Writer, MemoryOrder Release = MemoryOrder::release, MemoryOrder Acquire = MemoryOrder::acquire,
          MemoryScope Scope = MemoryScope::gpu>
struct FlagHandoff : Script {
  void operator()(Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 2;
    auto flag_view = global_view(flag, {1});
    if_(blockIdx.x == Writer, [&] {
      store_global(global_view(data, {64}), register_tensor<float>({64}, 2.5f) + arange({64}, 0).to<float>(), {0});
      sync();
      single_thread([&] { atomic.store(flag_view, {0}, 1, Release, Scope); });
    }).else_([&] {
      single_thread([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}, Acquire, Scope); });
      });
      sync();
      store_global(global_view(copy, {64}), load_global(global_view(data, {64}), {0}, {64}), {0});
    });
  }
};

template <int Writer> void check_flag_handoff(const Device& dev, const sim::Options& options = {}) {
  Buffer<float> data(dev, std::vector<float>(64, -1.0f)), copy(dev, std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(dev, std::vector<int32_t>{0});
  Kernel<FlagHandoff<Writer>>(dev, KernelOptions{.sim = options})(data, flag, copy);
  const auto got = copy.download();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[size_t(i)], 2.5f + float(i)) << i;
}

// FlagHandoff with a relaxed flag, ordered by memory fences (the release and acquire patterns of
// the PTX memory model): the writer fences between its data and the flag, the reader between the
// flag and its loads. Without either fence, or with one whose scope leaves out the other block,
// nothing orders the copy after the store.
template <int Writer, bool WriterFences = true, bool ReaderFences = true, bool Sc = false,
          MemoryScope FenceScope = MemoryScope::gpu, MemoryScope ReaderScope = FenceScope>
struct FencedFlagHandoff : Script {
  void memory_fence(MemoryScope scope) {
    if (Sc)
      fence.sc(scope);
    else
      fence.acq_rel(scope);
  }
  void operator()(Ptr<float> data, Ptr<int32_t> flag, Ptr<float> copy) {
    attrs.blocks = 2;
    attrs.warps = 2;
    auto flag_view = global_view(flag, {1});
    auto data_view = global_view(data, {64});
    if_(blockIdx.x == Writer, [&] {
      store_global(data_view, register_tensor<float>({64}, 2.5f) + arange({64}, 0).to<float>(), {0});
      sync();
      single_thread([&] {
        if (WriterFences) memory_fence(FenceScope);
        atomic.store(flag_view, {0}, 1);
      });
    }).else_([&] {
      single_thread([&] {
        Var<int32_t> seen(0);
        while_([&] { return seen == 0; }, [&] { seen = atomic.load<int32_t>(flag_view, {0}); });
        if (ReaderFences) memory_fence(ReaderScope);
      });
      sync();
      store_global(global_view(copy, {64}), load_global(data_view, {0}, {64}), {0});
    });
  }
};

template <int Writer, bool Sc> void check_fenced_flag_handoff(const Device& dev, const sim::Options& options = {}) {
  Buffer<float> data(dev, std::vector<float>(64, -1.0f)), copy(dev, std::vector<float>(64, -1.0f));
  Buffer<int32_t> flag(dev, std::vector<int32_t>{0});
  Kernel<FencedFlagHandoff<Writer, true, true, Sc>>(dev, KernelOptions{.sim = options})(data, flag, copy);
  const auto got = copy.download();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[size_t(i)], 2.5f + float(i)) << i;
}

// A histogram of values by scatter atomics: each block counts its 256 values into a histogram of
// its own in shared memory, then adds it into the global one; the largest value of each bin goes
// straight to global memory. Values outside [0, 32) are counted nowhere.
struct Histogram : Script {
  void operator()(Int32 n, Ptr<int32_t> x, Ptr<int32_t> counts, Ptr<int32_t> largest) {
    attrs.blocks = cdiv(n, 256);
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n}), {blockIdx.x * 256}, {256}, Layout{}, -1);
    auto local = shared_tensor<int32_t>({32});
    store_shared(local, register_tensor<int32_t>({32}, 0));
    sync();
    atomic.scatter_add(local, t, register_tensor<int32_t>({256}, 1));
    sync();
    atomic.add(global_view(counts, {32}), load_shared(local), {0});
    atomic.scatter_max(global_view(largest, {32}), t, t * 3);
  }
};

inline void check_histogram(const Device& dev, const sim::Options& options = {}) {
  const int n = 1000;
  std::mt19937 rng(21);
  std::vector<int32_t> x(n);
  for (auto& v : x) v = int32_t(rng() % 40) - 4;
  Buffer<int32_t> dx(dev, x), counts(dev, std::vector<int32_t>(32, 0)), largest(dev, std::vector<int32_t>(32, -1));
  Kernel<Histogram>(dev, KernelOptions{.sim = options})(n, dx, counts, largest);
  std::vector<int32_t> want_counts(32, 0), want_largest(32, -1);
  for (int32_t v : x)
    if (v >= 0 && v < 32) {
      ++want_counts[size_t(v)];
      want_largest[size_t(v)] = std::max(want_largest[size_t(v)], 3 * v);
    }
  EXPECT_EQ(counts.download(), want_counts);
  EXPECT_EQ(largest.download(), want_largest);
}

// Tokens take places in their expert's list: scatter_fetch_add returns each token's place, and the
// counts per expert are left in `counts`.
struct TokenPlaces : Script {
  void operator()(Int32 n, Ptr<int32_t> expert, Ptr<int32_t> counts, Ptr<int32_t> places) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    // No layout pinned: a fetch form's values get one without copies, so that each old value goes
    // back to the one thread that holds it.
    auto e = load_global(global_view(expert, {n}), {blockIdx.x * 128}, {128}, Layout{}, -1);
    auto place = atomic.scatter_fetch_add(global_view(counts, {8}), e, register_tensor<int32_t>({128}, 1));
    store_global(global_view(places, {n}), place, {blockIdx.x * 128});
  }
};

inline void check_token_places(const Device& dev, const sim::Options& options = {}) {
  const int n = 700;
  std::mt19937 rng(22);
  std::vector<int32_t> expert(n);
  for (auto& v : expert) v = int32_t(rng() % 8);
  Buffer<int32_t> de(dev, expert), counts(dev, std::vector<int32_t>(8, 0)), places(dev, std::vector<int32_t>(n, -7));
  Kernel<TokenPlaces>(dev, KernelOptions{.sim = options})(n, de, counts, places);
  const auto got_counts = counts.download(), got_places = places.download();
  std::vector<std::vector<int32_t>> taken(8);
  for (int i = 0; i < n; ++i) taken[size_t(expert[size_t(i)])].push_back(got_places[size_t(i)]);
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(got_counts[size_t(k)], int32_t(taken[size_t(k)].size())) << "expert " << k;
    std::sort(taken[size_t(k)].begin(), taken[size_t(k)].end());
    for (size_t j = 0; j < taken[size_t(k)].size(); ++j) EXPECT_EQ(taken[size_t(k)][j], int32_t(j)) << "expert " << k;
  }
}

// Row sums and maxima of [4, 1024] tiles whose rows span all 8 warps of the block, and of [2, 512]
// tiles of the second warpgroup alone (a named barrier).
template <class T> struct RowsAcrossWarps : Script {
  void operator()(Ptr<T> x, Ptr<T> sums, Ptr<T> maxima, Ptr<T> group_sums) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto t = load_global(global_view(x, {4, 1024}), {0, 0}, {4, 1024});
    store_global(global_view(sums, {4, 1}), sum(t, 1), {0, 0});
    store_global(global_view(maxima, {4, 1}), max(t, 1), {0, 0});
    warp_group(1, [&] {
      auto g = load_global(global_view(x, {4, 1024}), {0, 0}, {2, 512});
      store_global(global_view(group_sums, {2, 1}), sum(g, 1), {0, 0});
    });
  }
};

template <class T> void check_rows_across_warps(const Device& dev, const sim::Options& options = {}) {
  std::mt19937 rng(9);
  std::vector<T> x(4096);
  for (T& v : x) v = T(int(rng() % 2001) - 1000) / T(std::is_floating_point_v<T> ? 16 : 1);
  Buffer<T> dx(dev, x), sums(dev, std::vector<T>(4, T(-7))), maxima(dev, std::vector<T>(4, T(-7))),
      group_sums(dev, std::vector<T>(2, T(-7)));
  Kernel<RowsAcrossWarps<T>>(dev, KernelOptions{.sim = options})(dx, sums, maxima, group_sums);
  const auto s = sums.download(), m = maxima.download(), g = group_sums.download();
  for (int r = 0; r < 4; ++r) {
    double total = 0, largest = -1e30, group = 0;
    for (int c = 0; c < 1024; ++c) {
      total += double(x[size_t(r) * 1024 + c]);
      largest = std::max(largest, double(x[size_t(r) * 1024 + c]));
      if (c < 512) group += double(x[size_t(r) * 1024 + c]);
    }
    // Multiples of 1/16 below 2^20 add exactly in f32, in any order.
    EXPECT_EQ(double(s[size_t(r)]), total) << "row " << r;
    EXPECT_EQ(double(m[size_t(r)]), largest) << "row " << r;
    if (r < 2) EXPECT_EQ(double(g[size_t(r)]), group) << "row " << r;
  }
}

}  // namespace tessel::testing
