// Tensor creation, views, and the elementwise/reduction instructions on register tiles.
#include <fmt/ranges.h>

#include "tessel/lang/script.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel {

namespace {

std::vector<int> static_shape(const std::vector<Dim>& shape, std::string_view what, const SourceLoc& loc) {
  std::vector<int> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_constant())
      throw Error(loc, fmt::format("{}: dimension {} of the shape must be a compile-time int, but it is a run-time "
                                   "value; use a hyperparameter or a compile-time (int) kernel parameter",
                                   what, i));
    if (shape[i].value() <= 0)
      throw Error(loc, fmt::format("{}: dimension {} of the shape must be positive, got {}", what, i, shape[i].value()));
    out.push_back(shape[i].value());
  }
  if (out.empty()) throw Error(loc, fmt::format("{}: the shape must have at least one dimension", what));
  return out;
}

std::vector<ir::Expr> exprs_of(const std::vector<Dim>& ds) {
  std::vector<ir::Expr> out;
  for (const Dim& d : ds) out.push_back(d.ir());
  return out;
}

// Checks a layout the user pinned for a tile of `shape` over the current group. An empty layout
// stays empty: infer_layouts chooses it.
void check_pinned_layout(const Layout& given, const std::vector<int>& shape, std::string_view what,
                         const SourceLoc& loc) {
  const Builder::Group g = Builder::current(loc).group(loc);
  if (given.rank() == 0) return;
  if (given.shape() != shape)
    throw Error(loc, fmt::format("{}: the layout covers shape [{}] but the tile has shape [{}]", what,
                                 fmt::join(given.shape(), ", "), fmt::join(shape, ", ")));
  if (given.num_threads() != g.count)
    throw Error(loc, fmt::format("{}: the layout distributes the tile over {} threads but the current thread group "
                                 "has {}",
                                 what, given.num_threads(), g.count));
}

// A tile of the current thread group; `layout` is the user's pin or empty.
ir::RegisterTensor new_tile(DType t, std::vector<int> shape, Layout layout, std::string name, SourceLoc loc) {
  const int threads = Builder::current(loc).group(loc).count;
  return std::make_shared<ir::RegisterTensorNode>(t, std::move(shape), threads, std::move(layout), std::move(name),
                                                  std::move(loc));
}

// Register tiles belong to the thread group they were created in.
void check_group(const ir::RegisterTensor& t, std::string_view what, const SourceLoc& loc) {
  const Builder::Group g = Builder::current(loc).group(loc);
  if (t->threads != g.count)
    throw Error(loc, fmt::format("{}: the tile {} is distributed over {} threads, but the current thread group has {} "
                                 "threads; use tiles inside the thread group that created them",
                                 what, t->name, t->threads, g.count));
}

ir::Operand resolve(const TileOperand& o, DType tile_type) {
  if (o.tensor) return ir::Operand{o.tensor, nullptr};
  if (o.literal) return ir::Operand{nullptr, is_float(tile_type) ? ir::const_float(static_cast<const ir::ConstNode&>(*o.scalar).f, tile_type)
                                                                 : ir::cast(tile_type, o.scalar)};
  return ir::Operand{nullptr, o.scalar};
}

}  // namespace

// ---- creation and views ----

GlobalTensor Instructions::make_global_view(DType t, ir::Expr ptr, const std::vector<Dim>& shape,
                                            const std::vector<Dim>& strides, SourceLoc loc) {
  Builder::current(loc);
  if (shape.empty()) throw Error(loc, "global_view: the shape must have at least one dimension");
  if (!strides.empty() && strides.size() != shape.size())
    throw Error(loc, fmt::format("global_view: {} strides given for a shape of rank {}", strides.size(), shape.size()));
  std::vector<ir::Expr> st;
  if (strides.empty()) {
    ir::Expr s = ir::const_int(1);
    st.resize(shape.size());
    for (int i = int(shape.size()) - 1; i >= 0; --i) {
      st[i] = s;
      if (i > 0) s = ir::binary(ir::BinaryOp::Mul, s, shape[i].ir());
    }
  } else {
    st = exprs_of(strides);
  }
  return GlobalTensor(std::make_shared<ir::GlobalTensorNode>(ir::GlobalTensorNode{t, std::move(ptr), exprs_of(shape), st, "g", loc}));
}

SharedTensor Instructions::make_shared_tensor(DType t, const std::vector<Dim>& shape, std::optional<Swizzle> swizzle,
                                              SourceLoc loc) {
  Builder& b = Builder::current(loc);
  std::vector<int> s = static_shape(shape, "shared_tensor", loc);
  std::vector<int> strides(s.size(), 1);
  for (int i = int(s.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * s[i + 1];
  const int row_bytes = s.back() * dtype_bytes(t);
  int bits = swizzle ? 0 : ir::kSwizzleUndecided;
  if (swizzle && *swizzle != Swizzle::none) {
    if (row_bytes % 16 != 0)
      throw Error(loc, fmt::format("shared_tensor: a swizzled tile needs rows of a multiple of 16 bytes; rows of {} "
                                   "{} elements are {} bytes",
                                   s.back(), dtype_name(t), row_bytes));
    int64_t total = row_bytes;
    for (size_t i = 0; i + 1 < s.size(); ++i) total *= s[i];
    if (total % 128 != 0)
      throw Error(loc, fmt::format("shared_tensor: a swizzled tile must span whole 128-byte lines; this one has {} bytes",
                                   total));
    bits = *swizzle == Swizzle::automatic ? conflict_free_swizzle_bits(row_bytes)
           : *swizzle == Swizzle::b32     ? 1
           : *swizzle == Swizzle::b64     ? 2
                                          : 3;
  }
  auto node = std::make_shared<ir::SharedTensorNode>(ir::SharedTensorNode{t, s, strides, nullptr, nullptr, "s", loc, bits});
  b.emit(std::make_shared<ir::AllocSharedNode>(loc, node));
  return SharedTensor(node);
}

SharedTensor SharedTensor::operator[](const Dim& index) const {
  const SourceLoc& loc = t_->loc;
  Builder& b = Builder::current(loc);
  if (t_->rank() < 2) throw Error(loc, "indexing a rank-1 shared tensor would give a scalar; load it instead");
  ir::Expr idx = index.ir();
  if (!index.is_constant()) {
    // Snapshot the index: a view keeps the value the index had when the view was made.
    ir::Var v = ir::make_var(ir::Type{DType::I32}, "idx", loc);
    b.emit(std::make_shared<ir::DeclareNode>(loc, v, idx));
    idx = v;
  }
  ir::Expr base = t_->offset ? t_->offset : ir::const_int(0);
  ir::Expr off = ir::binary(ir::BinaryOp::Add, base, ir::binary(ir::BinaryOp::Mul, idx, ir::const_int(t_->strides[0])));
  ir::SharedTensorNode v{t_->dtype,
                         std::vector<int>(t_->shape.begin() + 1, t_->shape.end()),
                         std::vector<int>(t_->strides.begin() + 1, t_->strides.end()),
                         t_->root ? t_->root : t_,
                         off,
                         t_->name,
                         loc,
                         t_->swizzle_bits};
  return SharedTensor(std::make_shared<ir::SharedTensorNode>(std::move(v)));
}

SharedTensor SharedTensor::transpose(std::source_location l) const {
  if (t_->rank() != 2)
    throw Error(SourceLoc::from(l), fmt::format("transpose needs a rank-2 shared tensor, this one has rank {}", t_->rank()));
  ir::SharedTensorNode v = *t_;
  std::swap(v.shape[0], v.shape[1]);
  std::swap(v.strides[0], v.strides[1]);
  v.root = t_->root ? t_->root : t_;
  v.offset = t_->offset ? t_->offset : ir::const_int(0);
  return SharedTensor(std::make_shared<ir::SharedTensorNode>(std::move(v)));
}

RegisterTensor Instructions::make_register_tensor(DType t, const std::vector<Dim>& shape, const TileOperand& init,
                                                  const Layout& layout, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  std::vector<int> s = static_shape(shape, "register_tensor", loc);
  if (init.tensor) throw Error(loc, "register_tensor: the initial value must be a scalar");
  check_pinned_layout(layout, s, "register_tensor", loc);
  auto out = new_tile(t, s, layout, "r", loc);
  b.emit(std::make_shared<ir::AllocRegisterNode>(loc, out, resolve(init, t).scalar));
  return RegisterTensor(out);
}

// ---- value semantics of register tiles ----

TileOperand::TileOperand(const RegisterTensor& t, std::source_location l) : tensor(t.ir()), loc(SourceLoc::from(l)) {
  if (!tensor) throw Error(loc, "use of an unassigned RegisterTensor");
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

RegisterTensor& RegisterTensor::operator=(const RegisterTensor& other) {
  if (!t_) {
    t_ = other.t_;
    return *this;
  }
  const SourceLoc& loc = other.t_->loc;
  if (other.shape() != shape() || other.dtype() != dtype())
    throw Error(loc, fmt::format("assignment to register tile {} (reg<{}>[{}]) from a tile of a different type "
                                 "(reg<{}>[{}]); convert with .to<T>() or keep the shapes equal",
                                 t_->name, dtype_name(dtype()), fmt::join(shape(), ", "), dtype_name(other.dtype()),
                                 fmt::join(other.shape(), ", ")));
  check_group(t_, "assignment", loc);
  check_group(other.t_, "assignment", loc);
  Builder::current(loc).emit(std::make_shared<ir::CopyRegisterNode>(loc, t_, other.t_));
  return *this;
}

RegisterTensor& RegisterTensor::operator=(RegisterTensor&& other) {
  return *this = static_cast<const RegisterTensor&>(other);
}

RegisterTensor RegisterTensor::cast_to(DType t, SourceLoc loc) const {
  Builder& b = Builder::current(loc);
  check_group(t_, "to<T>()", loc);
  auto out = new_tile(t, shape(), Layout(), "r", loc);
  b.emit(std::make_shared<ir::CastTensorNode>(loc, out, t_));
  return RegisterTensor(out);
}

// ---- elementwise ----

RegisterTensor elementwise(ir::BinaryOp op, const TileOperand& a, const TileOperand& b) {
  const SourceLoc& loc = a.tensor ? a.loc : b.loc;
  Builder& bld = Builder::current(loc);
  const std::string what(ir::op_name(op));
  if (!a.tensor && !b.tensor) throw Error(loc, fmt::format("{}: at least one operand must be a register tile", what));
  const DType ta = a.tensor ? a.tensor->dtype : DType::F32, tb = b.tensor ? b.tensor->dtype : DType::F32;
  DType t = a.tensor ? ta : tb;
  if (a.tensor && b.tensor && ta != tb)
    throw Error(loc, fmt::format("{}: operand types differ ({} and {}); convert one with .to<T>()", what,
                                 dtype_name(ta), dtype_name(tb)));
  for (const TileOperand* o : {&a, &b})
    if (!o->tensor && !o->literal && o->scalar->type.dtype != t)
      throw Error(loc, fmt::format("{}: the scalar operand is {} but the tile is {}; cast it with cast<T>()", what,
                                   o->scalar->type.str(), dtype_name(t)));
  // The result has the shape of the operand whose shape is the broadcast shape.
  const ir::RegisterTensor* full = nullptr;
  if (a.tensor && b.tensor) {
    const auto &sa = a.tensor->shape(), &sb = b.tensor->shape();
    if (sa.size() != sb.size())
      throw Error(loc, fmt::format("{}: operands have ranks {} and {}", what, sa.size(), sb.size()));
    std::vector<int> so(sa.size());
    for (size_t i = 0; i < sa.size(); ++i) {
      if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
        throw Error(loc, fmt::format("{}: cannot broadcast shapes [{}] and [{}]", what, fmt::join(sa, ", "),
                                     fmt::join(sb, ", ")));
      so[i] = std::max(sa[i], sb[i]);
    }
    if (so == sa) full = &a.tensor;
    else if (so == sb) full = &b.tensor;
    else
      throw Error(loc, fmt::format("{}: broadcasting both operands ([{}] and [{}]) is not supported; broadcast one "
                                   "of them to the result shape first",
                                   what, fmt::join(sa, ", "), fmt::join(sb, ", ")));
  } else {
    full = a.tensor ? &a.tensor : &b.tensor;
  }
  for (const TileOperand* o : {&a, &b})
    if (o->tensor) check_group(o->tensor, what, loc);
  const DType out_type = ir::is_comparison(op) ? DType::Bool : t;
  auto out = new_tile(out_type, (*full)->shape(), Layout(), "r", loc);
  bld.emit(std::make_shared<ir::ElementwiseBinaryNode>(loc, out, op, resolve(a, t), resolve(b, t)));
  return RegisterTensor(out);
}

RegisterTensor operator+(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Add, a, b); }
RegisterTensor operator-(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Sub, a, b); }
RegisterTensor operator*(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Mul, a, b); }
RegisterTensor operator/(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Div, a, b); }
RegisterTensor operator==(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Eq, a, b); }
RegisterTensor operator!=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Ne, a, b); }
RegisterTensor operator<(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Lt, a, b); }
RegisterTensor operator<=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Le, a, b); }
RegisterTensor operator>(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Gt, a, b); }
RegisterTensor operator>=(const TileOperand& a, const TileOperand& b) { return elementwise(ir::BinaryOp::Ge, a, b); }

RegisterTensor RegisterTensor::operator-() const {
  const SourceLoc& loc = t_->loc;
  check_group(t_, "neg", loc);
  auto out = new_tile(dtype(), shape(), Layout(), "r", loc);
  Builder::current(loc).emit(std::make_shared<ir::ElementwiseUnaryNode>(loc, out, ir::UnaryOp::Neg, t_));
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
        throw Error(loc, fmt::format("fma: operand of type {} with an accumulator of type {}; convert it with .to<{}>()",
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
  bld.emit(std::make_shared<ir::FmaNode>(loc, out, resolve(a, t), resolve(b, t), c.ir()));
  return RegisterTensor(out);
}

RegisterTensor Instructions::where(const TileOperand& cond, const TileOperand& a, const TileOperand& b) {
  const SourceLoc& loc = cond.loc;
  Builder& bld = Builder::current(loc);
  if (!cond.tensor || cond.tensor->dtype != DType::Bool)
    throw Error(loc, "where: the condition must be a bool register tile (the result of a comparison)");
  check_group(cond.tensor, "where", loc);
  DType t = a.tensor ? a.tensor->dtype : b.tensor ? b.tensor->dtype : DType::F32;
  for (const TileOperand* o : {&a, &b}) {
    if (o->tensor && o->tensor->dtype != t)
      throw Error(loc, fmt::format("where: the value operands have different types ({} and {})",
                                   dtype_name(a.tensor->dtype), dtype_name(b.tensor->dtype)));
    if (o->tensor && o->tensor->shape() != cond.tensor->shape())
      throw Error(loc, fmt::format("where: value shape [{}] differs from the condition's shape [{}]",
                                   fmt::join(o->tensor->shape(), ", "), fmt::join(cond.tensor->shape(), ", ")));
    if (o->tensor) check_group(o->tensor, "where", loc);
  }
  auto out = new_tile(t, cond.tensor->shape(), Layout(), "r", loc);
  bld.emit(std::make_shared<ir::WhereNode>(loc, out, ir::Operand{cond.tensor, nullptr}, resolve(a, t), resolve(b, t)));
  return RegisterTensor(out);
}

RegisterTensor Instructions::unary_op(ir::UnaryOp op, const RegisterTensor& x, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  check_group(x.ir(), ir::op_name(op), loc);
  if (ir::is_transcendental(op) && !is_float(x.dtype()))
    throw Error(loc, fmt::format("{}: needs a floating-point tile, got {}; convert with .to<float>()", ir::op_name(op),
                                 dtype_name(x.dtype())));
  auto out = new_tile(x.dtype(), x.shape(), Layout(), "r", loc);
  b.emit(std::make_shared<ir::ElementwiseUnaryNode>(loc, out, op, x.ir()));
  return RegisterTensor(out);
}

RegisterTensor Instructions::exp(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Exp, x, SourceLoc::from(l)); }
RegisterTensor Instructions::exp2(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Exp2, x, SourceLoc::from(l)); }
RegisterTensor Instructions::log(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Log, x, SourceLoc::from(l)); }
RegisterTensor Instructions::sqrt(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Sqrt, x, SourceLoc::from(l)); }
RegisterTensor Instructions::rsqrt(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Rsqrt, x, SourceLoc::from(l)); }
RegisterTensor Instructions::abs(const RegisterTensor& x, loc_t l) { return unary_op(ir::UnaryOp::Abs, x, SourceLoc::from(l)); }

// ---- reductions ----

RegisterTensor Instructions::reduce(ir::ReduceOp op, const RegisterTensor& x, int dim, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  const std::string what(ir::op_name(op));
  check_group(x.ir(), what, loc);
  if (dim < 0 || dim >= int(x.shape().size()))
    throw Error(loc, fmt::format("{}: dim {} is out of range for a tile of rank {}", what, dim, x.shape().size()));
  std::vector<int> reduced_shape = x.shape();
  reduced_shape[dim] = 1;
  auto out = new_tile(x.dtype(), reduced_shape, Layout(), "r", loc);
  b.emit(std::make_shared<ir::ReduceNode>(loc, out, op, x.ir(), dim));
  return RegisterTensor(out);
}

RegisterTensor Instructions::sum(const RegisterTensor& x, int dim, loc_t l) { return reduce(ir::ReduceOp::Sum, x, dim, SourceLoc::from(l)); }
RegisterTensor Instructions::max(const RegisterTensor& x, int dim, loc_t l) { return reduce(ir::ReduceOp::Max, x, dim, SourceLoc::from(l)); }
RegisterTensor Instructions::min(const RegisterTensor& x, int dim, loc_t l) { return reduce(ir::ReduceOp::Min, x, dim, SourceLoc::from(l)); }

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

// ---- data movement ----

namespace {

void check_offsets(size_t n, int rank, std::string_view what, const SourceLoc& loc) {
  if (int(n) != rank)
    throw Error(loc, fmt::format("{}: {} offsets given for a tensor of rank {}", what, n, rank));
}

}  // namespace

RegisterTensor Instructions::load_global(const GlobalTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                         const Layout& layout, double fill, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_offsets(offsets.size(), src.ir()->rank(), "load_global", loc);
  std::vector<int> s = static_shape(shape, "load_global", loc);
  if (s.size() != size_t(src.ir()->rank()))
    throw Error(loc, fmt::format("load_global: a tile of rank {} from a tensor of rank {}", s.size(), src.ir()->rank()));
  check_pinned_layout(layout, s, "load_global", loc);
  auto out = new_tile(src.dtype(), s, layout, "r", loc);
  b.emit(std::make_shared<ir::LoadGlobalNode>(loc, out, src.ir(), exprs_of(offsets), fill));
  return RegisterTensor(out);
}

void Instructions::store_global(const GlobalTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(src.ir(), "store_global", loc);
  check_offsets(offsets.size(), dst.ir()->rank(), "store_global", loc);
  if (src.shape().size() != size_t(dst.ir()->rank()))
    throw Error(loc, fmt::format("store_global: a tile of rank {} into a tensor of rank {}", src.shape().size(),
                                 dst.ir()->rank()));
  if (src.dtype() != dst.dtype())
    throw Error(loc, fmt::format("store_global: a tile of {} stored to a global view of {}; convert it with .to<{}>()",
                                 dtype_name(src.dtype()), dtype_name(dst.dtype()), dtype_name(dst.dtype())));
  b.emit(std::make_shared<ir::StoreGlobalNode>(loc, dst.ir(), src.ir(), exprs_of(offsets)));
}

RegisterTensor Instructions::load_shared(const SharedTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                         const Layout& layout, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  const int rank = src.ir()->rank();
  if (offsets.empty()) offsets.assign(rank, Dim(0));
  check_offsets(offsets.size(), rank, "load_shared", loc);
  std::vector<int> s;
  if (shape.empty()) s = src.shape();
  else s = static_shape(shape, "load_shared", loc);
  if (int(s.size()) != rank)
    throw Error(loc, fmt::format("load_shared: a tile of rank {} from a shared tensor of rank {}", s.size(), rank));
  for (int d = 0; d < rank; ++d)
    if (offsets[d].is_constant() && (offsets[d].value() < 0 || offsets[d].value() + s[d] > src.shape()[d]))
      throw Error(loc, fmt::format("load_shared: the tile [{}] at offset {} of dim {} exceeds the shared tensor's "
                                   "shape [{}]",
                                   fmt::join(s, ", "), offsets[d].value(), d, fmt::join(src.shape(), ", ")));
  check_pinned_layout(layout, s, "load_shared", loc);
  auto out = new_tile(src.dtype(), s, layout, "r", loc);
  b.emit(std::make_shared<ir::LoadSharedNode>(loc, out, src.ir(), exprs_of(offsets)));
  return RegisterTensor(out);
}

void Instructions::store_shared(const SharedTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  check_group(src.ir(), "store_shared", loc);
  const int rank = dst.ir()->rank();
  if (offsets.empty()) offsets.assign(rank, Dim(0));
  check_offsets(offsets.size(), rank, "store_shared", loc);
  if (src.dtype() != dst.dtype())
    throw Error(loc, fmt::format("store_shared: a tile of {} stored to a shared tensor of {}; convert it with .to<{}>()",
                                 dtype_name(src.dtype()), dtype_name(dst.dtype()), dtype_name(dst.dtype())));
  if (int(src.shape().size()) != rank)
    throw Error(loc, fmt::format("store_shared: a tile of rank {} into a shared tensor of rank {}", src.shape().size(), rank));
  for (int d = 0; d < rank; ++d) {
    const int off = offsets[d].is_constant() ? offsets[d].value() : 0;
    if (off + src.shape()[d] > dst.shape()[d])
      throw Error(loc, fmt::format("store_shared: the tile [{}] does not fit in the shared tensor [{}]",
                                   fmt::join(src.shape(), ", "), fmt::join(dst.shape(), ", ")));
  }
  b.emit(std::make_shared<ir::StoreSharedNode>(loc, dst.ir(), src.ir(), exprs_of(offsets)));
}

}  // namespace tessel
