// The tile family: register tiles as values (creation, copies, assignment, conversion, slices),
// the statements that name a tile (layout pins, debug printing), and elementwise instructions
// (arithmetic and comparison operators with broadcasting, unary math, fma and where).
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "tessel/ir/evaluate.hpp"
#include "tile_tracing.hpp"

namespace tessel {

namespace {
std::string width_text(DType t) {
  return t == DType::Bool ? "a predicate" : fmt::format("{} bits wide", dtype_bits(t));
}
}  // namespace

namespace detail {

std::string tile_text(const RegisterTensor& t) {
  return fmt::format("the tile reg<{}>[{}] (created at {})", dtype_name(t.dtype()), fmt::join(t.shape(), ", "),
                     t.ir()->loc.str());
}

}  // namespace detail

using detail::check_group;
using detail::check_pinned_layout;
using detail::new_tile;
using detail::resolve;
using detail::static_shape;
using detail::tile_text;

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
  b.emit(ir::make<ir::AllocRegisterNode>(loc, t_, ir::const_int(0, other.dtype())));
  b.emit(ir::make<ir::CopyRegisterNode>(loc, t_, other.t_));
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
    throw Error(loc, fmt::format("assignment to {} from a tile of a different type (reg<{}>[{}]); convert with "
                                 ".to<T>() or keep the shapes equal",
                                 tile_text(*this), dtype_name(other.dtype()), fmt::join(other.shape(), ", ")));
  check_group(t_, "assignment", loc);
  check_group(other.t_, "assignment", loc);
  Builder::current(loc).emit(ir::make<ir::CopyRegisterNode>(loc, t_, other.t_));
}

RegisterTensor& RegisterTensor::update(ir::BinaryOp op, const TileOperand& b) {
  if (!t_) throw Error(b.loc, "use of an unassigned RegisterTensor");
  TileOperand self(*this);
  self.loc = b.loc;
  assign(elementwise(op, self, b), b.loc);
  return *this;
}

RegisterTensor RegisterTensor::cast_to(DType t, SourceLoc loc, bool saturate, std::optional<Rounding> rounding) const {
  Builder& b = Builder::current(loc);
  check_group(t_, "to<T>()", loc);
  if (rounding && t != DType::E8M0)
    throw Error(loc,
                fmt::format("to<{}>(Rounding::{}) of {}: a rounding is stated for conversions to e8m0, whose "
                            "scales are powers of two; to<{}>() rounds as docs/language.md's \"Conversions\" "
                            "states",
                            dtype_name(t), *rounding == Rounding::up ? "up" : "down", tile_text(*this), dtype_name(t)));
  if (t == DType::E8M0 && dtype() == DType::E8M0) rounding.reset();
  if (t == DType::E8M0 && dtype() != DType::E8M0 && !rounding)
    throw Error(loc, fmt::format("to<e8m0>() of {}: an e8m0 scale is a power of two, so state how the magnitude "
                                 "rounds to one: to<e8m0>(Rounding::up), the least power of two not below it (a "
                                 "scale under which the scaled values stay in range), or to<e8m0>(Rounding::down), "
                                 "the greatest not above it",
                                 tile_text(*this)));
  if (saturate && !ir::saturates_to(t))
    throw Error(loc, fmt::format("to<{}>(saturate) of {}: saturation clamps to the range of an integer type of at most "
                                 "32 bits (i1 to i7 and u1 to u7 packed, i8, u8, i16, u16, i32, u32); {} is not one{}",
                                 dtype_name(t), tile_text(*this), dtype_name(t),
                                 is_float(t) && dtype_bits(t) <= 8
                                     ? fmt::format(", and to<{}>() saturates already (values beyond its largest "
                                                   "finite one become that, as cvt's .satfinite does)",
                                                   dtype_name(t))
                                     : ""));
  if (is_packed(t) && !is_float(t) && is_float(dtype()) && !saturate)
    throw Error(loc,
                fmt::format("to<{}>() of {}: a float converts to a packed integer through an integer type "
                            "(.to<i32>().to<{}>()) or with saturation (.to<{}>(saturate)), so that the rounding is "
                            "stated",
                            dtype_name(t), tile_text(*this), dtype_name(t), dtype_name(t)));
  auto out = new_tile(t, shape(), Layout(), "r", loc);
  auto cast = ir::make<ir::CastTensorNode>(loc, out, t_);
  cast->saturate = saturate;
  cast->rounding = rounding;
  b.emit(cast);
  return RegisterTensor(out);
}

ir::Expr RegisterTensor::element_as(DType t, SourceLoc loc) const {
  if (!t_) throw Error(loc, "use of an unassigned RegisterTensor");
  Builder& b = Builder::current(loc);
  check_group(t_, "item<T>()", loc);
  const int elements = std::accumulate(shape().begin(), shape().end(), 1, std::multiplies<>());
  if (elements != 1)
    throw Error(loc,
                fmt::format("item<{}>() of {}: only a tile of one element has a value; slice that element out "
                            "first (t.slice(offsets, {{{}}}))",
                            dtype_name(t), tile_text(*this), fmt::join(std::vector<int>(shape().size(), 1), ", ")));
  const ir::ThreadRange g = b.group(loc);
  // A group of one thread holds the element already; larger groups bring it to every thread.
  if (!g.whole_warps() && g.count != 1)
    throw Error(loc, fmt::format("item<{}>() brings the element to every thread by warp shuffles, or across warps "
                                 "through shared memory at a barrier of the thread group, which whole warps run, but "
                                 "the thread group {} splits a warp; take the value in whole warps, or in a "
                                 "single_thread(), whose one thread holds the element",
                                 dtype_name(t), g.str()));
  const RegisterTensor value = dtype() == t ? *this : cast_to(t, loc);
  ir::RegisterTensor everywhere = value.ir();
  if (g.count != 1) {
    everywhere = new_tile(t, shape(), Layout::replicated(int(shape().size()), g.count), t_->name, loc);
    b.emit(ir::make<ir::RelayoutNode>(loc, everywhere, value.ir()));
  }
  ir::Var result = ir::make_var(ir::Type{t}, "item", loc);
  b.emit(ir::make<ir::DeclareNode>(loc, result, is_float(t) ? ir::const_float(0, t) : ir::const_int(0, t)));
  b.emit(ir::make<ir::TileElementNode>(loc, result, everywhere));
  return result;
}

RegisterTensor RegisterTensor::bitcast_to(DType t, SourceLoc loc) const {
  if (!t_) throw Error(loc, "use of an unassigned RegisterTensor");
  Builder& b = Builder::current(loc);
  check_group(t_, "bitcast<T>()", loc);
  const int from = dtype_bits(dtype()), to = dtype_bits(t);
  // `run_from` consecutive elements of the last dimension hold the bits of `run_to` results.
  const int common = std::gcd(from, to), run_from = to / common, run_to = from / common;
  std::vector<int> out_shape = shape();
  const auto refuse = [&](const std::string& why) {
    return Error(loc, fmt::format("bitcast<{}>() of {}: {} is {} and {} is {}; {}", dtype_name(t), tile_text(*this),
                                  dtype_name(dtype()), width_text(dtype()), dtype_name(t), width_text(t), why));
  };
  if (t == DType::Bool || dtype() == DType::Bool)
    throw refuse("a bitcast keeps the bits of each element, and bool has none");
  const bool words_and_packed = (from == 32 && is_packed(t)) || (to == 32 && is_packed(dtype()));
  if (std::max(from, to) % std::min(from, to) != 0 && !words_and_packed)
    throw refuse(
        "a bitcast regroups the bits of each element, so one width must be a multiple of the other (or one type "
        "be 32 bits wide and the other packed)");
  if (out_shape.back() % run_from != 0)
    throw refuse(
        fmt::format("{} consecutive elements of the last dimension make {} {} element{}, and its extent {} "
                    "is not a multiple of {}",
                    run_from, run_to == 1 ? "one" : std::to_string(run_to), dtype_name(t), run_to == 1 ? "" : "s",
                    out_shape.back(), run_from));
  out_shape.back() = out_shape.back() / run_from * run_to;
  auto out = new_tile(t, out_shape, Layout(), t_->name, loc);
  b.emit(ir::make<ir::BitcastTensorNode>(loc, out, t_));
  return RegisterTensor(out);
}

RegisterTensor RegisterTensor::slice(std::vector<int> offsets, std::vector<int> shape, std::source_location l) const {
  const SourceLoc loc = SourceLoc::from(l);
  if (!t_) throw Error(loc, "use of an unassigned RegisterTensor");
  Builder& b = Builder::current(loc);
  check_group(t_, "slice", loc);
  const auto& extent = this->shape();
  if (offsets.size() != extent.size() || shape.size() != extent.size())
    throw Error(loc, fmt::format("slice of {}: give {} offsets and {} extents, got {} and {}", tile_text(*this),
                                 extent.size(), extent.size(), offsets.size(), shape.size()));
  for (size_t d = 0; d < extent.size(); ++d)
    if (shape[d] <= 0 || offsets[d] < 0 || offsets[d] + shape[d] > extent[d])
      throw Error(loc, fmt::format("slice of {}: [{}, {}) is outside dimension {} of extent {}", tile_text(*this),
                                   offsets[d], offsets[d] + shape[d], d, extent[d]));
  auto out = new_tile(dtype(), shape, Layout(), t_->name, loc);
  b.emit(ir::make<ir::SliceRegisterNode>(loc, out, t_, std::move(offsets)));
  return RegisterTensor(out);
}

namespace {

RegisterTensor regroup(ir::Regroup kind, const RegisterTensor& a, const RegisterTensor* b, std::vector<int> shape,
                       std::vector<int> dims, const SourceLoc& loc) {
  Builder& builder = Builder::current(loc);
  check_group(a.ir(), ir::regroup_name(kind), loc);
  auto out = new_tile(a.dtype(), shape, Layout(), a.ir()->name, loc);
  builder.emit(ir::make<ir::RegroupRegistersNode>(loc, out, kind, a.ir(), b ? b->ir() : nullptr, std::move(dims)));
  return RegisterTensor(out);
}

// concat and interleave take two tiles of one type and shape, along one of their dimensions.
void check_pair(std::string_view what, const RegisterTensor& a, const RegisterTensor& b, int dim,
                const SourceLoc& loc) {
  if (!a.ir() || !b.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    throw Error(
        loc, fmt::format("{} of {} and {}: the tiles must have one type and shape", what, tile_text(a), tile_text(b)));
  if (dim < 0 || dim >= int(a.shape().size()))
    throw Error(loc, fmt::format("{} along dimension {} of tiles of rank {}", what, dim, a.shape().size()));
}

}  // namespace

RegisterTensor Instructions::reshape(const RegisterTensor& x, std::vector<int> shape, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (!x.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
  int64_t in = 1, out = 1;
  for (int e : x.shape()) in *= e;
  for (int e : shape) out *= e > 0 ? e : 0;
  if (in != out || shape.empty())
    throw Error(loc, fmt::format("reshape of {} to [{}]: {} elements cannot become {}", tile_text(x),
                                 fmt::join(shape, ", "), in, out));
  return regroup(ir::Regroup::Reshape, x, nullptr, shape, {}, loc);
}

RegisterTensor Instructions::permute(const RegisterTensor& x, std::vector<int> perm, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (!x.ir()) throw Error(loc, "use of an unassigned RegisterTensor");
  std::vector<int> sorted = perm, shape;
  std::sort(sorted.begin(), sorted.end());
  bool each_once = sorted.size() == x.shape().size();
  for (size_t i = 0; each_once && i < sorted.size(); ++i) each_once = sorted[i] == int(i);
  if (!each_once)
    throw Error(loc, fmt::format("permute of {} by [{}]: give each of its {} dimensions once", tile_text(x),
                                 fmt::join(perm, ", "), x.shape().size()));
  for (int d : perm) shape.push_back(x.shape()[size_t(d)]);
  return regroup(ir::Regroup::Permute, x, nullptr, shape, std::move(perm), loc);
}

RegisterTensor Instructions::concat(const RegisterTensor& a, const RegisterTensor& b, int dim, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  check_pair("concat", a, b, dim, loc);
  std::vector<int> shape = a.shape();
  shape[size_t(dim)] *= 2;
  return regroup(ir::Regroup::Concat, a, &b, shape, {dim}, loc);
}

RegisterTensor Instructions::interleave(const RegisterTensor& a, const RegisterTensor& b, int dim, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  check_pair("interleave", a, b, dim, loc);
  std::vector<int> shape = a.shape();
  shape[size_t(dim)] *= 2;
  return regroup(ir::Regroup::Interleave, a, &b, shape, {dim}, loc);
}

void Instructions::annotate_layout(const RegisterTensor& x, const Layout& layout, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(x.ir(), "annotate_layout", loc);
  if (layout.rank() == 0) throw Error(loc, "annotate_layout: the layout is empty");
  check_pinned_layout(layout, x.shape(), "annotate_layout", loc);
  b.emit(ir::make<ir::AnnotateLayoutNode>(loc, x.ir(), layout));
}

void Instructions::print(const std::string& label, const RegisterTensor& x, std::array<int, 3> block, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(x.ir(), "print", loc);
  b.emit(ir::make<ir::PrintTensorNode>(loc, label, x.ir(), block));
}

void Instructions::print(const std::string& label, const SharedTensor& x, std::array<int, 3> block, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::PrintSharedNode>(loc, label, x.ir(), block));
}

void Instructions::print(const std::string& label, const TMemoryTensor& x, std::array<int, 3> block, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  detail::check_lane_quadrants(b, x.ir(), "print", loc);
  const RegisterTensor loaded = tcgen05.load(x, l);
  auto node = ir::make<ir::PrintTensorNode>(loc, label, loaded.ir(), block);
  node->memory = "tmem";
  b.emit(node);
}

void Instructions::print_values(std::array<int, 3> block, const PrintFormat& format, std::vector<ir::Expr> values) {
  Builder& b = Builder::current(format.loc);
  size_t holes = 0;
  for (size_t at = format.text.find("{}"); at != std::string::npos; at = format.text.find("{}", at + 2)) ++holes;
  if (holes != values.size())
    throw Error(format.loc, fmt::format("print(\"{}\"): the format has {} {{}} for {} values; give one {{}} per value",
                                        format.text, holes, values.size()));
  b.emit(ir::make<ir::PrintValuesNode>(format.loc, format.text, std::move(values), block));
}

RegisterTensor Instructions::make_register_tensor(DType t, const std::vector<Dim>& shape, const TileOperand& init,
                                                  const Layout& layout, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  std::vector<int> s = static_shape(shape, "register_tensor", loc);
  if (init.tensor) throw Error(loc, "register_tensor: the initial value must be a scalar");
  if (t == DType::E8M0 && !init.literal)
    throw Error(loc, fmt::format("register_tensor<e8m0>: the initial value is an {} kernel value, and a conversion to "
                                 "e8m0 states its rounding; create the tile as {} and convert it with "
                                 ".to<e8m0>(Rounding::up) or .to<e8m0>(Rounding::down)",
                                 dtype_name(init.scalar->type.dtype), dtype_name(init.scalar->type.dtype)));
  // A literal that the tile's type cannot hold is the user's value or type to change: there is no
  // tile yet to convert.
  if (init.literal) {
    const auto& c = static_cast<const ir::ConstNode&>(*init.scalar);
    const double v = is_float(init.scalar->type.dtype) ? c.f : double(c.i);
    if (const std::optional<std::string> became = detail::literal_change(t, v))
      throw Error(loc, fmt::format("register_tensor<{0}>: the initial value {1} would become {2} in a tile of {0}; "
                                   "give a value that {0} holds, or create the tile with a type that holds {1}",
                                   dtype_name(t), v, *became));
  }
  check_pinned_layout(layout, s, "register_tensor", loc);
  auto out = new_tile(t, s, layout, "r", loc);
  b.emit(ir::make<ir::AllocRegisterNode>(loc, out, resolve(init, t).scalar));
  return RegisterTensor(out);
}

// ---- elementwise instructions: operators with broadcasting, unary math, fma and where ----

RegisterTensor elementwise(ir::BinaryOp op, const TileOperand& a, const TileOperand& b) {
  const SourceLoc& loc = a.tensor ? a.loc : b.loc;
  Builder& bld = Builder::current(loc);
  const std::string what(ir::op_name(op));
  if (!a.tensor && !b.tensor) throw Error(loc, fmt::format("{}: at least one operand must be a register tile", what));
  const DType ta = a.tensor ? a.tensor->dtype : DType::F32, tb = b.tensor ? b.tensor->dtype : DType::F32;
  DType t = a.tensor ? ta : tb;
  const bool shift = op == ir::BinaryOp::Shl || op == ir::BinaryOp::Shr;
  // A shift's amount may be of either signedness: the amounts a shift takes are the same in both.
  const auto amount_fits = [&](DType amount) {
    return shift && !is_float(t) && !is_float(amount) && amount != DType::Bool && dtype_bits(amount) == dtype_bits(t);
  };
  if (a.tensor && b.tensor && ta != tb && !amount_fits(tb))
    throw Error(loc, fmt::format("{}: operand types differ ({} and {}); convert one with .to<T>()", what,
                                 dtype_name(ta), dtype_name(tb)));
  for (const TileOperand* o : {&a, &b})
    if (!o->tensor && !o->literal && o->scalar->type.dtype != t && !(o == &b && amount_fits(o->scalar->type.dtype)))
      throw Error(loc, fmt::format("{}: the scalar operand is {} but the tile is {}; cast it with cast<T>()", what,
                                   o->scalar->type.str(), dtype_name(t)));
  // The result has the shape of the operand whose shape is the broadcast shape.
  const ir::RegisterTensor* full = nullptr;
  if (a.tensor && b.tensor) {
    const auto &sa = a.tensor->shape(), &sb = b.tensor->shape();
    if (sa.size() != sb.size())
      throw Error(loc, fmt::format("{}: operands have ranks {} and {} (shapes [{}] and [{}]); reshape one to the "
                                   "other's rank first",
                                   what, sa.size(), sb.size(), fmt::join(sa, ", "), fmt::join(sb, ", ")));
    std::vector<int> so(sa.size());
    for (size_t i = 0; i < sa.size(); ++i) {
      if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
        throw Error(loc, fmt::format("{}: cannot broadcast shapes [{}] and [{}]", what, fmt::join(sa, ", "),
                                     fmt::join(sb, ", ")));
      so[i] = std::max(sa[i], sb[i]);
    }
    if (so == sa)
      full = &a.tensor;
    else if (so == sb)
      full = &b.tensor;
    else
      throw Error(loc, fmt::format("{0}: broadcasting both operands ([{1}] and [{2}]) is not supported; give one of "
                                   "them the result's shape [{3}] first, as x + register_tensor<T>({{{3}}}, 0) does "
                                   "(a product of the two is fma(a, b, register_tensor<T>({{{3}}}, 0)))",
                                   what, fmt::join(sa, ", "), fmt::join(sb, ", "), fmt::join(so, ", ")));
  } else {
    full = a.tensor ? &a.tensor : &b.tensor;
  }
  for (const TileOperand* o : {&a, &b})
    if (o->tensor) check_group(o->tensor, what, loc);
  if (ir::is_bitwise(op) && (is_float(t) || t == DType::Bool))
    throw Error(loc, fmt::format("{}: bit operations need integer tiles, got {}; {}", what, dtype_name(t),
                                 is_float(t) ? "reinterpret a float's bits with .bitcast<T>() to an integer type of "
                                               "its width"
                                             : "combine conditions with && and ||"));
  int64_t amount = 0;
  if ((op == ir::BinaryOp::Shl || op == ir::BinaryOp::Shr) && !b.tensor && ir::as_const_int(b.scalar, &amount) &&
      (amount < 0 || amount >= dtype_bits(t)))
    throw Error(loc, fmt::format("{}: a shift amount must lie in [0, {}) for {} tiles, got {}", what, dtype_bits(t),
                                 dtype_name(t), amount));
  if ((op == ir::BinaryOp::And || op == ir::BinaryOp::Or) && t != DType::Bool)
    throw Error(loc, fmt::format("{}: && and || combine bool tiles (comparisons), got {}; compare first, as in "
                                 "(t > 0) && (t < 1)",
                                 what, dtype_name(t)));
  const DType out_type = ir::is_comparison(op) ? DType::Bool : t;
  auto out = new_tile(out_type, (*full)->shape(), Layout(), "r", loc);
  const bool keeps_bits = op == ir::BinaryOp::BitAnd || op == ir::BinaryOp::BitOr || op == ir::BinaryOp::BitXor;
  bld.emit(ir::make<ir::ElementwiseBinaryNode>(loc, out, op, resolve(a, t, keeps_bits), resolve(b, t, keeps_bits)));
  return RegisterTensor(out);
}

RegisterTensor operator+(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Add, a, b); }
RegisterTensor operator-(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Sub, a, b); }
RegisterTensor operator*(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Mul, a, b); }
RegisterTensor operator/(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Div, a, b); }
RegisterTensor operator%(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Mod, a, b); }
RegisterTensor operator&(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::BitAnd, a, b); }
RegisterTensor operator|(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::BitOr, a, b); }
RegisterTensor operator^(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::BitXor, a, b); }
RegisterTensor operator<<(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Shl, a, b); }
RegisterTensor operator>>(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Shr, a, b); }
RegisterTensor operator==(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Eq, a, b); }
RegisterTensor operator!=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Ne, a, b); }
RegisterTensor operator<(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Lt, a, b); }
RegisterTensor operator<=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Le, a, b); }
RegisterTensor operator>(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Gt, a, b); }
RegisterTensor operator>=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Ge, a, b); }
namespace {

// Both operands of a condition, at the line of the first.
RegisterTensor condition(ir::BinaryOp op, const TileArgument& a, const RegisterTensor& b) {
  TileOperand first(a.tile), second(b);
  first.loc = second.loc = a.loc;
  return elementwise(op, first, second);
}

}  // namespace

RegisterTensor operator&&(const TileArgument& a, const RegisterTensor& b) { return condition(ir::BinaryOp::And, a, b); }
RegisterTensor operator||(const TileArgument& a, const RegisterTensor& b) { return condition(ir::BinaryOp::Or, a, b); }

RegisterTensor operator-(const TileArgument& x) {
  const SourceLoc& loc = x.loc;
  const ir::RegisterTensor& t = x.tile.ir();
  check_group(t, "neg", loc);
  auto out = new_tile(t->dtype, t->shape(), Layout(), "r", loc);
  Builder::current(loc).emit(ir::make<ir::ElementwiseUnaryNode>(loc, out, ir::UnaryOp::Neg, t));
  return RegisterTensor(out);
}

RegisterTensor operator!(const RegisterTensor& x) {
  const ir::RegisterTensor& t = x.ir();
  const SourceLoc& loc = t->loc;
  check_group(t, "not", loc);
  if (t->dtype != DType::Bool)
    throw Error(loc, fmt::format("not: ! negates bool tiles (comparisons), got {}; compare first, as in !(t > 0)",
                                 dtype_name(t->dtype)));
  auto out = new_tile(DType::Bool, t->shape(), Layout(), "r", loc);
  Builder::current(loc).emit(ir::make<ir::ElementwiseUnaryNode>(loc, out, ir::UnaryOp::Not, t));
  return RegisterTensor(out);
}

RegisterTensor operator~(const TileArgument& x) {
  const SourceLoc& loc = x.loc;
  const ir::RegisterTensor& t = x.tile.ir();
  check_group(t, "bitnot", loc);
  if (is_float(t->dtype) || t->dtype == DType::Bool)
    throw Error(loc, fmt::format("bitnot: bit operations need integer tiles, got {}; {}", dtype_name(t->dtype),
                                 is_float(t->dtype) ? "reinterpret a float's bits with .bitcast<T>() to an integer "
                                                      "type of its width"
                                                    : "negate a condition with !"));
  auto out = new_tile(t->dtype, t->shape(), Layout(), "r", loc);
  Builder::current(loc).emit(ir::make<ir::ElementwiseUnaryNode>(loc, out, ir::UnaryOp::BitNot, t));
  return RegisterTensor(out);
}

RegisterTensor Instructions::maximum(const TileOperand& a, const TileOperand& b) {
  return elementwise(ir::BinaryOp::Max, a, b);
}
RegisterTensor Instructions::minimum(const TileOperand& a, const TileOperand& b) {
  return elementwise(ir::BinaryOp::Min, a, b);
}

RegisterTensor Instructions::fma(const TileOperand& a, const TileOperand& b, const RegisterTensor& c) {
  const SourceLoc& loc = a.loc;
  Builder& bld = Builder::current(loc);
  TileOperand acc(c);
  check_group(c.ir(), "fma", loc);
  const DType t = c.dtype();
  for (const TileOperand* o : {&a, &b}) {
    if (o->tensor) {
      if (o->tensor->dtype != t)
        throw Error(loc,
                    fmt::format("fma: operand of type {} with an accumulator of type {}; convert it with .to<{}>()",
                                dtype_name(o->tensor->dtype), dtype_name(t), dtype_name(t)));
      const auto& so = o->tensor->shape();
      bool fits = so.size() == c.shape().size();
      for (size_t d = 0; fits && d < so.size(); ++d) fits = so[d] == c.shape()[d] || so[d] == 1;
      if (!fits)
        throw Error(loc, fmt::format("fma: operand shape [{}] does not broadcast to the accumulator's shape [{}]",
                                     fmt::join(so, ", "), fmt::join(c.shape(), ", ")));
      check_group(o->tensor, "fma", loc);
    }
  }
  auto out = new_tile(t, c.shape(), Layout(), "r", loc);
  bld.emit(ir::make<ir::FmaNode>(loc, out, resolve(a, t), resolve(b, t), ir::Operand{c.ir(), nullptr}));
  return RegisterTensor(out);
}

namespace {

// The type of where(c, a, b) when neither value is a tile: a kernel value's, else f32 for a float
// literal and i32 for two integer ones, as C++ types 1 and 0.
DType literals_type(const TileOperand& a, const TileOperand& b) {
  for (const TileOperand* o : {&a, &b})
    if (!o->literal) return o->scalar->type.dtype;
  return is_float(a.scalar->type.dtype) || is_float(b.scalar->type.dtype) ? DType::F32 : DType::I32;
}

// "[32, 8]" for a tile, "a scalar" otherwise.
std::string shape_text(const TileOperand& o) {
  return o.tensor ? fmt::format("[{}]", fmt::join(o.tensor->shape(), ", ")) : "a scalar";
}

}  // namespace

RegisterTensor Instructions::where(const TileOperand& cond, const TileOperand& a, const TileOperand& b) {
  const SourceLoc& loc = cond.loc;
  Builder& bld = Builder::current(loc);
  if (!cond.tensor || cond.tensor->dtype != DType::Bool)
    throw Error(loc, "where: the condition must be a bool register tile (the result of a comparison)");
  check_group(cond.tensor, "where", loc);
  DType t = a.tensor ? a.tensor->dtype : b.tensor ? b.tensor->dtype : literals_type(a, b);
  // The result has, in each dimension, the largest extent of the three; a tile of extent 1 there is
  // broadcast.
  std::vector<int> shape = cond.tensor->shape();
  for (const TileOperand* o : {&a, &b}) {
    if (!o->tensor) continue;
    if (o->tensor->dtype != t)
      throw Error(loc, fmt::format("where: the value operands have different types ({} and {})",
                                   dtype_name(a.tensor->dtype), dtype_name(b.tensor->dtype)));
    check_group(o->tensor, "where", loc);
    if (o->tensor->rank() != int(shape.size()))
      throw Error(
          loc, fmt::format("where: a value of rank {} with a condition of rank {}", o->tensor->rank(), shape.size()));
    for (size_t d = 0; d < shape.size(); ++d) shape[d] = std::max(shape[d], o->tensor->shape()[d]);
  }
  for (const ir::RegisterTensor& o : {cond.tensor, a.tensor, b.tensor}) {
    if (!o) continue;
    for (size_t d = 0; d < shape.size(); ++d)
      if (o->shape()[d] != shape[d] && o->shape()[d] != 1)
        throw Error(loc, fmt::format("where: the condition [{}] and the values {} and {} do not broadcast to one "
                                     "shape; each extent must be the largest of them or 1",
                                     fmt::join(cond.tensor->shape(), ", "), shape_text(a), shape_text(b)));
  }
  auto out = new_tile(t, shape, Layout(), "r", loc);
  bld.emit(ir::make<ir::WhereNode>(loc, out, ir::Operand{cond.tensor, nullptr}, resolve(a, t), resolve(b, t)));
  return RegisterTensor(out);
}

RegisterTensor Instructions::unary_op(ir::UnaryOp op, const RegisterTensor& x, Precision p, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  check_group(x.ir(), ir::op_name(op), loc);
  if (ir::is_transcendental(op) && !is_float(x.dtype()))
    throw Error(loc, fmt::format("{}: needs a floating-point tile, got {}; convert with .to<float>()", ir::op_name(op),
                                 dtype_name(x.dtype())));
  if (p == Precision::fast && x.dtype() == DType::F64)
    throw Error(loc, fmt::format("{}: Precision::fast is an f32 approximation and has no f64 form; use the exact form, "
                                 "or convert the tile with .to<float>()",
                                 ir::op_name(op)));
  const ir::MathPrecision precision = p == Precision::fast ? ir::MathPrecision::Fast : ir::MathPrecision::Exact;
  auto out = new_tile(x.dtype(), x.shape(), Layout(), "r", loc);
  b.emit(ir::make<ir::ElementwiseUnaryNode>(loc, out, op, x.ir(), precision));
  return RegisterTensor(out);
}

RegisterTensor Instructions::exp(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Exp, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::exp2(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Exp2, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::log(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Log, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::log2(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Log2, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::sqrt(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Sqrt, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::tanh(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Tanh, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::sin(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Sin, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::cos(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Cos, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::sigmoid(const RegisterTensor& x, Precision p, loc_t l) {
  return unary_op(ir::UnaryOp::Sigmoid, x, p, SourceLoc::from(l));
}
RegisterTensor Instructions::rsqrt(const RegisterTensor& x, loc_t l) {
  return unary_op(ir::UnaryOp::Rsqrt, x, Precision::exact, SourceLoc::from(l));
}
RegisterTensor Instructions::erf(const RegisterTensor& x, loc_t l) {
  return unary_op(ir::UnaryOp::Erf, x, Precision::exact, SourceLoc::from(l));
}
RegisterTensor Instructions::abs(const RegisterTensor& x, loc_t l) {
  return unary_op(ir::UnaryOp::Abs, x, Precision::exact, SourceLoc::from(l));
}

RegisterTensor Instructions::arange(std::vector<int> shape, int dim, const Layout& layout, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  for (int extent : shape)
    if (extent <= 0)
      throw Error(loc, fmt::format("arange: the shape [{}] has an empty dimension", fmt::join(shape, ", ")));
  if (dim < 0 || dim >= int(shape.size()))
    throw Error(loc, fmt::format("arange: dimension {} of a tile of rank {} (shape [{}]); the dimensions are 0 to {}",
                                 dim, shape.size(), fmt::join(shape, ", "), int(shape.size()) - 1));
  check_pinned_layout(layout, shape, "arange", loc);
  auto out = new_tile(DType::I32, shape, layout, "index", loc);
  b.emit(ir::make<ir::IotaNode>(loc, out, dim));
  return RegisterTensor(out);
}

}  // namespace tessel
