// tcgen05: tracing of the tensor-memory and tensor-core instructions. Everything that can be
// checked from shapes, types, thread groups and strides is checked here, at the user's line: the
// column count of an allocation, the mma's shapes and operands, and the lane quadrants a thread
// group may load and store.
#include <fmt/ranges.h>

#include "tessel/ir/target_limits.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"
#include "tile_tracing.hpp"

namespace tessel {

namespace {

// Allocation and deallocation are by the whole block: a thread group that is not the block
// would leave the block's other threads out of the sync() that publishes the address.
void check_whole_block(Builder& b, std::string_view what, const SourceLoc& loc) {
  const ir::ThreadRange group = b.group(loc);
  if (b.inside_thread_group() && group.count != b.attrs().warps * 32)
    throw Error(loc, fmt::format("{} inside a thread group of {}: tessel allocates with one warp and then syncs the "
                                 "whole block, which the threads outside the group never reach; call it outside the "
                                 "thread group",
                                 what, group.str()));
}

// tcgen05.mma and commit are issued by one thread of one warp.
void check_one_warp(Builder& b, std::string_view what, const SourceLoc& loc) {
  const ir::ThreadRange g = b.group(loc);
  if (!g.whole_warps() || g.count != 32)
    throw Error(loc, fmt::format("{} is issued by one warp (single_warp(), or a thread_group of 32 threads starting at "
                                 "a multiple of 32), but it runs in a thread group of {}",
                                 what, g.str()));
}

// The operand types an mma takes with scales of `format`.
std::string operand_rule(ScaleFormat format) {
  switch (format) {
    case ScaleFormat::none:
      return "without block scales, it takes f16 or bf16 operands of one type (kind::f16), tf32 operands "
             "(kind::tf32), or e4m3, e5m2, e2m3, e3m2 and e2m1 operands in any pairing, the last three in tiles "
             "created with Packing::chunks16 (kind::f8f6f4), and an f32 accumulator, or i8 and u8 operands in any "
             "pairing and an i32 accumulator (kind::i8); f4e2m1 pairs (Packing::dense) take block scales "
             "(BlockScales)";
    case ScaleFormat::ue8m0:
      return "with ue8m0 block scales, it takes kind::f8f6f4's operands (kind::mxf8f6f4) or f4e2m1 pairs of one "
             "type, Packing::dense (kind::mxf4), and an f32 accumulator";
    case ScaleFormat::ue4m3:
      return "with ue4m3 block scales, it takes f4e2m1 pairs of one type, Packing::dense (kind::mxf4nvf4, NVFP4), "
             "and an f32 accumulator";
  }
  return "";
}

// The block scales of operand a (0) or b (1): a u32 tile of tensor memory at lane 0 of 128 lanes
// with the columns the mma reads.
void check_scale_tile(const ir::Tcgen05MmaNode& n, int operand, const SourceLoc& loc) {
  const ir::TMemoryTensor& t = operand == 0 ? n.scale_a : n.scale_b;
  const int columns = n.scale_columns(operand);
  if (t->dtype == DType::U32 && t->shape[0] == 128 && t->lane_offset == 0 && t->shape[1] >= columns) return;
  const int groups = columns / n.scale_group_columns(operand);
  throw Error(loc, fmt::format("tcgen05.mma: the block scales of {} must be a u32 tile of tensor memory [128, c] at "
                               "lane 0 with c >= {} (this mma reads {} group{} of {} columns, four scales per cell); "
                               "got {}[{}] at lane {}",
                               operand == 0 ? "a" : "b", columns, groups, groups == 1 ? "" : "s",
                               n.scale_group_columns(operand), dtype_name(t->dtype), fmt::join(t->shape, ", "),
                               t->lane_offset));
}

}  // namespace

namespace detail {

void check_lane_quadrants(Builder& b, const ir::TMemoryTensor& t, std::string_view what, const SourceLoc& loc) {
  const ir::ThreadRange g = b.group(loc);
  const int lanes = t->shape[0], first = t->lane_offset;
  const int first_warp = g.begin / 32;
  if (g.whole_warps() && g.count == lanes && first_warp % 4 == first / 32 % 4) return;
  throw Error(loc, fmt::format("{}: warp w may access only tensor-memory lanes 32*(w mod 4) to 32*(w mod 4)+31, so "
                               "lanes {}..{} need a thread group of {} threads (one warp per 32 lanes) whose first "
                               "warp w has w mod 4 = {}; this thread group is {} (its first warp is warp {})",
                               what, first, first + lanes - 1, lanes, first / 32 % 4, g.str(), first_warp));
}

}  // namespace detail

TMemoryTensor Tcgen05Instructions::make_alloc(DType t, const std::vector<int>& shape, CtaGroup group,
                                              const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  check_whole_block(b, "tcgen05.alloc", loc);
  if (dtype_bytes(t) != 4)
    throw Error(loc, fmt::format("tcgen05.alloc<{}>: tensor memory holds 32-bit elements (f32, i32, u32), one per "
                                 "column",
                                 dtype_name(t)));
  if (shape.size() != 2 || (shape[0] != 64 && shape[0] != 128))
    throw Error(loc, fmt::format("tcgen05.alloc: the shape [{}] must be [lanes, columns] with 64 or 128 lanes",
                                 fmt::join(shape, ", ")));
  const int columns = ir::target_limits(ir::Arch::Sm100a).tmem_columns;
  if (shape[1] < 1 || shape[1] > columns)
    throw Error(loc, fmt::format("tcgen05.alloc: [{}, {}] needs {} columns of tensor memory; a block has {} (from 1 "
                                 "to {} columns per allocation)",
                                 shape[0], shape[1], shape[1], columns, columns));
  auto address = ir::make<ir::SharedTensorNode>(
      ir::SharedTensorNode{DType::U32, {1}, {1}, nullptr, nullptr, "tmem_address", loc, 0});
  b.emit(ir::make<ir::AllocSharedNode>(loc, address));
  if (group == CtaGroup::two && shape[0] != 128)
    throw Error(loc, fmt::format("tcgen05.alloc: a pair's tile (CtaGroup::two) has 128 lanes in each block, the "
                                 "block's half of a pair mma's 256 rows; got [{}]",
                                 fmt::join(shape, ", ")));
  auto tensor = ir::make<ir::TMemoryTensorNode>(t, shape, nullptr, 0, nullptr, address, "tmem", loc, int(group));
  b.emit(ir::make<ir::ThreadGroupNode>(loc, 0, 32, ir::seq({ir::make<ir::Tcgen05AllocNode>(loc, tensor)}, loc)));
  b.emit(ir::make<ir::SyncNode>(loc));
  return TMemoryTensor(tensor);
}

void Tcgen05Instructions::dealloc(const TMemoryTensor& t, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  if (t.ir()->root)
    throw Error(loc, fmt::format("tcgen05.dealloc: {} is a slice of the tensor memory allocated at {}; deallocate the "
                                 "allocation itself",
                                 t.ir()->name, t.ir()->root->loc.str()));
  const ir::ThreadRange g = b.group(loc);
  if (!g.whole_warps())
    throw Error(loc, fmt::format("tcgen05.dealloc is executed by a whole warp, but it runs in a thread group of {}; "
                                 "call it outside the group or in a group of whole warps",
                                 g.str()));
  b.emit(
      ir::make<ir::ThreadGroupNode>(loc, g.begin, 32, ir::seq({ir::make<ir::Tcgen05DeallocNode>(loc, t.ir())}, loc)));
}

void Tcgen05Instructions::make_mma(const SharedTensor& a, const SharedTensor& b, const TMemoryTensor& acc,
                                   ir::Expr enable_input_d, const BlockScales* scales, bool saturate,
                                   const SourceLoc& loc) {
  Builder& bld = Builder::current(loc);
  check_one_warp(bld, "tcgen05.mma", loc);
  const auto rank_ok = [](const SharedTensor& t) { return t.shape().size() == 2 || t.shape().size() == 3; };
  if (!rank_ok(a) || !rank_ok(b))
    throw Error(loc, "tcgen05.mma: a and b must be 2-D shared tiles (or MN-major in span-wide blocks, 3-D tiles)");
  const int pair = acc.ir()->allocation()->cta_group;
  const std::vector<int> a_shape = detail::mma_operand_shape(a.ir(), 1), b_shape = detail::mma_operand_shape(b.ir(), 0);
  const int m = a_shape[0], k = a_shape[1], n = b_shape[1] * pair;
  if (b_shape[0] != k || acc.shape()[0] != m || acc.shape()[1] != n)
    throw Error(
        loc, pair == 1 ? fmt::format("tcgen05.mma: shapes [{}] @ [{}] into [{}] do not match (want a [m, k], b "
                                     "[k, n], acc [m, n])",
                                     fmt::join(a_shape, ", "), fmt::join(b_shape, ", "), fmt::join(acc.shape(), ", "))
                       : fmt::format("tcgen05.mma: shapes [{}] @ [{}] into the pair's [{}] do not match (want "
                                     "each block's halves a [128, k] and b [k, n / 2], and acc [128, n])",
                                     fmt::join(a_shape, ", "), fmt::join(b_shape, ", "), fmt::join(acc.shape(), ", ")));
  const std::optional<Tcgen05Kind> kind =
      tcgen05_kind({a.dtype(), a.ir()->allocation()->chunks16}, {b.dtype(), b.ir()->allocation()->chunks16},
                   scales ? scales->format : ScaleFormat::none);
  if (!kind || acc.dtype() != (kind == Tcgen05Kind::i8 ? DType::I32 : DType::F32))
    throw Error(loc, fmt::format("tcgen05.mma: {}; got {} @ {} into {}",
                                 operand_rule(scales ? scales->format : ScaleFormat::none), dtype_name(a.dtype()),
                                 dtype_name(b.dtype()), dtype_name(acc.dtype())));
  if (saturate && kind != Tcgen05Kind::i8)
    throw Error(loc, fmt::format("tcgen05.mma(..., saturate): saturation clamps the i32 sums of 8-bit integer "
                                 "operands (kind::i8); {} @ {} into {} sums in floating point",
                                 dtype_name(a.dtype()), dtype_name(b.dtype()), dtype_name(acc.dtype())));
  if (m != 128)
    throw Error(loc, fmt::format("tcgen05.mma: m = {}: tessel issues the M = 128 shape, whose row i is lane i of the "
                                 "accumulator; use an accumulator of 128 lanes",
                                 m));
  if (acc.ir()->lane_offset != 0)
    throw Error(loc, fmt::format("tcgen05.mma: the accumulator starts at lane {}; an M = 128 accumulator spans lanes "
                                 "0..127",
                                 acc.ir()->lane_offset));
  if (!tcgen05_mma_shape_is_legal(m * pair, n, pair))
    throw Error(loc, fmt::format("tcgen05.mma: n = {} is not a tcgen05.mma shape; with m = {}, n must be a multiple "
                                 "of 16 from 16 to 256",
                                 n, m * pair));
  const int step = tcgen05_instruction_k(*kind);
  if (k % step != 0 || wgmma_swizzle_bits(k * a.ir()->slot_bits() / 8) < 0)
    throw Error(loc, fmt::format("tcgen05.mma: k = {} does not fit; with {} operands k must be {}, {} or {} (one "
                                 "instruction per {}, and shared rows of 32, 64 or 128 bytes, one swizzle span)",
                                 k, dtype_name(a.dtype()), step, 2 * step, 4 * step, step));
  detail::check_mma_operand(a.ir(), "tcgen05.mma", "a", 1, loc);
  detail::check_mma_operand(b.ir(), "tcgen05.mma", "b", 0, loc);
  if (scales && pair != 1)
    throw Error(loc,
                "tcgen05.mma: a block-scaled mma into a pair's tile (CtaGroup::two) is not supported; allocate "
                "the accumulator with CtaGroup::one");
  auto node = ir::make<ir::Tcgen05MmaNode>(loc, acc.ir(), a.ir(), b.ir(), std::move(enable_input_d),
                                           scales ? scales->a.ir() : nullptr, scales ? scales->b.ir() : nullptr,
                                           scales ? scales->format : ScaleFormat::none);
  node->saturate = saturate;
  if (scales) {
    check_scale_tile(*node, 0, loc);
    check_scale_tile(*node, 1, loc);
  }
  bld.emit(node);
}

void Tcgen05Instructions::copy(const SharedTensor& src, const TMemoryTensor& dst, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_one_warp(b, "tcgen05.copy", loc);
  const bool to_every_quadrant = src.shape() == std::vector<int>{32, 4};
  const int row_bytes = src.shape().size() == 2 ? src.shape()[1] * dtype_bytes(src.dtype()) : 0;
  const bool columns_match = to_every_quadrant ? dst.shape()[1] == 4 : src.shape() == dst.shape();
  if (!columns_match || dtype_bytes(src.dtype()) != 4 || src.dtype() != dst.dtype() || dst.shape()[0] != 128 ||
      dst.ir()->lane_offset != 0 || (!to_every_quadrant && wgmma_swizzle_bits(row_bytes) < 0))
    throw Error(loc, fmt::format("tcgen05.copy: copies a shared tile [128, c] into a tensor-memory tile [128, c] at "
                                 "lane 0, both of one 32-bit type, c 8, 16 or 32, or a shared tile [32, 4] into [128, "
                                 "4] (to every lane quadrant); got {}[{}] into {}[{}] at lane {}",
                                 dtype_name(src.dtype()), fmt::join(src.shape(), ", "), dtype_name(dst.dtype()),
                                 fmt::join(dst.shape(), ", "), dst.ir()->lane_offset));
  if (dst.ir()->allocation()->cta_group == 2)
    throw Error(loc,
                "tcgen05.copy: copying into a pair's tile (CtaGroup::two) is not supported; copy into tensor "
                "memory of a kernel that allocates with CtaGroup::one");
  if (!to_every_quadrant)
    detail::check_k_major_operand(src.ir(), "tcgen05.copy", "the source", 1, loc);
  else if (src.ir()->strides != std::vector<int>{4, 1} || src.ir()->allocation()->swizzle_bits > 0)
    throw Error(loc, fmt::format("tcgen05.copy: a [32, 4] source is read as 32 rows of 16 bytes, one after another "
                                 "without swizzle; give a whole row-major tile created with Swizzle::none (this "
                                 "view has strides [{}]{})",
                                 fmt::join(src.ir()->strides, ", "),
                                 src.ir()->allocation()->swizzle_bits > 0 ? " and its tile a swizzle" : ""));
  b.emit(ir::make<ir::Tcgen05CopyNode>(loc, dst.ir(), src.ir()));
}

void Tcgen05Instructions::commit(const Mbarrier& bar, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_one_warp(b, "tcgen05.commit", loc);
  b.emit(ir::make<ir::Tcgen05CommitNode>(loc, bar.ir()));
}

void Tcgen05Instructions::commit(const Mbarrier& bar, const Multicast& multicast, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_one_warp(b, "tcgen05.commit", loc);
  b.emit(ir::make<ir::Tcgen05CommitNode>(loc, bar.ir(), multicast.cta_mask.ir()));
}

RegisterTensor Tcgen05Instructions::load(const TMemoryTensor& t, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  detail::check_lane_quadrants(b, t.ir(), "tcgen05.load", loc);
  const std::vector<int>& shape = t.shape();
  auto out = detail::new_tile(t.dtype(), shape, Layout{}, "r", loc);
  b.emit(ir::make<ir::Tcgen05LoadNode>(loc, out, t.ir()));
  return RegisterTensor(out);
}

void Tcgen05Instructions::wait_load(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::Tcgen05WaitNode>(loc, false));
}

void Tcgen05Instructions::store(const TMemoryTensor& t, const RegisterTensor& r, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  detail::check_lane_quadrants(b, t.ir(), "tcgen05.store", loc);
  if (r.shape() != t.shape() || r.dtype() != t.dtype())
    throw Error(loc, fmt::format("tcgen05.store: a register tile {}[{}] into tensor memory {}[{}]; shapes and types "
                                 "must match",
                                 dtype_name(r.dtype()), fmt::join(r.shape(), ", "), dtype_name(t.dtype()),
                                 fmt::join(t.shape(), ", ")));
  detail::check_group(r.ir(), "tcgen05.store", loc);
  b.emit(ir::make<ir::Tcgen05StoreNode>(loc, t.ir(), r.ir()));
}

void Tcgen05Instructions::wait_store(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::Tcgen05WaitNode>(loc, true));
}

TMemoryTensor Tcgen05Instructions::slice(const TMemoryTensor& t, std::vector<Dim> offsets, std::vector<int> shape,
                                         std::vector<int> dims, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (dims != std::vector<int>{0, 1} || offsets.size() != 2 || shape.size() != 2)
    throw Error(loc, fmt::format("tcgen05.slice: tensor memory tiles are 2-D: pass two offsets, a 2-D shape and dims "
                                 "{{0, 1}} (got {} offsets, shape [{}], dims [{}])",
                                 offsets.size(), fmt::join(shape, ", "), fmt::join(dims, ", ")));
  const ir::TMemoryTensor& from = t.ir();
  if (!offsets[0].is_constant() || offsets[0].value() % 32 != 0 || shape[0] % 32 != 0 || shape[0] <= 0 ||
      offsets[0].value() < 0 || offsets[0].value() + shape[0] > from->shape[0])
    throw Error(loc, fmt::format("tcgen05.slice: lanes [{}, +{}) of a tile of {} lanes; the lane offset must be a "
                                 "trace-time multiple of 32 and the slice whole warps' quadrants inside the tile",
                                 offsets[0].is_constant() ? std::to_string(offsets[0].value()) : "a kernel value",
                                 shape[0], from->shape[0]));
  if (shape[1] <= 0 || shape[1] > from->shape[1] ||
      (offsets[1].is_constant() && (offsets[1].value() < 0 || offsets[1].value() + shape[1] > from->shape[1])))
    throw Error(loc, fmt::format("tcgen05.slice: columns [{}, +{}) do not fit in the tile's {} columns",
                                 offsets[1].is_constant() ? std::to_string(offsets[1].value()) : "a kernel value",
                                 shape[1], from->shape[1]));
  const ir::TMemoryTensor root = from->root ? from->root : from;
  ir::Expr column =
      from->column_offset ? ir::binary(ir::BinaryOp::Add, from->column_offset, offsets[1].ir(), loc) : offsets[1].ir();
  return TMemoryTensor(ir::make<ir::TMemoryTensorNode>(from->dtype, std::move(shape), root,
                                                       from->lane_offset + offsets[0].value(), column, nullptr,
                                                       from->name, loc, from->cta_group));
}

}  // namespace tessel
