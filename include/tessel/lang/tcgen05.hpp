// tcgen05: Blackwell's tensor memory and fifth-generation tensor core (sm_100a), the `tcgen05`
// member of every Script and Class. The seeds' V0, statement for statement:
//
//   auto t_acc = tcgen05.alloc<float>({block_m, block_n});   // the whole block
//   single_warp([&] {
//     tcgen05.mma(s_a, s_b.transpose(), t_acc, offset_k != 0);  // one elected thread issues
//     tcgen05.commit(bars[0]);                                   // arrives when the mma is done
//     mbarrier.wait(bars[0], phase);
//   });
//   auto r_acc = tcgen05.load(t_acc);                          // 4 warps, one row per thread
//   sync();
//   tcgen05.dealloc(t_acc);                                    // the whole block
//
// Tensor memory is 128 lanes x 512 columns of 32 bits per block; a TMemoryTensor's rows are lanes
// and each element is one column. Warp w may load and store only lanes 32 (w mod 4) ... + 31.
//
// The two blocks of a cluster whose ranks differ in bit 0 form a pair. A kernel that allocates
// with CtaGroup::two runs every tcgen05 instruction in the pair form (cta_group::2): the even block
// issues one mma for the pair, which reads each block's operand halves and writes each block's half
// of the result into that block's tensor memory.
#pragma once

#include <source_location>
#include <vector>

#include "tessel/lang/cluster.hpp"
#include "tessel/lang/mbarrier.hpp"
#include "tessel/lang/tensors.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"

namespace tessel {

// Whose tensor memory and tensor core the tcgen05 instructions of a kernel use: the block's own
// (cta_group::1), or its pair's (cta_group::2). One kernel uses one.
enum class CtaGroup { one = 1, two = 2 };

using ScaleFormat = Tcgen05ScaleFormat;

// A tile of tensor memory: an allocation, or a slice of one.
class TMemoryTensor {
 public:
  explicit TMemoryTensor(ir::TMemoryTensor t) : t_(std::move(t)) {}
  const ir::TMemoryTensor& ir() const { return t_; }
  DType dtype() const { return t_->dtype; }
  const std::vector<int>& shape() const { return t_->shape; }

 private:
  ir::TMemoryTensor t_;
};

// The block scales of a block-scaled mma: u32 tiles of tensor memory [128, c], each cell four
// scales (byte v the v-th), in the layout the tensor core reads (Tcgen05Instructions::mma).
struct BlockScales {
  TMemoryTensor a, b;
  ScaleFormat format;
};

class Tcgen05Instructions {
 public:
  using loc_t = std::source_location;

  // A [lanes, columns] tile of tensor memory of a 32-bit type, lanes 64 or 128. Called by the
  // whole block: warp 0 allocates the columns (a power of two from 32 to 512, the tile's columns
  // rounded up), blocking until they are free; the address is published to every thread
  // (tcgen05.fence::before_thread_sync, sync(), and fence::after_thread_sync before each use).
  // After the kernel's last allocation, tessel relinquishes the block's permit to allocate.
  // The columns hold garbage until written (the simulator fills them with NaN).
  // With CtaGroup::two, both blocks of each pair of the cluster allocate the tile together, and a
  // pair mma into it writes both; the cluster has an even number of blocks.
  template <class T>
  TMemoryTensor alloc(std::vector<int> shape, CtaGroup group = CtaGroup::one, loc_t loc = loc_t::current()) {
    return make_alloc(dtype_v<T>, shape, group, SourceLoc::from(loc));
  }
  // Frees an allocation; by the whole block (warp 0 frees), or by the first warp of a thread group
  // of whole warps. Every allocation must be freed before the kernel ends.
  void dealloc(const TMemoryTensor& t, loc_t loc = loc_t::current());

  // acc = a @ b, plus acc when `enable_input_d` (a kernel bool such as `offset_k != 0`, or a C++
  // bool), on the tensor core, asynchronously. Issued by one warp (single_warp() or a thread group
  // of 32 threads), of which one thread issues the instructions:
  //  - a [m, k]: a shared tile with rows along k; b [k, n]: the transpose of an [n, k] shared tile
  //    with rows along k (`s_b.transpose()`); f16 or bf16, both of one type (kind::f16), e4m3
  //    and e5m2 in any pairing (kind::f8f6f4), or i8 and u8 in any pairing (kind::i8); rows of
  //    one swizzle span, 32, 64 or 128 bytes (which the tiles get unless created with another
  //    Swizzle), one instruction per 32 bytes of k (16 halves, 32 8-bit values);
  //  - acc [128, n]: an f32 tile of tensor memory (i32 for kind::i8, whose sums wrap unless the
  //    saturating form below clamps them), n a multiple of 16 from 16 to 256.
  // The mma reads its operands and writes acc at a time of the tensor core's choosing: commit it
  // to an mbarrier and wait for that phase before reading acc or overwriting a or b.
  // Into a pair's tile (alloc with CtaGroup::two), the even block of the pair issues the mma of
  // shape [256, k] @ [k, n]: a [128, k] and b [k, n / 2] are each block's halves, at the same
  // shared offsets in both, and each block receives its 128 rows of the result in acc [128, n].
  template <class E>
  requires(detail::is_kernel_scalar<E> ||
           std::is_same_v<E, bool>) void mma(const SharedTensor& a, const SharedTensor& b, const TMemoryTensor& acc,
                                             const E& enable_input_d, loc_t loc = loc_t::current()) {
    make_mma(a, b, acc, detail::to_ir<bool>(enable_input_d), nullptr, false, SourceLoc::from(loc));
  }
  // The same for 8-bit integer operands (kind::i8) with the saturate bit of the instruction
  // descriptor: the i32 sum is clamped to the i32 range after each instruction (32 of k).
  template <class E>
  requires(detail::is_kernel_scalar<E> ||
           std::is_same_v<E, bool>) void mma(const SharedTensor& a, const SharedTensor& b, const TMemoryTensor& acc,
                                             const E& enable_input_d, Saturate, loc_t loc = loc_t::current()) {
    make_mma(a, b, acc, detail::to_ir<bool>(enable_input_d), nullptr, true, SourceLoc::from(loc));
  }
  // The block-scaled mma: every product a(i, p) b(p, j) is multiplied by the scales of row i of a
  // and of column j of b for p's block of k. The kind follows from the operands and the scales:
  //  - e4m3 / e5m2 operands with ue8m0 scales, one per 32 of k: kind::mxf8f6f4 (MXFP8), 32 of k
  //    per instruction;
  //  - f4e2m1 operands (two per byte) with ue8m0 scales per 32 of k: kind::mxf4 (MXFP4), or with
  //    ue4m3 scales per 16 of k: kind::mxf4nvf4 (NVFP4); 64 of k per instruction, K-major only.
  // The scales are read from tensor memory when the instructions run (do not overwrite them before
  // the commit's phase completes). Instruction s of the mma (k from s * K, K its k) reads the
  // scale bytes v = s * V ... s * V + V - 1 (V = 1, 2 or 4 per instruction) of the cells in the
  // group of columns (s * V) / 4: a's group has 4 columns, and row r's scales are at lane r,
  // column r / 32; b's group has 4 ceil(n / 128) columns, and column j's scales are at lane
  // 32 q + j mod 32, column j / 32, for every lane quadrant q (each quadrant of the accumulator
  // reads its own copy). tcgen05.copy of a [32, 4] shared tile writes such a group: 128 rows'
  // scales for four blocks of k, copied to every quadrant.
  template <class E>
  requires(detail::is_kernel_scalar<E> ||
           std::is_same_v<E, bool>) void mma(const SharedTensor& a, const SharedTensor& b, const TMemoryTensor& acc,
                                             const E& enable_input_d, const BlockScales& scales,
                                             loc_t loc = loc_t::current()) {
    make_mma(a, b, acc, detail::to_ir<bool>(enable_input_d), &scales, false, SourceLoc::from(loc));
  }
  // dst = src, asynchronously like mma and ordered before the issuing thread's later mma, in one
  // of two forms:
  //  - tcgen05.cp 128x256b (an accumulator's initial value, say): src [128, c] a shared tile of a
  //    32-bit type with c 8, 16 or 32 (rows of one swizzle span, which the tile gets unless
  //    created with another Swizzle), dst [128, c] a tensor-memory tile at lane 0;
  //  - tcgen05.cp 32x128b.warpx4 (block scales): src [32, 4] a shared u32 tile without swizzle,
  //    dst [128, 4] at lane 0, row l of src going to lanes l, 32 + l, 64 + l and 96 + l.
  // Issued by one warp; commit it before reading dst or overwriting src.
  void copy(const SharedTensor& src, const TMemoryTensor& dst, loc_t loc = loc_t::current());
  // One arrival on `bar` once every tcgen05.mma and copy the issuing thread issued before has
  // completed. Issued by the thread that issued them (in the same one-warp group).
  void commit(const Mbarrier& bar, loc_t loc = loc_t::current());
  // The same, arriving on the barrier at `bar`'s offset in every block of the cluster in
  // `multicast.cta_mask`: a pair mma frees both blocks' operand stages and fills both blocks'
  // accumulators.
  void commit(const Mbarrier& bar, const Multicast& multicast, loc_t loc = loc_t::current());

  // The tile as a register tile of the current thread group, in the tcgen05.ld 32x32b layout
  // (tcgen05_32x32b(): thread i of the group holds row i, every column). The group is one warp
  // per 32 lanes, and its warps' lane quadrants must be the tile's: the warp holding lanes
  // 32q ... 32q + 31 has an index w with w mod 4 == q. The registers are valid when the call
  // returns (tessel waits for the load: tcgen05.wait::ld follows it).
  RegisterTensor load(const TMemoryTensor& t, loc_t loc = loc_t::current());
  // Orders the group's loads before what follows a sync() or an arrival (tcgen05.wait::ld and
  // fence::before_thread_sync): call it before handing the columns to another warp.
  void wait_load(loc_t loc = loc_t::current());
  // Writes a register tile of the current group into the tile, with the layout and lane rule of
  // load(); tessel waits for the store (tcgen05.wait::st).
  void store(const TMemoryTensor& t, const RegisterTensor& r, loc_t loc = loc_t::current());
  // The same for stores: call it before another warp reads the columns or an mma uses them.
  void wait_store(loc_t loc = loc_t::current());

  // The sub-tile of `shape` at `offsets` (lanes, a trace-time multiple of 32; columns, a trace-time
  // int or a kernel value) of `t`. `dims` lists the dimensions of `t` the slice keeps; tensor
  // memory tiles are 2-D, so it is {0, 1}.
  TMemoryTensor slice(const TMemoryTensor& t, std::vector<Dim> offsets, std::vector<int> shape, std::vector<int> dims,
                      loc_t loc = loc_t::current());

 private:
  TMemoryTensor make_alloc(DType t, const std::vector<int>& shape, CtaGroup group, const SourceLoc& loc);
  void make_mma(const SharedTensor& a, const SharedTensor& b, const TMemoryTensor& acc, ir::Expr enable_input_d,
                const BlockScales* scales, bool saturate, const SourceLoc& loc);
};

}  // namespace tessel
