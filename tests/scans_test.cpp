// Scans on the simulator (scans_kernels.hpp) under every order, and a layout they cannot walk.
#include <random>

#include "expect_error.hpp"
#include "scans_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Scans, AcrossWarpsAndWithinAWarp) {
  for (const sim::Options& o : every_order()) {
    check_scans<float>(Device::simulator(), o);
    check_scans<int32_t>(Device::simulator(), o);
  }
}

TEST(Scans, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    float* f = nullptr;
    EXPECT_GT(Kernel<Scans<float>>(Device::simulator(), KernelOptions{arch}).cubin(f, f, f).size(), 0u) << arch;
  }
}

// An exclusive cumsum of an [R, C] tile along `Dim` whose layout nothing pins: layout inference
// gives the scan its runs.
template <int R, int C, int Dim, int Warps> struct ScanOfAnUnpinnedTile : Script {
  void operator()(Ptr<int32_t> x, Ptr<int32_t> y) {
    attrs.blocks = 1;
    attrs.warps = Warps;
    auto t = load_global(global_view(x, {R, C}), {0, 0}, {R, C});
    store_global(global_view(y, {R, C}), cumsum(t, Dim, ScanKind::exclusive), {0, 0});
  }
};

template <int R, int C, int Dim, int Warps> void check_unpinned_scan() {
  std::mt19937 rng(R * 131 + C);
  std::vector<int32_t> x(static_cast<size_t>(R * C)), want(x.size());
  for (int32_t& v : x) v = int32_t(rng() % 2001) - 1000;
  for (int line = 0; line < (Dim == 1 ? R : C); ++line) {
    int32_t total = 0;
    for (int k = 0; k < (Dim == 1 ? C : R); ++k) {
      const size_t i = Dim == 1 ? size_t(line) * C + k : size_t(k) * C + line;
      want[i] = total;
      total += x[i];
    }
  }
  Buffer<int32_t> dx(Device::simulator(), x);
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> y(Device::simulator(), std::vector<int32_t>(x.size(), -7));
    Kernel<ScanOfAnUnpinnedTile<R, C, Dim, Warps>>(Device::simulator(), KernelOptions{.sim = o})(dx, y);
    EXPECT_EQ(y.download(), want) << R << "x" << C << " along " << Dim << " in " << Warps << " warps";
  }
}

TEST(Scans, ATileWithoutAPinnedLayoutGetsOneThatWalksTheDimension) {
  check_unpinned_scan<1, 4096, 1, 8>();
  check_unpinned_scan<2, 8192, 1, 8>();
  check_unpinned_scan<3, 1000, 1, 8>();
  check_unpinned_scan<2, 96, 1, 3>();
  check_unpinned_scan<200, 3, 0, 4>();
  // Lines of 5 positions over 5 warps: 5 threads to a line would straddle warps.
  check_unpinned_scan<5, 96, 0, 5>();
}

// A sum of an [R, C] tile along `Dim` whose layout nothing pins, where the coalescing default puts
// rows of 24 threads across warps (a [1, 96] tile in 3 warps).
template <int R, int C, int Dim, int Warps> struct SumOfAnUnpinnedTile : Script {
  void operator()(Ptr<int32_t> x, Ptr<int32_t> y) {
    attrs.blocks = 1;
    attrs.warps = Warps;
    auto t = load_global(global_view(x, {R, C}), {0, 0}, {R, C});
    store_global(global_view(y, {Dim == 1 ? R : 1, Dim == 1 ? 1 : C}), sum(t, Dim), {0, 0});
  }
};

template <int R, int C, int Dim, int Warps> void check_unpinned_sum() {
  std::mt19937 rng(R * 17 + C);
  std::vector<int32_t> x(static_cast<size_t>(R * C)), want(size_t(Dim == 1 ? R : C), 0);
  for (int32_t& v : x) v = int32_t(rng() % 2001) - 1000;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) want[size_t(Dim == 1 ? r : c)] += x[size_t(r) * C + c];
  Buffer<int32_t> dx(Device::simulator(), x);
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> y(Device::simulator(), std::vector<int32_t>(want.size(), -7));
    Kernel<SumOfAnUnpinnedTile<R, C, Dim, Warps>>(Device::simulator(), KernelOptions{.sim = o})(dx, y);
    EXPECT_EQ(y.download(), want) << R << "x" << C << " along " << Dim << " in " << Warps << " warps";
  }
}

TEST(Scans, AReductionWhoseDefaultLayoutCannotCombineGetsOneThatCan) {
  check_unpinned_sum<1, 96, 1, 3>();
  check_unpinned_sum<5, 96, 1, 5>();
  check_unpinned_sum<7, 33, 0, 3>();
}

// Each thread holds 4 runs of 4 columns, 128 columns apart: no run of consecutive positions.
struct ScanOfInterleavedRuns : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout runs = Layout::local({1, 4}) * Layout::spatial({1, 32}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {1, 512}), {0, 0}, {1, 512}, runs);
    store_global(global_view(x, {1, 512}), cumsum(t, 1), {0, 0});
  }
};

TEST(Scans, ALayoutOutOfScanOrderIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(error_of<ScanOfInterleavedRuns>(x),
            source_at("tests/scans_test.cpp", "cumsum(t, 1)") +
                ": cumsum over dim 1: the layout layout[1,512](d0=1 d1=4x32x4; threads=d1.1; local=d1.0,d1.2) does "
                "not give each thread a run of consecutive positions along the dimension, the runs following the "
                "lanes and then the warps in order; pin one such as Layout::spatial(...) * Layout::local(...) with "
                "the threads outer and each thread's run inner along dim 1 (for a tile whose layout another "
                "instruction fixes, scan convert_layout(x, layout))");
}

// Rows of 24 threads, with two copies of the tile: row 1 of the first copy is threads 24 to 47,
// across the boundary of warps 0 and 1, so no warp holds all of it. Scanned, it came out wrong
// (the last third of row 0 too, from the totals of both copies); a sum is refused alike.
template <bool Scan> struct RowsAcrossAWarpBoundary : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 3;
    const Layout rows = Layout::replicated(2, 2) * Layout::spatial({2, 24}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {2, 96}), {0, 0}, {2, 96}, rows);
    if (Scan)
      store_global(global_view(y, {2, 96}), cumsum(t, 1), {0, 0});
    else
      store_global(global_view(y, {2, 1}), sum(t, 1), {0, 0});
  }
};

TEST(Scans, ALayoutWhoseRowsCrossAWarpBoundaryIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(192, 1.0f)), y(Device::simulator(), 192);
  const std::string layout = "layout[2,96](d0=2 d1=24x4; threads=rep2,d0.0,d1.0; local=d1.1)";
  EXPECT_EQ(error_of<RowsAcrossAWarpBoundary<true>>(x, y),
            source_at("tests/scans_test.cpp", "store_global(global_view(y, {2, 96}), cumsum(t, 1)") +
                ": cumsum over dim 1: the threads spanning that "
                "dimension in " +
                layout +
                " cross a warp boundary unevenly; choose a layout whose threads along dim "
                "1 fill whole warps, such as Layout::spatial(...) * Layout::local(...) with a power of two of threads "
                "along it");
  EXPECT_EQ(error_of<RowsAcrossAWarpBoundary<false>>(x, y),
            source_at("tests/scans_test.cpp", "store_global(global_view(y, {2, 1}), sum(t, 1)") +
                ": sum over dim 1: the threads spanning that dimension "
                "in " +
                layout +
                " cross a warp boundary unevenly; choose a layout whose threads along dim 1 fill "
                "whole warps");
}

// A thread group that starts 8 threads into warp 0: the 16 threads of each row of its [3, 16]
// tile (one element a thread) are threads 8..23, 24..39 and 40..55 of the block, and the second
// straddles two warps (its scan and its sum came out wrong).
template <bool Scan> struct RowsOfAGroupThatStartsInsideAWarp : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 2;
    thread_group(8, 48, [&] {
      auto t = load_global(global_view(x, {3, 16}), {0, 0}, {3, 16}, Layout::spatial({3, 16}));
      if (Scan)
        store_global(global_view(y, {3, 16}), cumsum(t, 1), {0, 0});
      else
        store_global(global_view(y, {3, 1}), sum(t, 1), {0, 0});
    });
  }
};

TEST(Scans, ReductionsOfAGroupWhoseRowsStraddleWarpsAreRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(48, 1.0f)), y(Device::simulator(), 48);
  const std::string rest =
      ": the thread group (threads 8..55) starts at thread 8 of the block, so the runs of 16 "
      "threads that hold each line along that dimension in layout[3,16](d0=3 d1=16; "
      "threads=d0.0,d1.0; local=-) straddle two warps; start the group at a multiple of 16 threads";
  EXPECT_EQ(error_of<RowsOfAGroupThatStartsInsideAWarp<true>>(x, y),
            source_at("tests/scans_test.cpp", "store_global(global_view(y, {3, 16}), cumsum(t, 1)") +
                ": cumsum over dim 1" + rest);
  EXPECT_EQ(
      error_of<RowsOfAGroupThatStartsInsideAWarp<false>>(x, y),
      source_at("tests/scans_test.cpp", "store_global(global_view(y, {3, 1}), sum(t, 1)") + ": sum over dim 1" + rest);
}

}  // namespace
}  // namespace tessel::testing
