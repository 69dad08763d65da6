// Verifier rules and effects (tessel/ir/effects.hpp) of TMA: the box a shared tile makes in a
// global view, and what TMA accepts of it.
#include <limits>

#include "tessel/ir/tensor_map.hpp"
#include "verification.hpp"

namespace tessel::ir {

namespace {

// The strides of a contiguous row-major tile of `shape`.
std::vector<int64_t> row_major_strides(const std::vector<int>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t n = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = n;
    n *= shape[d];
  }
  return strides;
}

// TMA writes and reads a box as a dense row-major image, so the tile must be one (strides of
// extent-1 dimensions do not matter).
void check_tile_is_box_image(const SharedTensorNode& tile, std::string_view operation, const SourceLoc& loc) {
  const std::vector<int64_t> dense = row_major_strides(tile.shape);
  for (size_t d = 0; d < tile.shape.size(); ++d)
    if (tile.shape[d] > 1 && tile.strides[d] != dense[d])
      throw Error(loc, fmt::format("{}: the shared tile has shape [{}] and strides [{}]; TMA moves a box as a "
                                   "contiguous row-major image, so the tile must be one (strides [{}])",
                                   operation, fmt::join(tile.shape, ", "), fmt::join(tile.strides, ", "),
                                   fmt::join(dense, ", ")));
}

enum class Direction { Store, Load };

// A load of packed elements: into a tile of 16-element chunks, on sm_100a (tensor_map.hpp).
void check_packed_box(const Verification& v, const SharedTensorNode& tile, DType dtype, Direction direction,
                      const SourceLoc& loc) {
  if (direction == Direction::Store)
    throw Error(loc, fmt::format("tma.shared_to_global does not take packed {} elements; TMA stores packed elements "
                                 "from no layout of shared memory: store the tile's words as u32",
                                 dtype_name(dtype)));
  if (!tile.allocation()->chunks16)
    throw Error(loc, fmt::format("tma.global_to_shared: packed {} elements load by TMA only into a tile of 16-element "
                                 "chunks (shared_tensor<{}>(shape, Packing::chunks16)), the layout tcgen05 reads; "
                                 "to copy the bytes as they lie, view them as u32 words",
                                 dtype_name(dtype), dtype_name(dtype)));
  if (v.arch < Arch::Sm100a)
    throw Error(loc, fmt::format("tma.global_to_shared: TMA of packed {} elements into 16-element chunks needs "
                                 "sm_100a; the kernel is compiled for {}",
                                 dtype_name(dtype), arch_name(v.arch)));
}

// What a store and a load of `tile` as a box of `view` at `offsets` share: the view's rank, the
// types, the dimensions the tile covers, the tile as the box's image, and the table entry.
void check_box_copy(Verification& v, const SharedTensorNode& tile, const GlobalTensor& view_ref,
                    const std::vector<Expr>& offsets, const std::vector<int>& dims, int tensor_map, Direction direction,
                    const SourceLoc& loc) {
  const bool load = direction == Direction::Load;
  const std::string_view operation = load ? "tma.global_to_shared" : "tma.shared_to_global";
  const GlobalTensorNode& view = *view_ref;
  if (view.rank() < 1 || view.rank() > kTensorMapMaxRank)
    throw Error(loc, fmt::format("{}: the global view has {} dimensions; TMA handles 1 to {}", operation, view.rank(),
                                 kTensorMapMaxRank));
  if (tile.dtype != view.dtype)
    throw Error(loc, fmt::format("{}: {} a shared tile of {} {} a global view of {}; TMA copies elements unchanged, "
                                 "so the types must be equal",
                                 operation, load ? "into" : "from", dtype_name(tile.dtype), load ? "from" : "to",
                                 dtype_name(view.dtype)));
  if (int(offsets.size()) != view.rank())
    throw Error(
        loc, fmt::format("{}: {} offsets given for a global view of rank {}", operation, offsets.size(), view.rank()));
  if (tile.rank() > view.rank())
    throw Error(loc, fmt::format("{}: a shared tile of rank {} {} a global view of rank {}; each dimension of "
                                 "the tile must be one of the view",
                                 operation, tile.rank(), load ? "from" : "into", view.rank()));
  if (int(dims.size()) != tile.rank())
    throw Error(loc, fmt::format("{}: dims names {} dimensions of the global view for a shared tile of rank {}; give "
                                 "one per dimension of the tile",
                                 operation, dims.size(), tile.rank()));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0 || dims[i] >= view.rank() || (i > 0 && dims[i] <= dims[i - 1]))
      throw Error(loc, fmt::format("{}: dims [{}] must be increasing dimensions of the global view (0 to {})",
                                   operation, fmt::join(dims, ", "), view.rank() - 1));
  check_tile_is_box_image(tile, operation, loc);
  if (is_packed(view.dtype)) check_packed_box(v, tile, view.dtype, direction, loc);
  const int bits = tile.allocation()->swizzle_bits;
  const int swizzle_bytes = bits > 0 ? 16 << bits : 0;
  const std::vector<int> box = tma_box(tile, view.rank(), dims);
  check_tma_box(box, view.dtype, swizzle_bytes, loc);
  const int64_t row_bytes = int64_t(box.back()) * tma_shared_element_bytes(view.dtype);
  if (swizzle_bytes > 0 && row_bytes != swizzle_bytes)
    throw Error(loc, fmt::format("{}: the shared tile's rows are {} bytes and its swizzle is {} bytes; TMA puts each "
                                 "row of a swizzled box on a {}-byte line, so the rows must be exactly {} bytes",
                                 operation, row_bytes, swizzle_bytes, swizzle_bytes, swizzle_bytes));
  if (tensor_map >= 0) {
    TESSEL_CHECK(size_t(tensor_map) < v.kernel.tensor_maps.size(), "{} at {} uses tensor map {} of {}", operation,
                 loc.str(), tensor_map, v.kernel.tensor_maps.size());
    const TensorMap& m = v.kernel.tensor_maps[size_t(tensor_map)];
    TESSEL_CHECK(m.view == view_ref && m.box == box && m.swizzle_bits == std::max(bits, 0),
                 "{} at {} does not match tensor map {}", operation, loc.str(), tensor_map);
  }
}

}  // namespace

void verify_TmaStore(Verification& v, const TmaStoreNode& n) {
  check_box_copy(v, *n.src, n.dst, n.offsets, n.dims, n.tensor_map, Direction::Store, n.loc);
  check_writable(n.dst, "tma.shared_to_global", n);
  check_no_l1_hint(n.dst, "tma.shared_to_global: TMA copies do not pass through L1", n);
}

void verify_TmaLoad(Verification& v, const TmaLoadNode& n) {
  check_box_copy(v, *n.dst, n.src, n.offsets, n.dims, n.tensor_map, Direction::Load, n.loc);
  check_no_l1_hint(n.src, "tma.global_to_shared: TMA copies do not pass through L1", n);
  check_barrier(n.barrier, n);
  if (n.cta_mask) check_cluster_mask(v.kernel, n.cta_mask, "tma.global_to_shared", "receives the box", n);
  if (!n.barrier_rank) return;
  TESSEL_CHECK(!n.cta_mask, "tma.global_to_shared at {} multicasts to another block's barrier", n.loc.str());
  if (v.arch < Arch::Sm100a)
    throw Error(n.loc, fmt::format("tma.global_to_shared: completing the bytes on a barrier of another block "
                                   "(bars[i].remote(rank)) is the cta_group::2 form of the load, which needs sm_100a; "
                                   "the kernel is compiled for {}",
                                   arch_name(v.arch)));
  if (v.kernel.cluster_blocks() % 2 != 0)
    throw Error(n.loc, fmt::format("tma.global_to_shared: completing the bytes on a barrier of another block needs "
                                   "block pairs, so a cluster of an even number of blocks; attrs.cluster is {{{}}}",
                                   fmt::join(v.kernel.cluster, ", ")));
  check_cluster_rank(v.kernel, n.barrier_rank, "tma.global_to_shared", n);
}

// A bulk copy moves bytes: both tiles dense, of one type and shape, and a multiple of 16 bytes.
void verify_TmaSharedToCluster(Verification& v, const TmaSharedToClusterNode& n) {
  constexpr std::string_view operation = "tma.shared_to_cluster";
  if (n.src->dtype != n.dst->dtype || n.src->shape != n.dst->shape)
    throw Error(n.loc, fmt::format("{}: copies a shared tile of {} [{}] (allocated at {}) into one of {} [{}] "
                                   "(allocated at {}); a bulk copy moves bytes unchanged, so the tiles must have one "
                                   "type and shape",
                                   operation, dtype_name(n.src->dtype), fmt::join(n.src->shape, ", "),
                                   n.src->allocation()->loc.str(), dtype_name(n.dst->dtype),
                                   fmt::join(n.dst->shape, ", "), n.dst->allocation()->loc.str()));
  check_tile_is_box_image(*n.src, operation, n.loc);
  check_tile_is_box_image(*n.dst, operation, n.loc);
  if (n.src->allocation()->swizzle_bits > 0 || n.dst->allocation()->swizzle_bits > 0)
    throw Error(n.loc, fmt::format("{}: a swizzled tile; a bulk copy moves bytes in order, which a swizzled tile does "
                                   "not hold: copy tiles without a swizzle",
                                   operation));
  check_remote_shared(v.kernel, n.rank, n.src->dtype, operation, n);
  if (n.src->nbytes() % 16 != 0)
    throw Error(n.loc, fmt::format("{}: the tile is {} bytes; a bulk copy moves a multiple of 16 bytes", operation,
                                   n.src->nbytes()));
  for (const SharedTensor& tile : {n.src, n.dst}) {
    int64_t offset = 0;
    if (tile->offset && as_const_int(tile->offset, &offset) && offset * dtype_bytes(tile->dtype) % 16 != 0)
      throw Error(n.loc, fmt::format("{}: the tile starts {} bytes into its allocation (allocated at {}); a bulk copy "
                                     "needs 16-byte aligned shared addresses",
                                     operation, offset * dtype_bytes(tile->dtype), tile->allocation()->loc.str()));
  }
  check_barrier(n.barrier, n);
}

namespace {

// A bulk copy without a tensor map moves the bytes of a dense, unswizzled tile to or from a run of
// one row of a view: one type (not packed), a contiguous row, a multiple of 16 bytes, and a run
// that, where its offset and the row's extent are known at trace time, starts 16-byte aligned and
// ends in the row.
void check_bulk_copy(const SharedTensorNode& tile, const GlobalTensor& view, const std::vector<Expr>& offsets,
                     std::string_view operation, const StmtNode& n) {
  TESSEL_CHECK(int(offsets.size()) == view->rank(), "{} at {} with {} offsets", operation, n.loc.str(), offsets.size());
  if (tile.dtype != view->dtype)
    throw Error(n.loc,
                fmt::format("{}: a shared tile of {} (allocated at {}) and a view of {}; a bulk copy moves "
                            "bytes unchanged, so both hold one type",
                            operation, dtype_name(tile.dtype), tile.allocation()->loc.str(), dtype_name(view->dtype)));
  TESSEL_CHECK(!is_packed(tile.dtype), "{} of packed {} elements at {}", operation, dtype_name(tile.dtype),
               n.loc.str());
  int64_t stride = 0;
  if (!as_const_int(view->strides.back(), &stride) || stride != 1)
    throw Error(n.loc, fmt::format("{}: the view's last stride is not the constant 1; a bulk copy moves a run of one "
                                   "row, whose elements must be contiguous",
                                   operation));
  check_tile_is_box_image(tile, operation, n.loc);
  if (tile.allocation()->swizzle_bits > 0)
    throw Error(n.loc, fmt::format("{}: a swizzled tile (allocated at {}); a bulk copy moves bytes in order, which a "
                                   "swizzled tile does not hold: copy a tile without a swizzle",
                                   operation, tile.allocation()->loc.str()));
  const int bytes = dtype_bytes(tile.dtype);
  const int64_t elements = tile.nbytes() / bytes;
  if (tile.nbytes() % 16 != 0)
    throw Error(n.loc, fmt::format("{}: the tile [{}] of {} is {} bytes; a bulk copy moves a multiple of 16 bytes",
                                   operation, fmt::join(tile.shape, ", "), dtype_name(tile.dtype), tile.nbytes()));
  int64_t first = 0, extent = 0;
  for (int d = 0; d + 1 < view->rank(); ++d) {
    if (!as_const_int(offsets[size_t(d)], &first)) continue;
    if (first < 0)
      throw Error(n.loc, fmt::format("{}: offset {} of dimension {} is negative; a bulk copy moves a run of a row of "
                                     "the view",
                                     operation, first, d));
    if (as_const_int(view->shape[d], &extent) && first >= extent)
      throw Error(n.loc, fmt::format("{}: offset {} of dimension {} is outside the view's extent {}", operation, first,
                                     d, extent));
  }
  if (!as_const_int(offsets.back(), &first)) return;
  if (first < 0)
    throw Error(n.loc, fmt::format("{}: the run starts at element {} of its row; a bulk copy moves a run of one row",
                                   operation, first));
  if (first * bytes % 16 != 0)
    throw Error(n.loc, fmt::format("{}: the run starts at element {} of its row, {} bytes in; a bulk copy starts "
                                   "16-byte aligned, so the last offset must be a multiple of {}",
                                   operation, first, first * bytes, 16 / bytes));
  if (as_const_int(view->shape.back(), &extent) && (first < 0 || first + elements > extent))
    throw Error(n.loc, fmt::format("{}: the run of {} elements at element {} of a row of {} leaves the row; a bulk "
                                   "copy moves a run of one row (view the buffer as one row to copy across rows)",
                                   operation, elements, first, extent));
}

}  // namespace

void verify_TmaBulkLoad(Verification&, const TmaBulkLoadNode& n) {
  check_bulk_copy(*n.dst, n.src, n.offsets, "tma.bulk_global_to_shared", n);
  check_no_l1_hint(n.src, "tma.bulk_global_to_shared: TMA copies do not pass through L1", n);
  check_barrier(n.barrier, n);
}

void verify_TmaBulkStore(Verification&, const TmaBulkStoreNode& n) {
  check_bulk_copy(*n.src, n.dst, n.offsets, "tma.bulk_shared_to_global", n);
  check_writable(n.dst, "tma.bulk_shared_to_global", n);
  check_no_l1_hint(n.dst, "tma.bulk_shared_to_global: TMA copies do not pass through L1", n);
}

void verify_TmaCommit(Verification&, const TmaCommitNode&) {}

void verify_TmaWait(Verification&, const TmaWaitNode& n) {
  TESSEL_CHECK(n.pending >= 0, "tma.wait_group {} at {}", n.pending, n.loc.str());
}

// ---- effects ----

namespace {
TmaRows rows_moved(const SharedTensorNode& tile, int view_rank, const std::vector<int>& dims, DType dtype) {
  return {tile.allocation(), int64_t(tma_box(tile, view_rank, dims).back()) * tma_shared_element_bytes(dtype)};
}
}  // namespace

Effects effects_of(const TmaStoreNode& n) {
  Effects e;
  e.tma_rows.push_back(rows_moved(*n.src, n.dst->rank(), n.dims, n.dst->dtype));
  return e;
}
Effects effects_of(const TmaCommitNode&) { return {}; }

// The bytes complete on another block's barrier, which announces them. A bulk copy moves its
// tiles' bytes in order, as one row no swizzle's span holds: choose_swizzles leaves both unswizzled.
Effects effects_of(const TmaSharedToClusterNode& n) {
  Effects e;
  e.completed_bytes.push_back({&n.barrier, n.src->nbytes(), true});
  for (const SharedTensor& tile : {n.src, n.dst})
    e.tma_rows.push_back({tile->allocation(), std::numeric_limits<int64_t>::max()});
  return e;
}
Effects effects_of(const TmaWaitNode&) { return {}; }

// A bulk copy without a tensor map moves its tile's bytes in order: choose_swizzles leaves it
// unswizzled.
Effects effects_of(const TmaBulkLoadNode& n) {
  Effects e;
  e.completed_bytes.push_back({&n.barrier, n.dst->nbytes(), false});
  e.tma_rows.push_back({n.dst->allocation(), std::numeric_limits<int64_t>::max()});
  return e;
}
Effects effects_of(const TmaBulkStoreNode& n) {
  Effects e;
  e.tma_rows.push_back({n.src->allocation(), std::numeric_limits<int64_t>::max()});
  return e;
}

// Every byte of the box counts, elements outside the tensor included.
Effects effects_of(const TmaLoadNode& n) {
  int64_t bytes = tma_shared_element_bytes(n.src->dtype);
  for (int extent : tma_box(*n.dst, n.src->rank(), n.dims)) bytes *= extent;
  Effects e;
  e.completed_bytes.push_back({&n.barrier, bytes, n.cta_mask != nullptr || n.barrier_rank != nullptr});
  e.tma_rows.push_back(rows_moved(*n.dst, n.src->rank(), n.dims, n.src->dtype));
  return e;
}

}  // namespace tessel::ir
