// The memory family: shared tiles' allocation, sync(), and data movement between register tiles
// and global or shared memory.
#include <fmt/ranges.h>

#include <numeric>

#include "tessel/layout/shared_swizzle.hpp"
#include "tile_tracing.hpp"

namespace tessel {

using detail::check_group;
using detail::check_pinned_layout;
using detail::exprs_of;
using detail::new_tile;
using detail::static_shape;

namespace {

void check_offsets(size_t n, int rank, std::string_view what, const SourceLoc& loc) {
  if (int(n) != rank) throw Error(loc, fmt::format("{}: {} offsets given for a tensor of rank {}", what, n, rank));
}

// A load's fill, which must be a value of the loaded type. e8m0 has no zero: the fill of 0, the
// default, is 1 (the bits 127) there.
double checked_fill(DType t, double fill, std::string_view what, const SourceLoc& loc) {
  if (t == DType::E8M0 && fill == 0) return 1;
  if (const std::optional<std::string> became = detail::literal_change(t, fill))
    throw Error(loc, fmt::format("{}: the fill {} is no {} and would become {}; give a fill that {} holds", what, fill,
                                 dtype_name(t), *became, dtype_name(t)));
  return fill;
}

// A gather's or scatter's indices: an integer tile along one of the view's dimensions, of the moved
// tile's shape or broadcast to it.
void check_indices(const ir::RegisterTensor& indices, int dim, const std::vector<int>& tile, DType element,
                   std::string_view what, const SourceLoc& loc) {
  check_group(indices, what, loc);
  const int rank = int(tile.size());
  if (dim < 0 || dim >= rank)
    throw Error(loc, fmt::format("{}: dim {} of a tile of rank {}; the indexed dimension is one of 0 to {}", what, dim,
                                 rank, rank - 1));
  if (!is_byte_addressed_integer(indices->dtype))
    throw Error(loc, fmt::format("{}: the indices are an integer tile, got {}; convert them with .to<int32_t>()", what,
                                 dtype_name(indices->dtype)));
  bool fits = indices->rank() == rank;
  for (int d = 0; fits && d < rank; ++d) fits = indices->shape()[d] == 1 || indices->shape()[d] == tile[d];
  if (!fits)
    throw Error(loc, fmt::format("{}: indices [{}] for a tile [{}]; each extent must be the tile's or 1", what,
                                 fmt::join(indices->shape(), ", "), fmt::join(tile, ", ")));
  if (is_packed(element))
    throw Error(loc, fmt::format("{}: elements of {} are packed several to a byte, and are not gathered or "
                                 "scattered one by one; move whole rows with {}",
                                 what, dtype_name(element),
                                 what.find("global") != std::string_view::npos ? "load_global and store_global"
                                                                               : "load_shared and store_shared"));
}

}  // namespace

RegisterTensor Instructions::load_global(const GlobalTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                         const Layout& layout, double fill, loc_t l) {
  return load_global_of(src, std::move(offsets), std::move(shape), layout, fill, nullptr, -1, "load_global",
                        SourceLoc::from(l));
}

RegisterTensor Instructions::load_global_of(const GlobalTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                            const Layout& layout, double fill, const ir::RegisterTensor& indices,
                                            int dim, std::string_view what, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  check_offsets(offsets.size(), src.ir()->rank(), what, loc);
  std::vector<int> s = static_shape(shape, what, loc);
  if (s.size() != size_t(src.ir()->rank()))
    throw Error(loc, fmt::format("{}: a tile of rank {} from a tensor of rank {}", what, s.size(), src.ir()->rank()));
  if (indices) check_indices(indices, dim, s, src.dtype(), what, loc);
  check_pinned_layout(layout, s, what, loc);
  fill = checked_fill(src.dtype(), fill, what, loc);
  auto out = new_tile(src.dtype(), s, layout, "r", loc);
  b.emit(ir::make<ir::LoadGlobalNode>(loc, out, src.ir(), exprs_of(offsets), fill, 0, indices, dim));
  return RegisterTensor(out);
}

RegisterTensor Instructions::load_global_gather(const GlobalTensor& src, int dim, const RegisterTensor& indices,
                                                std::vector<Dim> offsets, std::vector<Dim> shape, const Layout& layout,
                                                double fill, loc_t l) {
  return load_global_of(src, std::move(offsets), std::move(shape), layout, fill, indices.ir(), dim,
                        "load_global_gather", SourceLoc::from(l));
}

void Instructions::store_global(const GlobalTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  store_global_of(dst, src, std::move(offsets), nullptr, -1, "store_global", SourceLoc::from(l));
}

void Instructions::store_global_scatter(const GlobalTensor& dst, int dim, const RegisterTensor& indices,
                                        const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  store_global_of(dst, src, std::move(offsets), indices.ir(), dim, "store_global_scatter", SourceLoc::from(l));
}

void Instructions::store_global_of(const GlobalTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets,
                                   const ir::RegisterTensor& indices, int dim, std::string_view what, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  check_group(src.ir(), what, loc);
  if (indices) check_indices(indices, dim, src.shape(), dst.dtype(), what, loc);
  check_offsets(offsets.size(), dst.ir()->rank(), what, loc);
  if (src.shape().size() != size_t(dst.ir()->rank()))
    throw Error(
        loc, fmt::format("{}: a tile of rank {} into a tensor of rank {}", what, src.shape().size(), dst.ir()->rank()));
  if (src.dtype() != dst.dtype())
    throw Error(loc, fmt::format("{}: a tile of {} stored to a global view of {}; convert it with .to<{}>()", what,
                                 dtype_name(src.dtype()), dtype_name(dst.dtype()), dtype_name(dst.dtype())));
  b.emit(ir::make<ir::StoreGlobalNode>(loc, dst.ir(), src.ir(), exprs_of(offsets), 0, indices, dim));
}

RegisterTensor Instructions::load_shared(const SharedTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                         const Layout& layout, loc_t l) {
  return load_shared_of(src, nullptr, std::move(offsets), std::move(shape), layout, SourceLoc::from(l));
}

RegisterTensor Instructions::load_shared(const RemoteSharedTensor& src, std::vector<Dim> offsets,
                                         std::vector<Dim> shape, const Layout& layout, loc_t l) {
  return load_shared_of(src.tile(), src.rank(), std::move(offsets), std::move(shape), layout, SourceLoc::from(l));
}

void Instructions::store_shared(const SharedTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  store_shared_of(dst, nullptr, src, std::move(offsets), SourceLoc::from(l));
}

void Instructions::store_shared(const RemoteSharedTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets,
                                loc_t l) {
  store_shared_of(dst.tile(), dst.rank(), src, std::move(offsets), SourceLoc::from(l));
}

RegisterTensor Instructions::load_shared_gather(const SharedTensor& src, int dim, const RegisterTensor& indices,
                                                std::vector<Dim> offsets, std::vector<Dim> shape, const Layout& layout,
                                                double fill, loc_t l) {
  return load_shared_of(src, nullptr, std::move(offsets), std::move(shape), layout, SourceLoc::from(l), indices.ir(),
                        dim, fill);
}

void Instructions::store_shared_scatter(const SharedTensor& dst, int dim, const RegisterTensor& indices,
                                        const RegisterTensor& src, std::vector<Dim> offsets, loc_t l) {
  store_shared_of(dst, nullptr, src, std::move(offsets), SourceLoc::from(l), indices.ir(), dim);
}

RegisterTensor Instructions::load_shared_of(const SharedTensor& src, const ir::Expr& block_rank,
                                            std::vector<Dim> offsets, std::vector<Dim> shape, const Layout& layout,
                                            SourceLoc loc, const ir::RegisterTensor& indices, int dim, double fill) {
  const std::string_view what = indices ? "load_shared_gather" : "load_shared";
  Builder& b = Builder::current(loc);
  const int rank = src.ir()->rank();
  if (offsets.empty()) offsets.assign(rank, Dim(0));
  check_offsets(offsets.size(), rank, what, loc);
  std::vector<int> s;
  if (shape.empty())
    s = src.shape();
  else
    s = static_shape(shape, what, loc);
  if (int(s.size()) != rank)
    throw Error(loc, fmt::format("{}: a tile of rank {} from a shared tensor of rank {}", what, s.size(), rank));
  if (indices) {
    check_indices(indices, dim, s, src.dtype(), what, loc);
    fill = checked_fill(src.dtype(), fill, what, loc);
  }
  // A gather's indexed coordinates are tested element by element.
  for (int d = 0; d < rank; ++d)
    if (d != dim && offsets[d].is_constant() && (offsets[d].value() < 0 || offsets[d].value() + s[d] > src.shape()[d]))
      throw Error(loc, fmt::format("{}: the tile [{}] at offset {} of dim {} exceeds the shared tensor's shape [{}]",
                                   what, fmt::join(s, ", "), offsets[d].value(), d, fmt::join(src.shape(), ", ")));
  check_pinned_layout(layout, s, what, loc);
  auto out = new_tile(src.dtype(), s, layout, "r", loc);
  b.emit(ir::make<ir::LoadSharedNode>(loc, out, src.ir(), exprs_of(offsets), block_rank, ir::MatrixAccess{}, 0, indices,
                                      dim, fill));
  return RegisterTensor(out);
}

void detail::check_shared_store(const SharedTensor& dst, const RegisterTensor& src, std::vector<Dim>& offsets,
                                std::string_view what, const SourceLoc& loc, int dim) {
  check_group(src.ir(), what, loc);
  const int rank = dst.ir()->rank();
  if (offsets.empty()) offsets.assign(rank, Dim(0));
  check_offsets(offsets.size(), rank, what, loc);
  if (src.dtype() != dst.dtype())
    throw Error(loc, fmt::format("{}: a tile of {} stored to a shared tensor of {}; convert it with .to<{}>()", what,
                                 dtype_name(src.dtype()), dtype_name(dst.dtype()), dtype_name(dst.dtype())));
  if (int(src.shape().size()) != rank)
    throw Error(loc,
                fmt::format("{}: a tile of rank {} into a shared tensor of rank {}", what, src.shape().size(), rank));
  for (int d = 0; d < rank; ++d) {
    const int off = offsets[d].is_constant() ? offsets[d].value() : 0;
    if (d != dim && (off < 0 || off + src.shape()[d] > dst.shape()[d]))
      throw Error(loc, fmt::format("{}: the tile [{}] at offset {} of dim {} exceeds the shared tensor's shape [{}]",
                                   what, fmt::join(src.shape(), ", "), off, d, fmt::join(dst.shape(), ", ")));
  }
}

void Instructions::store_shared_of(const SharedTensor& dst, const ir::Expr& block_rank, const RegisterTensor& src,
                                   std::vector<Dim> offsets, SourceLoc loc, const ir::RegisterTensor& indices,
                                   int dim) {
  const std::string_view what = indices ? "store_shared_scatter" : "store_shared";
  Builder& b = Builder::current(loc);
  if (indices) check_indices(indices, dim, src.shape(), dst.dtype(), what, loc);
  detail::check_shared_store(dst, src, offsets, what, loc, dim);
  b.emit(ir::make<ir::StoreSharedNode>(loc, dst.ir(), src.ir(), exprs_of(offsets), block_rank, ir::MatrixAccess{}, 0,
                                       indices, dim));
}

SharedTensor Instructions::make_shared_tensor(DType t, const std::vector<Dim>& shape, std::optional<Swizzle> swizzle,
                                              SourceLoc loc, Packing packing) {
  Builder& b = Builder::current(loc);
  std::vector<int> s = static_shape(shape, "shared_tensor", loc);
  std::vector<int> strides(s.size(), 1);
  for (int i = int(s.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * s[i + 1];
  if (packing == Packing::chunks16) {
    const bool chunkable = t == DType::F6E2M3 || t == DType::F6E3M2 || t == DType::F4E2M1;
    if (!chunkable || s.back() % 16 != 0)
      throw Error(loc, fmt::format("shared_tensor<{}>({{{}}}, Packing::chunks16): chunks of 16 hold f6e2m3, f6e3m2 "
                                   "or f4e2m1 elements, and rows of a multiple of 16 of them",
                                   dtype_name(t), fmt::join(s, ", ")));
  } else if (is_packed(t) && s.back() * dtype_bits(t) % 32 != 0)
    throw Error(loc,
                fmt::format("shared_tensor<{0}>: rows of {1} packed {0} elements are {2} bits; packed rows must be "
                            "whole 32-bit words, a multiple of {3} elements, so that no two threads share a byte",
                            dtype_name(t), s.back(), s.back() * dtype_bits(t), 32 / std::gcd(dtype_bits(t), 32)));
  const int row_bytes = s.back() * dtype_bits(t) / 8;
  int bits = swizzle ? 0 : ir::kSwizzleUndecided;
  if (swizzle && *swizzle != Swizzle::none) {
    if (is_packed(t) && 8 % dtype_bits(t) != 0)
      throw Error(loc, fmt::format("shared_tensor<{}>: a swizzle moves 16-byte chunks, which would split elements "
                                   "of {} bits between them; give this tile Swizzle::none",
                                   dtype_name(t), dtype_bits(t)));
    if (row_bytes % 16 != 0)
      throw Error(loc, fmt::format("shared_tensor: a swizzled tile needs rows of a multiple of 16 bytes; rows of {} "
                                   "{} elements are {} bytes",
                                   s.back(), dtype_name(t), row_bytes));
    int64_t total = row_bytes;
    for (size_t i = 0; i + 1 < s.size(); ++i) total *= s[i];
    if (total % 128 != 0)
      throw Error(
          loc,
          fmt::format("shared_tensor: a swizzled tile must span whole 128-byte lines; this one has {} bytes", total));
    bits = *swizzle == Swizzle::automatic ? conflict_free_swizzle_bits(row_bytes)
           : *swizzle == Swizzle::b32     ? 1
           : *swizzle == Swizzle::b64     ? 2
                                          : 3;
  }
  ir::SharedTensorNode allocation{t, s, strides, nullptr, nullptr, "s", loc, bits};
  allocation.chunks16 = packing == Packing::chunks16;
  auto node = ir::make<ir::SharedTensorNode>(std::move(allocation));
  b.emit(ir::make<ir::AllocSharedNode>(loc, node));
  return SharedTensor(node);
}

void Instructions::free_shared(const SharedTensor& tile, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::FreeSharedNode>(loc, tile.ir()));
}

void Instructions::sync(loc_t loc) {
  SourceLoc l = SourceLoc::from(loc);
  Builder& b = Builder::current(l);
  if (!b.inside_thread_group() || b.group(l) == ir::ThreadRange{0, b.attrs().warps * 32})
    return b.emit(ir::make<ir::SyncNode>(l));
  const ir::ThreadRange g = b.group(l);
  if (!g.whole_warps())
    throw Error(l, fmt::format("sync() inside a thread group of {}: a thread group's sync() is a named barrier "
                               "(bar.sync), which counts whole warps, and this group splits a warp; make the group "
                               "start and end at multiples of 32 threads, or call sync() outside it",
                               g.str()));
  // allocate_barriers numbers the group's barrier.
  b.emit(ir::make<ir::SyncNode>(l, ir::SyncNode::kUnallocated));
}

}  // namespace tessel
