#include "tessel/ir/tensor_map.hpp"

#include <fmt/format.h>

namespace tessel::ir {

std::vector<int> tma_box(const SharedTensorNode& tile, int view_rank, const std::vector<int>& dims) {
  std::vector<int> box(size_t(view_rank), 1);
  for (size_t i = 0; i < dims.size() && i < tile.shape.size(); ++i)
    if (dims[i] >= 0 && dims[i] < view_rank) box[size_t(dims[i])] = tile.shape[i];
  return box;
}

TensorMapValues evaluate_tensor_map(const TensorMap& map, const std::function<Scalar(const ExprNode&)>& lookup) {
  const GlobalTensorNode& view = *map.view;
  TensorMapValues v;
  v.dtype = view.dtype;
  v.rank = view.rank();
  v.address = uint64_t(evaluate(*view.ptr, lookup).i);
  v.swizzle_bytes = map.swizzle_bits == 0 ? 0 : 16 << map.swizzle_bits;
  const int64_t bits = dtype_bits(view.dtype);
  for (int d = 0; d < v.rank && d < kTensorMapMaxRank; ++d) {
    const size_t inner = size_t(v.rank - 1 - d);  // the driver counts from the innermost dimension
    v.extents[size_t(d)] = uint64_t(evaluate(*view.shape[inner], lookup).i);
    // A packed view's last stride is 1 (its elements lie next to each other) and its others whole bytes.
    v.strides[size_t(d)] = is_packed(view.dtype) && d == 0 ? 0 : evaluate(*view.strides[inner], lookup).i * bits / 8;
    v.box[size_t(d)] = uint32_t(map.box[inner]);
  }
  return v;
}

namespace {

// The rules the driver adds for the 16U4_ALIGN16B and 16U6_ALIGN16B types.
void check_packed_tensor_map(const TensorMapValues& m, const SourceLoc& loc) {
  const auto user_dim = [&](int d) { return m.rank - 1 - d; };
  if (m.address % 32 != 0)
    throw Error(loc, fmt::format("tma: the global view of packed {} elements starts at address {:#x}, which is not "
                                 "32-byte aligned; TMA of packed elements needs a 32-byte aligned global address",
                                 dtype_name(m.dtype), m.address));
  if (m.extents[0] % kTmaPackedRow != 0)
    throw Error(loc, fmt::format("tma: the global view's rows are {} packed {} elements; TMA of packed elements needs "
                                 "rows of a multiple of {}",
                                 int64_t(m.extents[0]), dtype_name(m.dtype), kTmaPackedRow));
  for (int d = 1; d < m.rank; ++d)
    if (m.strides[size_t(d)] % 32 != 0)
      throw Error(loc, fmt::format("tma: dimension {} of the global view of packed {} elements has a stride of {} "
                                   "bytes; TMA of packed elements needs a multiple of 32 bytes",
                                   user_dim(d), dtype_name(m.dtype), m.strides[size_t(d)]));
}

}  // namespace

void check_tensor_map(const TensorMapValues& m, const SourceLoc& loc) {
  // Dimensions are named as the user wrote them, outermost first.
  const auto user_dim = [&](int d) { return m.rank - 1 - d; };
  if (m.rank < 1 || m.rank > kTensorMapMaxRank)
    throw Error(loc, fmt::format("tma: a tensor map has 1 to {} dimensions; this global view has {}", kTensorMapMaxRank,
                                 m.rank));
  if (m.address % 16 != 0)
    throw Error(loc, fmt::format("tma: the global view starts at address {:#x}, which is not 16-byte aligned; TMA "
                                 "needs a 16-byte aligned global address",
                                 m.address));
  if (is_packed(m.dtype)) check_packed_tensor_map(m, loc);
  const int64_t element = is_packed(m.dtype) ? 0 : dtype_bytes(m.dtype);
  if (m.strides[0] != element)
    throw Error(loc, fmt::format("tma: the global view's last dimension has a stride of {} elements; TMA needs it "
                                 "contiguous (stride 1)",
                                 m.strides[0] / element));
  for (int d = 0; d < m.rank; ++d)
    if (m.extents[size_t(d)] < 1 || m.extents[size_t(d)] > (uint64_t(1) << 32))
      throw Error(loc, fmt::format("tma: dimension {} of the global view has extent {}; TMA needs 1 to 2^32",
                                   user_dim(d), int64_t(m.extents[size_t(d)])));
  for (int d = 1; d < m.rank; ++d) {
    const int64_t stride = m.strides[size_t(d)];
    if (stride <= 0 || stride % 16 != 0)
      throw Error(loc, fmt::format("tma: dimension {} of the global view has a stride of {} bytes; TMA needs a "
                                   "positive multiple of 16 bytes",
                                   user_dim(d), stride));
    if (stride >= int64_t(1) << 40)
      throw Error(loc, fmt::format("tma: dimension {} of the global view has a stride of {} bytes; TMA needs less "
                                   "than 2^40",
                                   user_dim(d), stride));
  }
  std::vector<int> box;
  for (int d = m.rank - 1; d >= 0; --d) box.push_back(int(m.box[size_t(d)]));
  check_tma_box(box, m.dtype, m.swizzle_bytes, loc);
}

void check_tma_box(const std::vector<int>& box, DType dtype, int swizzle_bytes, const SourceLoc& loc) {
  for (size_t d = 0; d < box.size(); ++d)
    if (box[d] < 1 || box[d] > kTensorMapMaxBox)
      throw Error(loc, fmt::format("tma: the box has extent {} in dimension {}; TMA boxes have 1 to {} elements per "
                                   "dimension",
                                   box[d], d, kTensorMapMaxBox));
  if (is_packed(dtype) && box.back() != kTmaPackedRow)
    throw Error(loc,
                fmt::format("tma: the box's rows are {} elements of {}; TMA moves packed elements in box rows of {} "
                            "(8 chunks of 16 bytes in shared memory): make the tile's last extent {}",
                            box.back(), dtype_name(dtype), kTmaPackedRow, kTmaPackedRow));
  const int64_t row_bytes = int64_t(box.back()) * tma_shared_element_bytes(dtype);
  if (row_bytes % 16 != 0)
    throw Error(loc, fmt::format("tma: the box's rows are {} bytes ({} elements of {}); TMA needs a multiple of 16 "
                                 "bytes",
                                 row_bytes, box.back(), dtype_name(dtype)));
  if (swizzle_bytes > 0 && row_bytes > swizzle_bytes)
    throw Error(loc, fmt::format("tma: the box's rows are {} bytes, wider than the {}-byte swizzle of the shared "
                                 "tile; TMA needs rows of at most {} bytes: make the tile's last extent smaller or "
                                 "its swizzle wider",
                                 row_bytes, swizzle_bytes, swizzle_bytes));
}

void check_tma_shared_address(int64_t byte, int swizzle_bytes, const SourceLoc& loc) {
  if (byte % 128 != 0)
    throw Error(loc, fmt::format("tma: the shared tile starts at byte {} of shared memory; TMA needs a 128-byte "
                                 "aligned shared address",
                                 byte));
  const int64_t repeat = int64_t(swizzle_bytes) * 8;
  if (swizzle_bytes > 0 && byte % repeat != 0)
    throw Error(loc, fmt::format("tma: the shared tile starts at byte {} of shared memory, inside a repeat of its "
                                 "{}-byte swizzle; a swizzled tile must start on a {}-byte boundary so that TMA writes "
                                 "the tile's pattern",
                                 byte, swizzle_bytes, repeat));
}

}  // namespace tessel::ir
