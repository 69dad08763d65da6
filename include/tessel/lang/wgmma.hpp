// wgmma: Hopper's warpgroup tensor-core instructions (sm_90a only), the `wgmma` member of every
// Script and Class. Each call is executed by whole warpgroups (4 aligned warps, 128 threads).
//
//   wgmma.fence();                                // order register accesses before the mma
//   wgmma.mma(s_a, s_b.transpose(), acc);         // acc += A @ B, asynchronously
//   wgmma.commit_group();
//   wgmma.wait_group(0);                          // now acc may be read
//
// A is [m, k] and B is given as the transpose of an [n, k] shared tile, both K-major as in the
// seeds' `tcgen05.mma(s_a, s_b.transpose(), ...)`: C = A Bᵀ with A [M, K] and B [N, K].
#pragma once

#include <source_location>

#include "tessel/lang/tensors.hpp"

namespace tessel {

class WgmmaInstructions {
 public:
  using loc_t = std::source_location;

  // wgmma.fence: required before the first mma and between any other access to an mma's
  // accumulator or register A operand and the mma.
  void fence(loc_t loc = loc_t::current()) const;
  // acc += a @ b on the tensor cores: f16 or bf16 operands of one type, or fp8 (e4m3, e5m2) ones,
  // into an f32 accumulator; or 8-bit integers (i8, u8) into an i32 one, whose sums wrap:
  //  - a [m, k]: a shared tile with rows along k (SS), or a register tile (RS), which takes the
  //    wgmma A fragment layout;
  //  - b [k, n]: the transpose of an [n, k] shared tile (`s_b.transpose()`);
  //  - acc [m, n]: a register tile of the current thread group, which takes the wgmma
  //    accumulator layout (wgmma_layouts()).
  // m is a multiple of 64 times the group's warpgroups, n a multiple of 8 up to 256 (for 8-bit
  // integers 8, 16, 24 or a multiple of 16), one m64nNk16 instruction per 64 rows and 16 columns of
  // k (m64nNk32 per 32 for 8-bit types), k such that a shared row is one swizzle span (32, 64 or 128
  // bytes), which the shared tiles get unless created with another Swizzle. 8-bit operands are
  // K-major. The product is computed asynchronously: until the wait_group that retires its
  // group, acc (and a register a) must not be touched and the shared operands not overwritten.
  void mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, loc_t loc = loc_t::current()) const;
  void mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc,
           loc_t loc = loc_t::current()) const;
  // With accumulate false, acc = a @ b: acc's old value is ignored (PTX's scale-d = 0), so a
  // partial product needs no zeroed tile, whose zeroing while other mma run would make ptxas
  // serialize them.
  void mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
           loc_t loc = loc_t::current()) const;
  void mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
           loc_t loc = loc_t::current()) const;
  // With `saturate`, 8-bit integer operands' i32 sums are clamped to the i32 range after each
  // m64nNk32 instruction (.satfinite), where they wrap otherwise.
  void mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, Saturate,
           loc_t loc = loc_t::current()) const;
  void mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, Saturate,
           loc_t loc = loc_t::current()) const;
  void mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate, Saturate,
           loc_t loc = loc_t::current()) const;
  void mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate, Saturate,
           loc_t loc = loc_t::current()) const;
  // Closes the warpgroup's group of the mma issued since the last commit.
  void commit_group(loc_t loc = loc_t::current()) const;
  // Waits until at most `pending` (0..7) committed groups are still running.
  void wait_group(int pending, loc_t loc = loc_t::current()) const;
};

}  // namespace tessel
