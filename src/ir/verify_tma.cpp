// Verifier rules of TMA: the box a shared tile makes in a global view, and what TMA accepts of it.
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
void check_tile_is_box_image(const SharedTensorNode& tile, const SourceLoc& loc) {
  const std::vector<int64_t> dense = row_major_strides(tile.shape);
  for (size_t d = 0; d < tile.shape.size(); ++d)
    if (tile.shape[d] > 1 && tile.strides[d] != dense[d])
      throw Error(loc, fmt::format("tma.shared_to_global: the shared tile has shape [{}] and strides [{}]; TMA moves "
                                   "a box as a contiguous row-major image, so the tile must be one (strides [{}])",
                                   fmt::join(tile.shape, ", "), fmt::join(tile.strides, ", "), fmt::join(dense, ", ")));
}

}  // namespace

void verify_TmaStore(Verification& v, const TmaStoreNode& n) {
  const SharedTensorNode& tile = *n.src;
  const GlobalTensorNode& view = *n.dst;
  if (view.rank() < 1 || view.rank() > kTensorMapMaxRank)
    throw Error(n.loc, fmt::format("tma.shared_to_global: the global view has {} dimensions; TMA handles 1 to {}",
                                   view.rank(), kTensorMapMaxRank));
  if (tile.dtype != view.dtype)
    throw Error(n.loc, fmt::format("tma.shared_to_global: from a shared tile of {} to a global view of {}; TMA copies "
                                   "elements unchanged, so the types must be equal",
                                   dtype_name(tile.dtype), dtype_name(view.dtype)));
  if (int(n.offsets.size()) != view.rank())
    throw Error(n.loc, fmt::format("tma.shared_to_global: {} offsets given for a global view of rank {}",
                                   n.offsets.size(), view.rank()));
  if (tile.rank() > view.rank())
    throw Error(n.loc, fmt::format("tma.shared_to_global: a shared tile of rank {} into a global view of rank {}; each "
                                   "dimension of the tile must be one of the view",
                                   tile.rank(), view.rank()));
  if (int(n.dims.size()) != tile.rank())
    throw Error(n.loc, fmt::format("tma.shared_to_global: dims names {} dimensions of the global view for a shared "
                                   "tile of rank {}; give one per dimension of the tile",
                                   n.dims.size(), tile.rank()));
  for (size_t i = 0; i < n.dims.size(); ++i)
    if (n.dims[i] < 0 || n.dims[i] >= view.rank() || (i > 0 && n.dims[i] <= n.dims[i - 1]))
      throw Error(n.loc, fmt::format("tma.shared_to_global: dims [{}] must be increasing dimensions of the global view "
                                     "(0 to {})",
                                     fmt::join(n.dims, ", "), view.rank() - 1));
  check_tile_is_box_image(tile, n.loc);
  const int bits = tile.allocation()->swizzle_bits;
  const int swizzle_bytes = bits > 0 ? 16 << bits : 0;
  const std::vector<int> box = tma_box(tile, view.rank(), n.dims);
  check_tma_box(box, view.dtype, swizzle_bytes, n.loc);
  const int64_t row_bytes = int64_t(box.back()) * dtype_bytes(view.dtype);
  if (swizzle_bytes > 0 && row_bytes != swizzle_bytes)
    throw Error(n.loc, fmt::format("tma.shared_to_global: the shared tile's rows are {} bytes and its swizzle is {} "
                                   "bytes; TMA puts each row of a swizzled box on a {}-byte line, so the rows must be "
                                   "exactly {} bytes",
                                   row_bytes, swizzle_bytes, swizzle_bytes, swizzle_bytes));
  if (n.tensor_map >= 0) {
    TESSEL_CHECK(size_t(n.tensor_map) < v.kernel.tensor_maps.size(), "tma store at {} uses tensor map {} of {}",
                 n.loc.str(), n.tensor_map, v.kernel.tensor_maps.size());
    const TensorMap& m = v.kernel.tensor_maps[size_t(n.tensor_map)];
    TESSEL_CHECK(m.view == n.dst && m.box == box && m.swizzle_bits == std::max(bits, 0),
                 "tma store at {} does not match tensor map {}", n.loc.str(), n.tensor_map);
  }
}

void verify_TmaCommit(Verification&, const TmaCommitNode&) {}

void verify_TmaWait(Verification&, const TmaWaitNode& n) {
  TESSEL_CHECK(n.pending >= 0, "tma.wait_group {} at {}", n.pending, n.loc.str());
}

}  // namespace tessel::ir
