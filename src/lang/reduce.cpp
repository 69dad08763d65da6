// Reductions and scans of a register tile along one dimension.
#include "tile_tracing.hpp"

namespace tessel {

using detail::check_group;
using detail::new_tile;
using detail::tile_text;

namespace {

// Sums of bools and of 8- and 16-bit integers are taken in 32 bits, signed or unsigned as the
// operand: a sum of bools counts, and a sum of bytes does not wrap at 256.
DType summed_type(DType t) {
  if (t == DType::Bool || t == DType::I8 || t == DType::I16) return DType::I32;
  if (t == DType::U8 || t == DType::U16) return DType::U32;
  return t;
}

// max(t, 0) reads as the elementwise maximum with 0, but 0 is a dimension; over an extent of 1 it
// would return the tile unchanged, which is never what was meant.
void check_not_elementwise(ir::ReduceOp op, const RegisterTensor& x, int dim, const SourceLoc& loc) {
  if (dim < 0 || dim >= int(x.shape().size()) || x.shape()[size_t(dim)] != 1) return;
  throw Error(loc, fmt::format("{0}(t, {1}) reduces dimension {1} of {2}, whose extent is 1, so it would return the "
                               "tile unchanged; the elementwise {3} of a tile and a value is {3}(t, value), with a "
                               "value of the tile's type (0.0f for a float tile)",
                               ir::op_name(op), dim, tile_text(x), op == ir::ReduceOp::Max ? "maximum" : "minimum"));
}

}  // namespace

RegisterTensor Instructions::reduce(ir::ReduceOp op, const RegisterTensor& x, int dim, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  const std::string what(ir::op_name(op));
  check_group(x.ir(), what, loc);
  if (dim < 0 || dim >= int(x.shape().size()))
    throw Error(loc, fmt::format("{}: dim {} is out of range for a tile of rank {}", what, dim, x.shape().size()));
  if (op == ir::ReduceOp::Sum && summed_type(x.dtype()) != x.dtype())
    return reduce(op, x.cast_to(summed_type(x.dtype()), loc), dim, loc);
  std::vector<int> reduced_shape = x.shape();
  reduced_shape[dim] = 1;
  auto out = new_tile(x.dtype(), reduced_shape, Layout(), "r", loc);
  b.emit(ir::make<ir::ReduceNode>(loc, out, op, x.ir(), dim));
  return RegisterTensor(out);
}

RegisterTensor Instructions::scan(ir::ReduceOp op, const RegisterTensor& x, int dim, ScanKind kind, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  const std::string what = fmt::format("cum{}", ir::op_name(op));
  check_group(x.ir(), what, loc);
  if (dim < 0 || dim >= int(x.shape().size()))
    throw Error(loc, fmt::format("{}: dim {} is out of range for a tile of rank {}", what, dim, x.shape().size()));
  if (op == ir::ReduceOp::Sum && summed_type(x.dtype()) != x.dtype())
    return scan(op, x.cast_to(summed_type(x.dtype()), loc), dim, kind, loc);
  if (x.dtype() == DType::Bool)
    throw Error(loc, fmt::format("{}: a tile of bool; convert it with .to<int32_t>() first", what));
  auto out = new_tile(x.dtype(), x.shape(), Layout(), "scan", loc);
  b.emit(ir::make<ir::ScanNode>(loc, out, op, x.ir(), dim, kind == ScanKind::exclusive));
  return RegisterTensor(out);
}

RegisterTensor Instructions::cumsum(const RegisterTensor& x, int dim, ScanKind kind, loc_t l) {
  return scan(ir::ReduceOp::Sum, x, dim, kind, SourceLoc::from(l));
}
RegisterTensor Instructions::cummax(const RegisterTensor& x, int dim, ScanKind kind, loc_t l) {
  return scan(ir::ReduceOp::Max, x, dim, kind, SourceLoc::from(l));
}
RegisterTensor Instructions::cummin(const RegisterTensor& x, int dim, ScanKind kind, loc_t l) {
  return scan(ir::ReduceOp::Min, x, dim, kind, SourceLoc::from(l));
}

RegisterTensor Instructions::sum(const RegisterTensor& x, int dim, loc_t l) {
  return reduce(ir::ReduceOp::Sum, x, dim, SourceLoc::from(l));
}
RegisterTensor Instructions::max(const RegisterTensor& x, int dim, loc_t l) {
  check_not_elementwise(ir::ReduceOp::Max, x, dim, SourceLoc::from(l));
  return reduce(ir::ReduceOp::Max, x, dim, SourceLoc::from(l));
}
RegisterTensor Instructions::min(const RegisterTensor& x, int dim, loc_t l) {
  check_not_elementwise(ir::ReduceOp::Min, x, dim, SourceLoc::from(l));
  return reduce(ir::ReduceOp::Min, x, dim, SourceLoc::from(l));
}

Extreme Instructions::extreme_with_position(ir::ReduceOp op, const RegisterTensor& x, int dim, SourceLoc loc) {
  const std::string what = fmt::format("arg{}", ir::op_name(op));
  Builder& b = Builder::current(loc);
  check_group(x.ir(), what, loc);
  if (dim < 0 || dim >= int(x.shape().size()))
    throw Error(loc, fmt::format("{}: dim {} is out of range for a tile of rank {}", what, dim, x.shape().size()));
  std::vector<int> reduced_shape = x.shape();
  reduced_shape[size_t(dim)] = 1;
  auto value = new_tile(x.dtype(), reduced_shape, Layout(), "r", loc);
  auto position = new_tile(DType::I32, reduced_shape, Layout(), "index", loc);
  auto node = ir::make<ir::ReduceNode>(loc, value, op, x.ir(), dim);
  node->position = position;
  b.emit(node);
  return {RegisterTensor(value), RegisterTensor(position)};
}

RegisterTensor Instructions::argmax(const RegisterTensor& x, int dim, loc_t l) {
  return extreme_with_position(ir::ReduceOp::Max, x, dim, SourceLoc::from(l)).position;
}
RegisterTensor Instructions::argmin(const RegisterTensor& x, int dim, loc_t l) {
  return extreme_with_position(ir::ReduceOp::Min, x, dim, SourceLoc::from(l)).position;
}
Extreme Instructions::max_and_argmax(const RegisterTensor& x, int dim, loc_t l) {
  return extreme_with_position(ir::ReduceOp::Max, x, dim, SourceLoc::from(l));
}
Extreme Instructions::min_and_argmin(const RegisterTensor& x, int dim, loc_t l) {
  return extreme_with_position(ir::ReduceOp::Min, x, dim, SourceLoc::from(l));
}

}  // namespace tessel
