#pragma once

#include <type_traits>

#include "tessel/tessel.hpp"

namespace tessel::examples::blackwell {

// The seeds' V0 in fp8, fp6 and fp4: C = A Bᵀ with A [m, k] and B [n, k] K-major in e4m3, e5m2,
// e2m3, e3m2 or e2m1 (any pairing), read by tcgen05.mma kind::f8f6f4 (32 of k per instruction) into
// an f32 accumulator in tensor memory, written out in bf16. The statements are V0's; fp6 and fp4
// operands (packed in global memory) go through registers into shared tiles of 16-element chunks,
// the layout the tensor core reads them in. With 8-bit integer operands (i8 or u8 each) the mma is
// kind::i8: exact sums in an s32 accumulator, written out as they are; with tf32 operands (f32 data
// as the tensor cores read it) kind::tf32, written out in f32. A k-tile is 128 bytes of each row.
template <class A, class B> struct BlackwellF8F6F4Matmul : Script {
  static constexpr bool integer = std::is_integral_v<A>;
  static_assert(std::is_integral_v<B> == integer, "A and B are both floats or both 8-bit integers");
  static constexpr bool tf32_operands = std::is_same_v<A, tf32>;
  using Accumulator = std::conditional_t<integer, int32_t, float>;
  using Out = std::conditional_t<integer, int32_t, std::conditional_t<tf32_operands, float, bf16>>;
  // Bytes of an element in a shared row: packed fp6 and fp4 take one each, in chunks of 16.
  static constexpr int element_bytes = is_packed(dtype_v<A>) ? 1 : int(sizeof(A));
  int block_m = 128, block_n = 128, block_k = 128 / element_bytes;
  static constexpr const char* param_names[] = {"m_size", "n_size", "k_size", "a_ptr", "b_ptr", "c_ptr"};

  // fp6 and fp4 take one byte per element in chunks of 16, like fp8.
  template <class T> SharedTensor operand_tile(int rows) {
    if constexpr (is_packed(dtype_v<T>)) return shared_tensor<T>({rows, block_k}, Packing::chunks16);
    return shared_tensor<T>({rows, block_k});
  }
  // cp.async does not move packed views: fp6 and fp4 come through registers.
  template <class T> void load_operand(const GlobalTensor& g, const SharedTensor& s, const Int32& row, const Int32& k) {
    if constexpr (is_packed(dtype_v<T>))
      store_shared(s, load_global(g, {row, k}, {s.shape()[0], s.shape()[1]}));
    else
      copy_async(g, s, {row, k});
  }

  static Space space() {
    return tune("block_n", &BlackwellF8F6F4Matmul::block_n, {64, 128, 256}) *
           tune("block_k", &BlackwellF8F6F4Matmul::block_k,
                {32 / element_bytes, 64 / element_bytes, 128 / element_bytes});
  }

  void operator()(Int32 m_size, int n_size, int k_size, Ptr<A> a_ptr, Ptr<B> b_ptr, Ptr<Out> c_ptr) {
    attrs.blocks = {cdiv(m_size, block_m), cdiv(n_size, block_n)};
    attrs.warps = 4;

    Int32 offset_m = block_m * blockIdx.x;
    Int32 offset_n = block_n * blockIdx.y;
    auto g_a = global_view(a_ptr, {m_size, k_size});
    auto g_b = global_view(b_ptr, {n_size, k_size});

    // rows of block_k bytes: one swizzle span at block_k = 32, 64 or 128
    auto s_a = operand_tile<A>(block_m);
    auto s_b = operand_tile<B>(block_n);
    auto t_acc = tcgen05.alloc<Accumulator>({block_m, block_n});
    auto mbarriers = mbarrier.alloc({1});
    UInt32 phase = 0u;
    sync();

    for (Int32 offset_k : range(0, k_size, block_k)) {
      load_operand<A>(g_a, s_a, offset_m, offset_k);
      load_operand<B>(g_b, s_b, offset_n, offset_k);
      copy_async_wait_all();
      fence.proxy_async(ProxySpace::shared_cta);
      sync();
      single_warp([&] {
        tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);  // kind::f8f6f4, kind::i8 or kind::tf32
        tcgen05.commit(mbarriers[0]);
        mbarrier.wait(mbarriers[0], phase);
      });
      sync();
      phase ^= 1u;
    }

    auto r_acc = tcgen05.load(t_acc);
    auto g_c = global_view(c_ptr, {m_size, n_size});
    store_global(g_c, r_acc.template to<Out>(), {offset_m, offset_n});
    sync();
    tcgen05.dealloc(t_acc);
  }
};

}  // namespace tessel::examples::blackwell
