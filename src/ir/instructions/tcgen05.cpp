// Verifier rules and effects (tessel/ir/effects.hpp) of the tcgen05 instructions. nodes.def gives
// their oldest target (sm_100a), so a kernel compiled for sm_90a or sm_80 is rejected at the user's
// line, and their executor (whole warps). Shapes, types, lane quadrants and strides were checked at
// tracing; what tracing and the passes guarantee is checked here as an invariant.
#include <fmt/ranges.h>

#include "tessel/layout/tcgen05_descriptor.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"
#include "verification.hpp"

namespace tessel::ir {

namespace {

void check_one_warp(const Verification& v, const StmtNode& n) {
  TESSEL_CHECK(v.group().whole_warps() && v.group().count == 32, "{} at {} in a thread group of {}", kind_name(n.kind),
               n.loc.str(), v.group().str());
}

void check_lanes(const Verification& v, const TMemoryTensor& t, const StmtNode& n) {
  const ThreadRange g = v.group();
  TESSEL_CHECK(g.whole_warps() && g.count == t->shape[0] && g.begin / 32 % 4 == t->lane_offset / 32 % 4,
               "{} at {} of lanes {}+{} in a thread group of {}", kind_name(n.kind), n.loc.str(), t->lane_offset,
               t->shape[0], g.str());
}

// The swizzle of a copy's source: one span per row, or none for the 16-byte rows of the
// 32x128b.warpx4 form.
int copy_swizzle_bits(const Tcgen05CopyNode& n) {
  return n.to_every_quadrant() ? 0 : wgmma_swizzle_bits(n.src->shape[1] * dtype_bytes(n.src->dtype));
}

}  // namespace

void verify_Tcgen05Alloc(Verification& v, const Tcgen05AllocNode& n) {
  check_one_warp(v, n);
  TESSEL_CHECK(!n.tensor->root && n.tensor->address, "tcgen05.alloc at {} of a view", n.loc.str());
  if (n.tensor->cta_group == 2 && v.kernel.cluster_blocks() % 2 != 0)
    throw Error(n.loc, fmt::format("tcgen05.alloc: a pair's tile (CtaGroup::two) is allocated by both blocks of a "
                                   "pair, so the cluster must have an even number of blocks; attrs.cluster is {{{}}}",
                                   fmt::join(v.kernel.cluster, ", ")));
}

void verify_Tcgen05Dealloc(Verification& v, const Tcgen05DeallocNode& n) {
  check_one_warp(v, n);
  TESSEL_CHECK(!n.tensor->root, "tcgen05.dealloc at {} of a view", n.loc.str());
}

void verify_Tcgen05Mma(Verification& v, const Tcgen05MmaNode& n) {
  check_one_warp(v, n);
  TESSEL_CHECK(
      tcgen05_kind({n.a->dtype, n.a->allocation()->chunks16}, {n.b->dtype, n.b->allocation()->chunks16}, n.scale_format)
          .has_value(),
      "tcgen05.mma at {} of {} @ {} with scales {}", n.loc.str(), dtype_name(n.a->dtype), dtype_name(n.b->dtype),
      int(n.scale_format));
  TESSEL_CHECK(tcgen05_mma_shape_is_legal(n.m(), n.n(), n.cta_group()) && n.k() % n.instruction_k() == 0 &&
                   n.acc->lane_offset == 0 && n.b_operand().mn * n.cta_group() == n.n(),
               "tcgen05.mma at {} of shape {}x{}x{}", n.loc.str(), n.m(), n.n(), n.k());
  if (n.scale_format != Tcgen05ScaleFormat::none)
    TESSEL_CHECK(n.scale_a && n.scale_b && n.cta_group() == 1 && n.scale_a->shape[1] >= n.scale_columns(0) &&
                     n.scale_b->shape[1] >= n.scale_columns(1),
                 "tcgen05.mma at {}: block scales of {} and {} columns", n.loc.str(),
                 n.scale_a ? n.scale_a->shape[1] : 0, n.scale_b ? n.scale_b->shape[1] : 0);
  TESSEL_CHECK(n.enable_input_d->type.dtype == DType::Bool, "tcgen05.mma at {} with enable_input_d of type {}",
               n.loc.str(), n.enable_input_d->type.str());
  check_operand_swizzle(*n.a, n.a_operand().row_bytes, n);
  check_operand_swizzle(*n.b, n.b_operand().row_bytes, n);
}

void verify_Tcgen05Commit(Verification& v, const Tcgen05CommitNode& n) {
  check_one_warp(v, n);
  check_barrier(n.barrier, n);
  if (n.cta_mask) check_cluster_mask(v.kernel, n.cta_mask, "tcgen05.commit", "receives the arrival", n);
}

void verify_Tcgen05Copy(Verification& v, const Tcgen05CopyNode& n) {
  check_one_warp(v, n);
  const bool shapes = n.to_every_quadrant() ? n.src->shape == std::vector<int>{32, 4} && n.dst->shape[1] == 4
                                            : n.src->shape == n.dst->shape;
  TESSEL_CHECK(n.dst->shape[0] == 128 && n.dst->lane_offset == 0 && shapes,
               "tcgen05.copy at {} of [{}] into [{}] lanes {}+", n.loc.str(), fmt::join(n.src->shape, ", "),
               fmt::join(n.dst->shape, ", "), n.dst->lane_offset);
  const int bits = n.src->allocation()->swizzle_bits;
  TESSEL_CHECK(bits == kSwizzleUndecided || bits == copy_swizzle_bits(n),
               "tcgen05.copy at {} from a tile swizzled by {} bits", n.loc.str(), bits);
}

void verify_Tcgen05Load(Verification& v, const Tcgen05LoadNode& n) {
  check_lanes(v, n.src, n);
  v.define(n.out, n);
}

void verify_Tcgen05Store(Verification& v, const Tcgen05StoreNode& n) {
  check_lanes(v, n.dst, n);
  v.use(n.src, n);
}

void verify_Tcgen05Wait(Verification&, const Tcgen05WaitNode&) {}

// ---- effects ----

Effects effects_of(const Tcgen05LoadNode&) { return {}; }
Effects effects_of(const Tcgen05StoreNode&) { return {}; }
Effects effects_of(const Tcgen05WaitNode&) { return {}; }

Effects effects_of(const Tcgen05AllocNode& n) {
  Effects e;
  e.tensor_memory_allocated = n.tensor.get();
  return e;
}

Effects effects_of(const Tcgen05DeallocNode& n) {
  Effects e;
  e.tensor_memory_freed = n.tensor.get();
  return e;
}

Effects effects_of(const Tcgen05MmaNode& n) {
  Effects e;
  e.tensor_core_reads.push_back({n.a->allocation(), wgmma_swizzle_bits(n.a_operand().row_bytes)});
  e.tensor_core_reads.push_back({n.b->allocation(), wgmma_swizzle_bits(n.b_operand().row_bytes)});
  return e;
}

// The tensor core arrives, once the issuing thread's earlier operations complete.
Effects effects_of(const Tcgen05CommitNode& n) {
  Effects e;
  e.arrivals.push_back({&n.barrier, nullptr});
  return e;
}

Effects effects_of(const Tcgen05CopyNode& n) {
  Effects e;
  e.tensor_core_reads.push_back({n.src->allocation(), copy_swizzle_bits(n)});
  return e;
}

}  // namespace tessel::ir
