// Kernels for debug mode: a wait on an mbarrier whose parity is a run-time argument (the wrong one
// never completes), the same with a try_wait loop, a copy whose view may be larger than its
// buffers, and a TMA box that may start off its alignment. Each records the lines the reports must name when it is
// traced. Their code is checked by tests/debug_mode_test.cpp, their reports on the GPU by tests/gpu/debug_gpu_test.cpp.
#pragma once

#include "tessel/tessel.hpp"

namespace tessel::testing {

// Warp 0 arrives once on the barrier, completing its phase of parity 0; warp 1 waits for the phase
// of parity `parity`, then writes 32 ones. With parity 1 the wait never ends.
struct WaitsForAPhase : Script {
  static inline int alloc_line = 0, wait_line = 0;
  void operator()(UInt32 parity, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    thread_group(0, 32, [&] { single_thread([&] { mbarrier.arrive(bars[0]); }); });
    thread_group(32, 32, [&] {
      wait_line = __LINE__ + 1;
      mbarrier.wait(bars[0], parity);
      store_global(global_view(out, {32}), register_tensor<float>({32}, 1.0f), {0});
    });
  }
};

// The same wait as a loop of try_wait.
struct SpinsForAPhase : Script {
  static inline int alloc_line = 0, try_line = 0;
  void operator()(UInt32 parity, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 2;
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    thread_group(0, 32, [&] { single_thread([&] { mbarrier.arrive(bars[0]); }); });
    thread_group(32, 32, [&] {
      Var<bool> done = false;
      try_line = __LINE__ + 1;
      while_([&] { return !done; }, [&] { done = mbarrier.try_wait(bars[0], parity); });
      store_global(global_view(out, {32}), register_tensor<float>({32}, 1.0f), {0});
    });
  }
};

// y = 2x over views of n elements, 1024 per block.
struct DoublesARow : Script {
  static inline int load_line = 0, store_line = 0;
  static constexpr const char* param_names[] = {"n", "x", "y"};
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 1024);
    attrs.warps = 4;
    load_line = __LINE__ + 1;
    auto t = load_global(global_view(x, {n}), {blockIdx.x * 1024}, {1024});
    store_line = __LINE__ + 1;
    store_global(global_view(y, {n}), t * 2.0f, {blockIdx.x * 1024});
  }
};

// Copies the [8, 32] box of an [8, n] f32 matrix that starts at column `column` through shared
// memory by TMA: a column that is not a multiple of 4 starts the box off TMA's 16-byte alignment.
struct CopiesABoxAtAColumn : Script {
  static inline int load_line = 0;
  void operator()(Int32 n, Int32 column, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto tile = shared_tensor<float>({8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * int(sizeof(float)));
      load_line = __LINE__ + 1;
      tma.global_to_shared(global_view(x, {8, n}), tile, {0, column}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(y, {8, 32}), load_shared(tile), {0, 0});
  }
};

// The same with packed f4e2m1 elements into 16-element chunks (sm_100a).
struct CopiesAPackedBoxAtAColumn : Script {
  static inline int load_line = 0;
  void operator()(Int32 n, Int32 column, Ptr<f4e2m1> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto tile = shared_tensor<f4e2m1>({8, 128}, Packing::chunks16);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], int(tile.nbytes()));
      load_line = __LINE__ + 1;
      tma.global_to_shared(global_view(x, {8, n}), tile, {0, column}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
  }
};

// Row 1 of x [4, 64] from `first` on, copied to y by a bulk copy of 32 elements: a run that leaves its
// row from `first` = 33 on; runs start 16-byte aligned, so 36 is the first such `first` that is aligned.
struct BulkCopiesARunAtAColumn : Script {
  static inline int load_line = 0;
  void operator()(Int32 first, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto run = shared_tensor<float>({32});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 32 * int(sizeof(float)));
      load_line = __LINE__ + 1;
      tma.bulk_global_to_shared(global_view(x, {4, 64}), run, {1, first}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(y, {32}), load_shared(run), {0});
  }
};

// "<file>:<line>" of a line of this file, as reports write it.
inline std::string debug_kernels_line(int line) { return fmt::format("{}:{}", __FILE__, line); }

}  // namespace tessel::testing
