// The IR nodes of the tcgen05 instruction family (nodes.def): tcgen05 (sm_100a): tensor memory and the fifth-generation
// tensor core.
#pragma once

#include "tessel/ir/core.hpp"
#include "tessel/ir/mma_operand.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"

namespace tessel::ir {

// All of a kernel's use one CTA group (KernelNode::tcgen05_cta_group): 1, the block's own tensor
// memory and tensor core, or 2, the block pairs of a cluster (PTX ISA 9.7.16.7.1).

// tcgen05.alloc by one warp: reserves the allocation's columns (blocking until they are free),
// writes their TMEM address to the allocation's shared word, and, when `relinquish` (the
// kernel's last allocation), gives up the block's permit to allocate again. The
// fence::before_thread_sync that publishes the address follows; the block's sync() comes next.
struct Tcgen05AllocNode : StmtNode {
  Tcgen05AllocNode(SourceLoc l, TMemoryTensor t, bool relinquish = false)
      : StmtNode(NodeKind::Tcgen05Alloc, std::move(l)), tensor(std::move(t)), relinquish(relinquish) {}
  TMemoryTensor tensor;  // an allocation
  bool relinquish;       // set by plan_tensor_memory
  static constexpr auto operands() { return std::tuple{&Tcgen05AllocNode::tensor}; }
};
// tcgen05.dealloc by one warp: frees the allocation's columns.
struct Tcgen05DeallocNode : StmtNode {
  Tcgen05DeallocNode(SourceLoc l, TMemoryTensor t)
      : StmtNode(NodeKind::Tcgen05Dealloc, std::move(l)), tensor(std::move(t)) {}
  TMemoryTensor tensor;  // an allocation
  static constexpr auto operands() { return std::tuple{&Tcgen05DeallocNode::tensor}; }
};
// acc = a @ b (+ acc when enable_input_d) by one thread of the warp, asynchronously: a [m, k]
// and b [k, n] are shared operands, K-major or MN-major (mma_operand.hpp), read through matrix
// descriptors, acc [m, n] is in tensor memory. One instruction per 32 bytes of operand row (the
// kind's instruction k). The kind follows from the operand types and the scales
// (tcgen05_descriptor.hpp): block-scaled, each product a(i, p) b(p, j) is multiplied by the scale
// of row i of a and of column j of b for p's block of k, read from the tensor-memory tiles
// scale_a and scale_b when the instruction runs. Instruction s reads the scale bytes
// s * vector ... mod 4 of the cells of column group s * vector / 4: row r of a at lane r mod 32
// (of the lane quadrant that computes the row) and column r / 32 of a's group of 4 columns, column
// j of b at lane j mod 32 and column j / 32 of b's group of 4 ceil(n / 128) columns.
// With a pair accumulator (cta_group 2), issued by the pair's even block: the mma is [2 m, k] @
// [k, n]; block v of the pair holds rows v m ... of a and columns v n / 2 ... of b at the same
// shared offsets (b is [k, n / 2] in each), and receives rows v m ... of the result in its own
// tensor memory at acc's columns.
struct Tcgen05MmaNode : StmtNode {
  Tcgen05MmaNode(SourceLoc l, TMemoryTensor acc, SharedTensor a, SharedTensor b, Expr enable_input_d,
                 TMemoryTensor scale_a = nullptr, TMemoryTensor scale_b = nullptr,
                 Tcgen05ScaleFormat scale_format = Tcgen05ScaleFormat::none)
      : StmtNode(NodeKind::Tcgen05Mma, std::move(l)),
        acc(std::move(acc)),
        a(std::move(a)),
        b(std::move(b)),
        enable_input_d(std::move(enable_input_d)),
        scale_a(std::move(scale_a)),
        scale_b(std::move(scale_b)),
        scale_format(scale_format) {}
  TMemoryTensor acc;
  SharedTensor a, b;
  Expr enable_input_d;             // bool
  TMemoryTensor scale_a, scale_b;  // u32 cells of four scales each; null when unscaled
  Tcgen05ScaleFormat scale_format;
  bool saturate = false;  // kind::i8 sums clamped to the i32 range after each instruction
  int cta_group() const { return acc->allocation()->cta_group; }
  int m() const { return acc->shape[0] * cta_group(); }  // the instruction's M
  int n() const { return acc->shape[1]; }
  int k() const { return a_operand().k; }
  DType operand_type() const { return a->dtype; }
  Tcgen05Kind mma_kind() const {
    return *tcgen05_kind({a->dtype, a->allocation()->chunks16}, {b->dtype, b->allocation()->chunks16}, scale_format);
  }
  int instruction_k() const { return tcgen05_instruction_k(mma_kind()); }
  int instructions() const { return k() / instruction_k(); }
  // Block-scaled: the columns of one group of scale cells of a (operand 0) or b (1), and the
  // columns of scale_a or scale_b the mma reads.
  int scale_group_columns(int operand) const { return operand == 0 ? 4 : 4 * ((n() + 127) / 128); }
  int scale_columns(int operand) const {
    return scale_group_columns(operand) * ((instructions() * tcgen05_scale_vector(mma_kind()) + 3) / 4);
  }
  MmaOperand a_operand() const { return mma_operand(*a, 1); }
  MmaOperand b_operand() const { return mma_operand(*b, 0); }
  static constexpr auto operands() {
    return std::tuple{&Tcgen05MmaNode::acc,
                      &Tcgen05MmaNode::a,
                      &Tcgen05MmaNode::b,
                      &Tcgen05MmaNode::enable_input_d,
                      optional(&Tcgen05MmaNode::scale_a),
                      optional(&Tcgen05MmaNode::scale_b)};
  }
};
// tcgen05.commit by the thread that issued the mma (or copy): one arrival on `barrier` once every
// tcgen05 operation that thread issued before has completed; with a `cta_mask` (multicast), on the
// barrier at the same offset in every block of the cluster whose rank bit is set.
struct Tcgen05CommitNode : StmtNode {
  Tcgen05CommitNode(SourceLoc l, MbarrierRef b, Expr cta_mask = nullptr)
      : StmtNode(NodeKind::Tcgen05Commit, std::move(l)), barrier(std::move(b)), cta_mask(std::move(cta_mask)) {}
  MbarrierRef barrier;
  Expr cta_mask;  // bit r: cluster rank r's barrier receives the arrival; null: this block's
  static constexpr auto operands() {
    return std::tuple{&Tcgen05CommitNode::barrier, optional(&Tcgen05CommitNode::cta_mask)};
  }
};
// dst <- src by one thread of the warp, asynchronously, in one of two forms:
//  - tcgen05.cp 128x256b: src [128, c] is a shared tile of 32-bit elements with rows of one
//    swizzle span (c = 8, 16 or 32), read through matrix descriptors 8 columns (32 bytes) per
//    instruction; dst [128, c] is in tensor memory at lane 0;
//  - tcgen05.cp 32x128b.warpx4 (block scales): src [32, 4] is a shared tile of 32-bit elements,
//    rows of 16 bytes without swizzle; dst [128, 4] receives row l at lanes l, 32 + l, 64 + l and
//    96 + l, a copy for each lane quadrant.
// Ordered before the issuing thread's later mma; a commit observes its completion.
struct Tcgen05CopyNode : StmtNode {
  Tcgen05CopyNode(SourceLoc l, TMemoryTensor dst, SharedTensor src)
      : StmtNode(NodeKind::Tcgen05Copy, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  TMemoryTensor dst;
  SharedTensor src;
  bool to_every_quadrant() const { return src->shape[0] == 32; }  // the 32x128b.warpx4 form
  static constexpr auto operands() { return std::tuple{&Tcgen05CopyNode::dst, &Tcgen05CopyNode::src}; }
};
// out <- src with tcgen05.ld 32x32b, then tcgen05.wait::ld: warp w of the group reads lanes
// 32 (w mod 4) ... + 31; thread l of it holds row 32 (w mod 4) + l - src's first lane, every
// column (tcgen05_layout()).
struct Tcgen05LoadNode : StmtNode {
  Tcgen05LoadNode(SourceLoc l, RegisterTensor out, TMemoryTensor src)
      : StmtNode(NodeKind::Tcgen05Load, std::move(l)), out(std::move(out)), src(std::move(src)) {}
  RegisterTensor out;
  TMemoryTensor src;
  static constexpr auto operands() { return std::tuple{&Tcgen05LoadNode::out, &Tcgen05LoadNode::src}; }
};
// dst <- src with tcgen05.st 32x32b, then tcgen05.wait::st; the same lanes and layout as loads.
struct Tcgen05StoreNode : StmtNode {
  Tcgen05StoreNode(SourceLoc l, TMemoryTensor dst, RegisterTensor src)
      : StmtNode(NodeKind::Tcgen05Store, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  TMemoryTensor dst;
  RegisterTensor src;
  static constexpr auto operands() { return std::tuple{&Tcgen05StoreNode::dst, &Tcgen05StoreNode::src}; }
};
// tcgen05.wait::ld (or ::st) by each warp, then tcgen05.fence::before_thread_sync, so that a
// sync() or arrival that follows orders the warp's tensor-memory accesses before what other
// threads do next (freeing or overwriting the columns).
struct Tcgen05WaitNode : StmtNode {
  Tcgen05WaitNode(SourceLoc l, bool store) : StmtNode(NodeKind::Tcgen05Wait, std::move(l)), store(store) {}
  bool store;  // wait_store; otherwise wait_load
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
