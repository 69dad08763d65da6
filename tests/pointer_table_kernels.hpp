// Kernels over pointers held in memory: a table of pointers to separately allocated matrices, and a
// pointer's bytes viewed as elements of another type. Run on the simulator
// (tests/pointer_tables_test.cpp) and on the GPU (tests/gpu/pointer_tables_gpu_test.cpp).
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {

// Block g reads the [8, 64] matrix that entry g of `table` points to (promised 16-byte aligned),
// and writes it times g + 1 to block g's rows of `out` [groups * 8, 64].
struct ScalesMatricesOfATable : Script {
  static inline int made_line = 0, load_line = 0;
  void operator()(Int32 groups, Ptr<uint64_t> table, Ptr<float> out) {
    attrs.blocks = groups;
    attrs.warps = 2;
    Var<uint64_t> address = atomic.load<uint64_t>(global_view(table, {groups}), {blockIdx.x});
    made_line = __LINE__ + 1;
    Ptr<float> matrix = as_pointer<float>(address, 16);
    load_line = __LINE__ + 1;
    auto t = load_global(global_view(matrix, {8, 64}), {0, 0}, {8, 64});
    store_global(global_view(out, {groups * 8, 64}), t * (blockIdx.x + 1).to<float>(), {blockIdx.x * 8, 0});
  }
};

// The same over a table of int64 addresses (what a framework's tensor of data pointers holds), read
// through the non-coherent cache as a one-element tile, each matrix's pointer promised only its
// element's alignment.
struct ScalesMatricesOfASignedTable : Script {
  void operator()(Int32 groups, Ptr<int64_t> table, Ptr<float> out) {
    attrs.blocks = groups;
    attrs.warps = 2;
    Var<int64_t> address = load_global(global_view(table, {groups}).read_only(), {blockIdx.x}, {1}).item<int64_t>();
    Ptr<float> matrix = as_pointer<float>(address);
    auto t = load_global(global_view(matrix, {8, 64}), {0, 0}, {8, 64});
    store_global(global_view(out, {groups * 8, 64}), t * (blockIdx.x + 1).to<float>(), {blockIdx.x * 8, 0});
  }
};

// The f16 pairs of x [n] as u32 words: each word's low half is the even element.
struct ReadsHalvesAsWords : Script {
  void operator()(Int32 n, Ptr<f16> x, Ptr<uint32_t> words) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Ptr<uint32_t> pairs = as_pointer<uint32_t>(x.address(), 16);
    store_global(global_view(words, {n / 2}), load_global(global_view(pairs, {n / 2}), {0}, {128}), {0});
  }
};

// An alignment that is not a power of two: refused at the call.
struct MakesAPointerAlignedToSix : Script {
  void operator()(Ptr<uint64_t> table, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Var<uint64_t> address = atomic.load<uint64_t>(global_view(table, {1}), {0});
    Ptr<float> p = as_pointer<float>(address, 6);
    store_global(global_view(out, {32}), load_global(global_view(p, {32}), {0}, {32}), {0});
  }
};

// A TMA load through a pointer read from a table: refused, since tensor maps are made on the host.
struct TmaLoadThroughATableEntry : Script {
  void operator()(Ptr<uint64_t> table, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32});
    auto bars = mbarrier.alloc({1});
    Var<uint64_t> address = atomic.load<uint64_t>(global_view(table, {1}), {0});
    Ptr<float> entry = as_pointer<float>(address, 16);
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
      tma.global_to_shared(global_view(entry, {8, 32}), s, {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s), {0, 0});
  }
};

// A TMA load of x's words as floats through a pointer made from the parameter's address: known at
// launch, so its tensor map is made on the host as a parameter's.
struct TmaLoadThroughAReinterpretedParameter : Script {
  void operator()(Ptr<uint32_t> x, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32});
    auto bars = mbarrier.alloc({1});
    Ptr<float> floats = as_pointer<float>(x.address(), 16);
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
      tma.global_to_shared(global_view(floats, {8, 32}), s, {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s), {0, 0});
  }
};

// Adds 1 to the vector the table's first entry points to, with a tuned block size: timing runs
// would add it again, through a pointer whose buffer tuning does not know.
struct IncrementsThroughATable : Script {
  int block = 128;
  static Space space() { return tune("block", &IncrementsThroughATable::block, {128, 256}); }
  static inline int made_line = 0;
  void operator()(Int32 n, Ptr<uint64_t> table) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = block / 32;
    Var<uint64_t> address = atomic.load<uint64_t>(global_view(table, {1}), {0});
    made_line = __LINE__ + 1;
    auto v = global_view(as_pointer<float>(address, 16), {n});
    auto t = load_global(v, {blockIdx.x * block}, {block}, Layout::spatial({block}));
    store_global(v, t + 1.0f, {blockIdx.x * block});
  }
};

// Copies the first n (at most 32) floats the table's first entry points to, promised 16-byte aligned.
struct CopiesAPrefixThroughATable : Script {
  void operator()(Int32 n, Ptr<uint64_t> table, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Var<uint64_t> address = atomic.load<uint64_t>(global_view(table, {1}), {0});
    Ptr<float> prefix = as_pointer<float>(address, 16);
    store_global(global_view(out, {n}), load_global(global_view(prefix, {n}), {0}, {32}), {0});
  }
};

// Runs a ScalesMatricesOf(A|ASigned)Table kernel over `groups` separately allocated random matrices
// and checks each block's rows against the host.
template <class Kernel_, class Address>
void check_table_of_pointers(const Device& dev, int groups, const KernelOptions& options) {
  std::mt19937 gen{uint32_t(groups * 13 + 1)};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<std::vector<float>> matrices(size_t(groups), std::vector<float>(8 * 64));
  std::vector<Buffer<float>> buffers;
  std::vector<Address> table;
  for (auto& m : matrices) {
    for (float& v : m) v = dist(gen);
    buffers.emplace_back(dev, m);
    table.push_back(Address(reinterpret_cast<uintptr_t>(buffers.back().data())));
  }
  Buffer<Address> dtable(dev, table);
  Buffer<float> out(dev, std::vector<float>(size_t(groups) * 8 * 64, -77.0f));
  Kernel<Kernel_>(dev, options)(groups, dtable, out);
  const auto got = out.download();
  for (int g = 0; g < groups; ++g)
    for (size_t i = 0; i < 8 * 64; ++i)
      ASSERT_EQ(got[size_t(g) * 512 + i], matrices[size_t(g)][i] * float(g + 1)) << g << ", " << i;
}

inline void check_halves_as_words(const Device& dev, const KernelOptions& options) {
  std::mt19937 gen{17};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<f16> x(256);
  for (f16& v : x) v = f16(dist(gen));
  Buffer<f16> dx(dev, x);
  Buffer<uint32_t> words(dev, std::vector<uint32_t>(128, 0xdeadbeef));
  Kernel<ReadsHalvesAsWords>(dev, options)(256, dx, words);
  const auto got = words.download();
  for (size_t i = 0; i < 128; ++i) ASSERT_EQ(got[i], uint32_t(x[2 * i].bits) | uint32_t(x[2 * i + 1].bits) << 16) << i;
}

// "<file>:<line>" of a line of this file, as reports write it.
inline std::string pointer_table_kernels_line(int line) { return fmt::format("{}:{}", __FILE__, line); }

}  // namespace tessel::testing
