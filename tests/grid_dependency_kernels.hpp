// Kernels of programmatic dependent launch (grid_dependency), shared by the simulator's tests and
// the GPU's: a kernel that lets the next one start at once, and kernels that read what it wrote
// after their wait (every thread, or one thread by TMA), or, misused, before it.
#pragma once

#include <random>
#include <vector>

#include "simulate.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

constexpr int kDependentBlock = 256;  // elements per block, one per thread

// y = 2x + 1. The next kernel on the stream may start as soon as every block has begun.
struct ScaleAndShift : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, kDependentBlock);
    attrs.warps = kDependentBlock / 32;
    grid_dependency.launch_dependents();
    auto t = load_global(global_view(x, {n}), {blockIdx.x * kDependentBlock}, {kDependentBlock},
                         Layout::spatial({kDependentBlock}));
    store_global(global_view(y, {n}), t * 2.0f + 1.0f, {blockIdx.x * kDependentBlock});
  }
};

// z = y + w, with y what the kernel before wrote. w, which no kernel writes, is loaded before the
// wait; y after it, or with `ReadsEarly` before it too: a race with the kernel that writes y. The
// next kernel may start at once, as a model's next layer does.
template <bool ReadsEarly = false> struct AddAfterTheWait : Script {
  void operator()(Int32 n, Ptr<float> y, Ptr<float> w, Ptr<float> z) {
    attrs.blocks = cdiv(n, kDependentBlock);
    attrs.warps = kDependentBlock / 32;
    grid_dependency.launch_dependents();
    const auto block = [&](Ptr<float> p) {
      return load_global(global_view(p, {n}), {blockIdx.x * kDependentBlock}, {kDependentBlock},
                         Layout::spatial({kDependentBlock}));
    };
    auto weights = block(w);
    if constexpr (ReadsEarly) {
      auto early = block(y);
      grid_dependency.wait();
      store_global(global_view(z, {n}), early + weights, {blockIdx.x * kDependentBlock});
    } else {
      grid_dependency.wait();
      store_global(global_view(z, {n}), block(y) + weights, {blockIdx.x * kDependentBlock});
    }
  }
};

constexpr int kTmaRows = 4, kTmaCols = 64;

// z = 3y over [n / 64, 64], each block's 4 rows of y loaded by TMA from one thread, which waits for
// the kernel before first (the other threads are ordered after its wait by the mbarrier's phase),
// or with `LoadsEarly` after issuing the load: a race with the kernel that writes y. It lets the next
// kernel start only when it ends.
template <bool LoadsEarly = false> struct TripleThroughTma : Script {
  void operator()(Int32 n, Ptr<float> y, Ptr<float> z) {
    attrs.blocks = cdiv(n, kTmaRows * kTmaCols);
    attrs.warps = 4;
    auto tile = shared_tensor<float>({kTmaRows, kTmaCols}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      if constexpr (!LoadsEarly) grid_dependency.wait();
      mbarrier.arrive_and_expect_tx(bars[0], kTmaRows * kTmaCols * int(sizeof(float)));
      tma.global_to_shared(global_view(y, {n / kTmaCols, kTmaCols}), tile, {blockIdx.x * kTmaRows, 0}, bars[0]);
      if constexpr (LoadsEarly) grid_dependency.wait();
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(z, {n / kTmaCols, kTmaCols}), load_shared(tile) * 3.0f, {blockIdx.x * kTmaRows, 0});
  }
};

// Each of `Blocks` blocks adds one to counter[0] with an atomic of `Scope`, before the kernel's
// wait, and lets the next kernel start at once: kernels of it in a row count their blocks together.
template <MemoryScope Scope, int Blocks> struct CountsItsBlocks : Script {
  void operator()(Ptr<int32_t> counter) {
    attrs.blocks = Blocks;
    attrs.warps = 1;
    grid_dependency.launch_dependents();
    single_thread([&] { atomic.add(global_view(counter, {1}), {0}, 1, MemoryOrder::relaxed, Scope); });
    grid_dependency.wait();
  }
};

inline std::vector<float> dependent_launch_inputs(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(static_cast<size_t>(n), 0.0f);
  for (float& x : v) x = dist(rng);
  return v;
}

// ScaleAndShift, then AddAfterTheWait and TripleThroughTma as its dependents, back to back on one
// stream without the host waiting between them: z1 = 2x + 1 + w and z2 = 3(2x + 1), exactly.
inline void check_dependent_launches(const Device& dev, int n, const KernelOptions& options) {
  const std::vector<float> x = dependent_launch_inputs(n, uint32_t(n)), w = dependent_launch_inputs(n, 7);
  Buffer<float> dx(dev, x), dw(dev, w), y(dev, std::vector<float>(size_t(n), -1.0f)),
      z1(dev, std::vector<float>(size_t(n), -1.0f)), z2(dev, std::vector<float>(size_t(n), -1.0f));
  Kernel<ScaleAndShift> produce(dev, options);
  Kernel<AddAfterTheWait<>> add(dev, options);
  Kernel<TripleThroughTma<>> triple(dev, options);
  produce(n, dx, y);
  add(n, y, dw, z1);
  triple(n, y, z2);
  const std::vector<float> got1 = z1.download(), got2 = z2.download();
  for (size_t i = 0; i < size_t(n); ++i) {
    const float produced = x[i] * 2.0f + 1.0f;
    ASSERT_EQ(got1[i], produced + w[i]) << "element " << i;
    ASSERT_EQ(got2[i], produced * 3.0f) << "element " << i;
  }
}

}  // namespace tessel::testing
