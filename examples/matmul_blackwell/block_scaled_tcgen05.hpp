#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// The seeds' V0 with block scales: C = (A scaled) (B scaled)ᵀ, A [m, k] and B [n, k] K-major, each
// product a(i, p) b(j, p) multiplied by the scale of row i of A and of row j of B for p's block of
// k, on tcgen05.mma with the scales in tensor memory:
//  - T = f8e4m3 with ue8m0 scales per 32 of k: MXFP8 (kind::mxf8f6f4);
//  - T = f4e2m1 with ue8m0 scales per 32 of k: MXFP4 (kind::mxf4);
//  - T = f4e2m1 with ue4m3 scales per 16 of k: NVFP4 (kind::mxf4nvf4).
// The scales come in the tiled layout the tensor core's copy reads (the one cuBLAS and CUTLASS use
// for block-scaled GEMMs): for each 128 rows and each 4 blocks of k, 32 rows of four 32-bit words,
// word j of row l holding the scales of row 32 j + l for the four blocks, one byte each. One
// tcgen05.copy (32x128b.warpx4) moves such a group into four columns of tensor memory.
template <class T, ScaleFormat Format> struct BlackwellBlockScaledMatmul : Script {
  static constexpr int scale_block = Format == ScaleFormat::ue4m3 ? 16 : 32;  // k per scale
  int block_m = 128, block_n = 128, block_k = 128;
  static constexpr const char* param_names[] = {"m_size", "n_size",       "k_size",       "a_ptr",
                                                "b_ptr",  "a_scales_ptr", "b_scales_ptr", "c_ptr"};

  static Space space() {
    // rows of block_k elements: 128 bytes of fp8, 64 or 128 bytes of fp4
    if constexpr (is_packed(dtype_v<T>)) return tune("block_k", &BlackwellBlockScaledMatmul::block_k, {128, 256});
    return tune("block_k", &BlackwellBlockScaledMatmul::block_k, {128});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<T> a_ptr, Ptr<T> b_ptr, Ptr<uint32_t> a_scales_ptr,
                  Ptr<uint32_t> b_scales_ptr, Ptr<bf16> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    const int groups = block_k / (4 * scale_block);  // groups of four scales per k-tile
    Int32 k_groups = cdiv(k_size, 4 * scale_block);
    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});
    auto g_a_scales = global_view(a_scales_ptr, {cdiv(m_size, 128) * k_groups * 32, 4});
    auto g_b_scales = global_view(b_scales_ptr, {cdiv(n_size, 128) * k_groups * 32, 4});

    auto s_a = shared_tensor<T>({block_m, block_k});
    auto s_b = shared_tensor<T>({block_n, block_k});
    auto s_a_scales = shared_tensor<uint32_t>({groups, 32, 4}, Swizzle::none);
    auto s_b_scales = shared_tensor<uint32_t>({groups, 32, 4}, Swizzle::none);
    auto t_acc = tcgen05.alloc<float>({block_m, block_n});
    auto t_a_scales = tcgen05.alloc<uint32_t>({128, 4 * groups});
    auto t_b_scales = tcgen05.alloc<uint32_t>({128, 4 * groups});
    auto mbarriers = mbarrier.alloc({1});
    UInt32 phase = 0u;
    sync();

    for (Int32 offset_k : range(0, k_size, block_k)) {
      if constexpr (is_packed(dtype_v<T>)) {
        // fp4 pairs through registers: cp.async does not move packed views
        store_shared(s_a, load_global(g_a, {offset_m, offset_k}, {block_m, block_k}));
        store_shared(s_b, load_global(g_b, {offset_n, offset_k}, {block_n, block_k}));
      } else {
        copy_async(g_a, s_a, {offset_m, offset_k});
        copy_async(g_b, s_b, {offset_n, offset_k});
      }
      Int32 group = offset_k / (4 * scale_block);
      for (int g = 0; g < groups; ++g) {
        copy_async(g_a_scales, s_a_scales[g], {(blockIdx.x * k_groups + group + g) * 32, 0});
        copy_async(g_b_scales, s_b_scales[g], {(blockIdx.y * k_groups + group + g) * 32, 0});
      }
      copy_async_wait_all();
      fence.proxy_async(ProxySpace::shared_cta);
      sync();
      single_warp([&] {
        // the scales into tensor memory, ordered before the mma issued after them
        for (int g = 0; g < groups; ++g) {
          tcgen05.copy(s_a_scales[g], tcgen05.slice(t_a_scales, {0, 4 * g}, {128, 4}, {0, 1}));
          tcgen05.copy(s_b_scales[g], tcgen05.slice(t_b_scales, {0, 4 * g}, {128, 4}, {0, 1}));
        }
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0, BlockScales{t_a_scales, t_b_scales, Format});
        tcgen05.commit(mbarriers[0]);
        mbarrier.wait(mbarriers[0], phase);
      });
      sync();
      phase ^= 1u;
    }

    auto r_acc = tcgen05.load(t_acc);
    auto g_c = global_view(c_ptr, {m_size, n_size});
    store_global(g_c, r_acc.to<bf16>(), {offset_m, offset_n});
    sync();
    tcgen05.dealloc(t_b_scales);
    tcgen05.dealloc(t_a_scales);
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
