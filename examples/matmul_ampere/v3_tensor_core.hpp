#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::ampere {

// Step 3: tensor cores. Each warp multiplies its fragments of A and B with mma.sync m16n8k16;
// operands are staged through shared memory. No layout is written: dot anchors its operands to
// the fragment layouts and infer_layouts splits the block tile over the warps (2x2 for 4 warps).
struct MatmulV3TensorCore : Script {
  int block_m = 128, block_n = 128, block_k = 32;
  int warps = 4;
  static constexpr const char* param_names[] = {"m", "n", "k", "a", "b", "c"};

  void operator()(Int32 m, Int32 n, int k, Ptr<f16> a, Ptr<f16> b, Ptr<f16> c) {
    attrs.blocks = {cdiv(m, block_m), cdiv(n, block_n)};
    attrs.warps = warps;
    Int32 offset_m = blockIdx.x * block_m;
    Int32 offset_n = blockIdx.y * block_n;
    auto g_a = global_view(a, {m, k});
    auto g_b = global_view(b, {n, k});
    // Unswizzled on purpose (step 5 adds the swizzle); left to choose_swizzles they would get one.
    auto s_a = shared_tensor<f16>({block_m, block_k}, Swizzle::none);
    auto s_b = shared_tensor<f16>({block_n, block_k}, Swizzle::none);
    auto acc = register_tensor<float>({block_m, block_n}, 0.0f);
    for (Int32 offset_k : range(0, k, block_k)) {
      store_shared(s_a, load_global(g_a, {offset_m, offset_k}, {block_m, block_k}));
      store_shared(s_b, load_global(g_b, {offset_n, offset_k}, {block_n, block_k}));
      sync();
      auto r_a = load_shared(s_a);
      auto r_b = load_shared(s_b.transpose());
      acc = dot(r_a, r_b, acc);
      sync();
    }
    store_global(global_view(c, {m, n}), acc.to<f16>(), {offset_m, offset_n});
  }
};

}  // namespace tessel::examples::ampere
