// Views: global views of pointers, and views of shared tiles (a stage, a transpose).
#include <fmt/ranges.h>

#include "tile_tracing.hpp"

namespace tessel {

using detail::exprs_of;

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
  int64_t last_stride = 0;
  if (is_packed(t) && !(ir::as_const_int(st.back(), &last_stride) && last_stride == 1))
    throw Error(loc, fmt::format("global_view of packed {0} elements: the last stride must be the constant 1, since "
                                 "{0} elements are packed {1} bits each along the last dimension (docs/language.md, "
                                 "\"Packed types\")",
                                 dtype_name(t), dtype_bits(t)));
  return GlobalTensor(
      ir::make<ir::GlobalTensorNode>(ir::GlobalTensorNode{t, std::move(ptr), exprs_of(shape), st, "g", loc}));
}

GlobalTensor GlobalTensor::with_cache_hint(CacheHint hint) const {
  ir::GlobalTensorNode hinted = *t_;
  switch (hint) {
    case CacheHint::normal: hinted.cache_hint = ir::CacheHint::Normal; break;
    case CacheHint::evict_first: hinted.cache_hint = ir::CacheHint::EvictFirst; break;
    case CacheHint::evict_last: hinted.cache_hint = ir::CacheHint::EvictLast; break;
  }
  return GlobalTensor(ir::make<ir::GlobalTensorNode>(std::move(hinted)));
}

GlobalTensor GlobalTensor::with_l1_hint(L1Hint hint) const {
  ir::GlobalTensorNode hinted = *t_;
  switch (hint) {
    case L1Hint::normal: hinted.l1_hint = ir::L1Hint::Normal; break;
    case L1Hint::no_allocate: hinted.l1_hint = ir::L1Hint::NoAllocate; break;
    case L1Hint::evict_first: hinted.l1_hint = ir::L1Hint::EvictFirst; break;
    case L1Hint::evict_last: hinted.l1_hint = ir::L1Hint::EvictLast; break;
  }
  return GlobalTensor(ir::make<ir::GlobalTensorNode>(std::move(hinted)));
}

GlobalTensor GlobalTensor::read_only(std::source_location loc) const {
  ir::GlobalTensorNode view = *t_;
  view.read_only = SourceLoc::from(loc);
  return GlobalTensor(ir::make<ir::GlobalTensorNode>(std::move(view)));
}

GlobalTensor Instructions::make_global_scratch(DType t, const std::vector<Dim>& shape, ScratchContents contents,
                                               SourceLoc loc) {
  Builder& b = Builder::current(loc);
  if (shape.empty()) throw Error(loc, "global_scratch: the shape must have at least one dimension");
  // The bytes in 64 bits: a scratch may be larger than 2 GiB.
  ir::Expr elements = ir::const_int(1, DType::I64);
  for (const Dim& d : shape) elements = ir::binary(ir::BinaryOp::Mul, elements, ir::cast(DType::I64, d.ir()));
  const int bits = dtype_bits(t);
  const ir::Expr bytes =
      ir::binary(ir::BinaryOp::Div,
                 ir::binary(ir::BinaryOp::Add, ir::binary(ir::BinaryOp::Mul, elements, ir::const_int(bits, DType::I64)),
                            ir::const_int(7, DType::I64)),
                 ir::const_int(8, DType::I64));
  ir::Var buffer = ir::make_var(ir::Type{t, true}, fmt::format("scratch{}", b.scratch_params.size()), loc);
  b.scratch_params.push_back(
      {buffer, contents == ScratchContents::zeroed ? ir::DerivedValue::ZeroedScratch : ir::DerivedValue::Scratch, bytes,
       loc});
  return make_global_view(t, buffer, shape, {}, loc);
}

namespace {

// A view of `t`'s allocation: `shape` with `strides` from element `offset` of it.
SharedTensor view_of(const ir::SharedTensor& t, std::vector<int> shape, std::vector<int> strides, ir::Expr offset,
                     const SourceLoc& loc) {
  ir::SharedTensorNode v{
      t->dtype, std::move(shape), std::move(strides), t->root ? t->root : t, std::move(offset), t->name,
      loc,      t->swizzle_bits};
  return SharedTensor(ir::make<ir::SharedTensorNode>(std::move(v)));
}

}  // namespace

SharedTensor SharedTensor::operator[](const ViewIndex& index) const {
  const SourceLoc& loc = index.loc;
  Builder& b = Builder::current(loc);
  if (t_->rank() < 2) throw Error(loc, "indexing a rank-1 shared tensor would give a scalar; load it instead");
  ir::Expr idx = index.dim.ir();
  if (!index.dim.is_constant()) {
    // Snapshot the index: a view keeps the value the index had when the view was made.
    ir::Var v = ir::make_var(ir::Type{DType::I32}, "idx", loc);
    b.emit(ir::make<ir::DeclareNode>(loc, v, idx));
    idx = v;
  }
  ir::Expr base = t_->offset ? t_->offset : ir::const_int(0);
  ir::Expr off = ir::binary(ir::BinaryOp::Add, base, ir::binary(ir::BinaryOp::Mul, idx, ir::const_int(t_->strides[0])));
  return view_of(t_, std::vector<int>(t_->shape.begin() + 1, t_->shape.end()),
                 std::vector<int>(t_->strides.begin() + 1, t_->strides.end()), off, loc);
}

SharedTensor SharedTensor::reshape(std::vector<int> shape, std::source_location l) const {
  const SourceLoc loc = SourceLoc::from(l);
  const auto count = [](const std::vector<int>& extents) {
    int64_t n = 1;
    for (int e : extents) n *= e;
    return n;
  };
  if (shape.empty() || count(shape) != count(t_->shape))
    throw Error(
        loc,
        fmt::format("reshape of the shared tensor [{}] (allocated at {}) into [{}]: {} elements cannot hold its {}",
                    fmt::join(t_->shape, ", "), t_->allocation()->loc.str(), fmt::join(shape, ", "), count(shape),
                    count(t_->shape)));
  // Row-major and dense: each stride is the product of the extents after it.
  int64_t dense = 1;
  for (int d = t_->rank() - 1; d >= 0; --d) {
    if (t_->strides[size_t(d)] != dense)
      throw Error(loc,
                  fmt::format("reshape of the shared tensor [{}] (allocated at {}): it is a strided view "
                              "(strides [{}]); reshape a dense row-major tile or view",
                              fmt::join(t_->shape, ", "), t_->allocation()->loc.str(), fmt::join(t_->strides, ", ")));
    dense *= t_->shape[size_t(d)];
  }
  if (t_->swizzle_bits != 0)
    throw Error(loc, fmt::format("reshape of the shared tensor [{}] (allocated at {}): its elements are swizzled, or "
                                 "may be; create it with Swizzle::none to view it in another shape",
                                 fmt::join(t_->shape, ", "), t_->allocation()->loc.str()));
  std::vector<int> strides(shape.size(), 1);
  for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
  return view_of(t_, std::move(shape), std::move(strides), t_->offset ? t_->offset : ir::const_int(0), loc);
}

SharedTensor SharedTensor::transpose(std::source_location l) const {
  const SourceLoc loc = SourceLoc::from(l);
  if (t_->rank() != 2)
    throw Error(loc, fmt::format("transpose needs a rank-2 shared tensor, this one has rank {}", t_->rank()));
  std::vector<int> shape = t_->shape, strides = t_->strides;
  std::swap(shape[0], shape[1]);
  std::swap(strides[0], strides[1]);
  return view_of(t_, std::move(shape), std::move(strides), t_->offset ? t_->offset : ir::const_int(0), loc);
}

}  // namespace tessel
