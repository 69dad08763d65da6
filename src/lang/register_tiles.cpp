// Register tiles as values: copies, assignment, conversion, slices, and the statements that name a tile
// (layout pins, debug printing).
#include <fmt/ranges.h>

#include "tile_tracing.hpp"

namespace tessel {

using detail::check_group;
using detail::check_pinned_layout;
using detail::new_tile;

TileOperand::TileOperand(const RegisterTensor& t, std::source_location l) : tensor(t.ir()), loc(SourceLoc::from(l)) {
  if (!tensor) throw Error(loc, "use of an unassigned RegisterTensor");
}

TileArgument::TileArgument(const RegisterTensor& t, std::source_location l) : tile(t), loc(SourceLoc::from(l)) {
  if (!t.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
}

RegisterTensor::RegisterTensor(const RegisterTensor& other, std::source_location l) {
  if (!other.t_) return;
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(other.t_, "copy", loc);
  t_ = new_tile(other.dtype(), other.shape(), Layout(), other.t_->name, loc);
  b.emit(std::make_shared<ir::AllocRegisterNode>(loc, t_, ir::const_int(0, other.dtype())));
  b.emit(std::make_shared<ir::CopyRegisterNode>(loc, t_, other.t_));
}

RegisterTensor& RegisterTensor::operator=(const TileArgument& other) & {
  assign(other.tile, other.loc);
  return *this;
}

void RegisterTensor::assign(const RegisterTensor& other, const SourceLoc& loc) {
  if (!t_) {
    t_ = other.t_;
    return;
  }
  if (other.shape() != shape() || other.dtype() != dtype())
    throw Error(loc, fmt::format("assignment to register tile {} (reg<{}>[{}]) from a tile of a different type "
                                 "(reg<{}>[{}]); convert with .to<T>() or keep the shapes equal",
                                 t_->name, dtype_name(dtype()), fmt::join(shape(), ", "), dtype_name(other.dtype()),
                                 fmt::join(other.shape(), ", ")));
  check_group(t_, "assignment", loc);
  check_group(other.t_, "assignment", loc);
  Builder::current(loc).emit(std::make_shared<ir::CopyRegisterNode>(loc, t_, other.t_));
}

RegisterTensor& RegisterTensor::update(ir::BinaryOp op, const TileOperand& b) {
  if (!t_) throw Error(b.loc, "use of an unassigned RegisterTensor");
  TileOperand self(*this);
  self.loc = b.loc;
  assign(elementwise(op, self, b), b.loc);
  return *this;
}

RegisterTensor RegisterTensor::cast_to(DType t, SourceLoc loc) const {
  Builder& b = Builder::current(loc);
  check_group(t_, "to<T>()", loc);
  auto out = new_tile(t, shape(), Layout(), "r", loc);
  b.emit(std::make_shared<ir::CastTensorNode>(loc, out, t_));
  return RegisterTensor(out);
}

RegisterTensor RegisterTensor::slice(std::vector<int> offsets, std::vector<int> shape, std::source_location l) const {
  const SourceLoc loc = SourceLoc::from(l);
  if (!t_) throw Error(loc, "use of an unassigned RegisterTensor");
  Builder& b = Builder::current(loc);
  check_group(t_, "slice", loc);
  const auto& extent = this->shape();
  if (offsets.size() != extent.size() || shape.size() != extent.size())
    throw Error(loc, fmt::format("slice of register tile {} (reg<{}>[{}]): give {} offsets and {} extents, got {} "
                                 "and {}",
                                 t_->name, dtype_name(dtype()), fmt::join(extent, ", "), extent.size(), extent.size(),
                                 offsets.size(), shape.size()));
  for (size_t d = 0; d < extent.size(); ++d)
    if (shape[d] <= 0 || offsets[d] < 0 || offsets[d] + shape[d] > extent[d])
      throw Error(loc, fmt::format("slice of register tile {} (reg<{}>[{}]): [{}, {}) is outside dimension {} of "
                                   "extent {}",
                                   t_->name, dtype_name(dtype()), fmt::join(extent, ", "), offsets[d],
                                   offsets[d] + shape[d], d, extent[d]));
  auto out = new_tile(dtype(), shape, Layout(), t_->name, loc);
  b.emit(std::make_shared<ir::SliceRegisterNode>(loc, out, t_, std::move(offsets)));
  return RegisterTensor(out);
}

void Instructions::annotate_layout(const RegisterTensor& x, const Layout& layout, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(x.ir(), "annotate_layout", loc);
  if (layout.rank() == 0) throw Error(loc, "annotate_layout: the layout is empty");
  check_pinned_layout(layout, x.shape(), "annotate_layout", loc);
  b.emit(std::make_shared<ir::AnnotateLayoutNode>(loc, x.ir(), layout));
}

void Instructions::print(const std::string& label, const RegisterTensor& x, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(x.ir(), "print", loc);
  b.emit(std::make_shared<ir::PrintTensorNode>(loc, label, x.ir()));
}

}  // namespace tessel
