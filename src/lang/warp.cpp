// The warp instruction group: the Shuffle and Vote instructions, for kernel values and tiles; and
// convert_layout, which moves a tile's elements by shuffles (or across warps through shared memory).
#include "tessel/lang/warp.hpp"

#include <fmt/ranges.h>

#include "tessel/lang/script.hpp"

#include "tile_tracing.hpp"

namespace tessel {

using detail::check_group;
using detail::new_tile;

ir::Expr WarpInstructions::scalar_shuffle(ir::ShuffleMode mode, ir::Expr value, const Dim& lane, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  const DType t = value->type.dtype;
  ir::Var result = ir::make_var(ir::Type{t}, "shuffled", loc);
  b.emit(ir::make<ir::DeclareNode>(loc, result, is_float(t) ? ir::const_float(0, t) : ir::const_int(0, t)));
  b.emit(ir::make<ir::ShuffleNode>(loc, result, nullptr, mode, ir::Operand{nullptr, std::move(value)}, lane.ir()));
  return result;
}

RegisterTensor WarpInstructions::tile_shuffle(ir::ShuffleMode mode, const RegisterTensor& value, const Dim& lane,
                                              const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  if (!value.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
  check_group(value.ir(), fmt::format("warp.{}", ir::shuffle_name(mode)), loc);
  auto out = new_tile(value.dtype(), value.shape(), Layout(), value.ir()->name, loc);
  b.emit(ir::make<ir::ShuffleNode>(loc, nullptr, out, mode, ir::Operand{value.ir(), nullptr}, lane.ir()));
  return RegisterTensor(out);
}

namespace {

// A relayout of x into `layout`, or, with none, into the layout inference gives its result.
RegisterTensor relayout(const RegisterTensor& x, const Layout* layout, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  if (!x.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
  check_group(x.ir(), "convert_layout", loc);
  const ir::ThreadRange g = b.group(loc);
  if (!g.whole_warps())
    throw Error(loc, fmt::format("convert_layout moves elements by warp shuffles, or across warps through shared "
                                 "memory at a barrier of the thread group, which whole warps run, but the thread "
                                 "group {} splits a warp",
                                 g.str()));
  if (is_packed(x.dtype()))
    throw Error(loc, fmt::format("convert_layout does not take packed {} elements (the register tile created at {}); "
                                 "packed tiles are loaded, stored, copied, bitcast and converted: convert it first "
                                 "(.to<i8>()), or bitcast it to 32-bit words and convert the layout of those",
                                 dtype_name(x.dtype()), x.ir()->loc.str()));
  if (layout) {
    if (layout->rank() == 0) throw Error(loc, "convert_layout: the layout is empty");
    detail::check_pinned_layout(*layout, x.shape(), "convert_layout", loc);
  }
  auto out = new_tile(x.dtype(), x.shape(), layout ? *layout : Layout(), x.ir()->name, loc);
  b.emit(ir::make<ir::RelayoutNode>(loc, out, x.ir()));
  return RegisterTensor(out);
}

}  // namespace

RegisterTensor Instructions::convert_layout(const RegisterTensor& x, const Layout& layout, loc_t l) {
  return relayout(x, &layout, SourceLoc::from(l));
}

RegisterTensor Instructions::convert_layout(const RegisterTensor& x, loc_t l) {
  return relayout(x, nullptr, SourceLoc::from(l));
}

RegisterTensor WarpInstructions::shuffle(const RegisterTensor& value, const Dim& lane, loc_t loc) {
  return tile_shuffle(ir::ShuffleMode::Index, value, lane, SourceLoc::from(loc));
}
RegisterTensor WarpInstructions::shuffle_xor(const RegisterTensor& value, const Dim& mask, loc_t loc) {
  return tile_shuffle(ir::ShuffleMode::Xor, value, mask, SourceLoc::from(loc));
}
RegisterTensor WarpInstructions::shuffle_up(const RegisterTensor& value, const Dim& delta, loc_t loc) {
  return tile_shuffle(ir::ShuffleMode::Up, value, delta, SourceLoc::from(loc));
}
RegisterTensor WarpInstructions::shuffle_down(const RegisterTensor& value, const Dim& delta, loc_t loc) {
  return tile_shuffle(ir::ShuffleMode::Down, value, delta, SourceLoc::from(loc));
}

ir::Expr WarpInstructions::vote(ir::VoteMode mode, const Expr<bool>& predicate, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  const DType t = mode == ir::VoteMode::Ballot ? DType::U32 : DType::Bool;
  ir::Var result = ir::make_var(ir::Type{t}, std::string(ir::vote_name(mode)), loc);
  b.emit(ir::make<ir::DeclareNode>(loc, result, ir::const_int(0, t)));
  b.emit(ir::make<ir::VoteNode>(loc, result, mode, predicate.ir()));
  return result;
}

Expr<uint32_t> WarpInstructions::ballot(const Expr<bool>& predicate, loc_t loc) {
  return Expr<uint32_t>(vote(ir::VoteMode::Ballot, predicate, SourceLoc::from(loc)));
}
Expr<bool> WarpInstructions::any(const Expr<bool>& predicate, loc_t loc) {
  return Expr<bool>(vote(ir::VoteMode::Any, predicate, SourceLoc::from(loc)));
}
Expr<bool> WarpInstructions::all(const Expr<bool>& predicate, loc_t loc) {
  return Expr<bool>(vote(ir::VoteMode::All, predicate, SourceLoc::from(loc)));
}

}  // namespace tessel
