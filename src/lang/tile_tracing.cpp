#include "tile_tracing.hpp"

#include <fmt/ranges.h>

namespace tessel::detail {

std::vector<int> static_shape(const std::vector<Dim>& shape, std::string_view what, const SourceLoc& loc) {
  std::vector<int> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_constant())
      throw Error(loc, fmt::format("{}: dimension {} of the shape must be a compile-time int, but it is a run-time "
                                   "value; use a hyperparameter or a compile-time (int) kernel parameter",
                                   what, i));
    if (shape[i].value() <= 0)
      throw Error(loc,
                  fmt::format("{}: dimension {} of the shape must be positive, got {}", what, i, shape[i].value()));
    out.push_back(shape[i].value());
  }
  if (out.empty()) throw Error(loc, fmt::format("{}: the shape must have at least one dimension", what));
  return out;
}

std::vector<ir::Expr> exprs_of(const std::vector<Dim>& dims) {
  std::vector<ir::Expr> out;
  for (const Dim& d : dims) out.push_back(d.ir());
  return out;
}

void check_pinned_layout(const Layout& given, const std::vector<int>& shape, std::string_view what,
                         const SourceLoc& loc) {
  const ir::ThreadRange g = Builder::current(loc).group(loc);
  if (given.rank() == 0) return;
  if (given.shape() != shape)
    throw Error(loc, fmt::format("{}: the layout covers shape [{}] but the tile has shape [{}]", what,
                                 fmt::join(given.shape(), ", "), fmt::join(shape, ", ")));
  if (given.num_threads() != g.count) {
    const bool divides = given.num_threads() < g.count && g.count % given.num_threads() == 0;
    throw Error(loc, fmt::format("{}: the layout distributes the tile over {} threads but the current thread group "
                                 "has {}{}",
                                 what, given.num_threads(), g.count,
                                 divides ? fmt::format("; give each element to {0} threads with "
                                                       "Layout::replicated({1}, {0}) in the composition",
                                                       g.count / given.num_threads(), shape.size())
                                         : ""));
  }
}

ir::RegisterTensor new_tile(DType t, std::vector<int> shape, Layout layout, std::string name, SourceLoc loc) {
  const int threads = Builder::current(loc).group(loc).count;
  return ir::make<ir::RegisterTensorNode>(t, std::move(shape), threads, std::move(layout), std::move(name),
                                          std::move(loc));
}

void check_group(const ir::RegisterTensor& t, std::string_view what, const SourceLoc& loc) {
  const ir::ThreadRange g = Builder::current(loc).group(loc);
  if (t->threads != g.count)
    throw Error(loc, fmt::format("{}: the tile created at {} is distributed over {} threads, but the current thread "
                                 "group has {} threads; use tiles inside the thread group that created them",
                                 what, t->loc.str(), t->threads, g.count));
}

ir::Operand resolve(const TileOperand& o, DType tile_type, bool keeps_bits) {
  if (o.tensor) return ir::Operand{o.tensor, nullptr};
  if (o.literal) {
    const auto& c = static_cast<const ir::ConstNode&>(*o.scalar);
    return ir::Operand{nullptr, is_float(o.scalar->type.dtype) ? literal_as(tile_type, c.f, &o.loc, true)
                                                               : literal_as(tile_type, c.i, &o.loc, true, keeps_bits)};
  }
  return ir::Operand{nullptr, o.scalar};
}

}  // namespace tessel::detail
