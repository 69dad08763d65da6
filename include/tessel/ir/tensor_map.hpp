// Tensor maps at launch: the values cuTensorMapEncodeTiled takes, evaluated on the host from a
// kernel's TensorMap entry and the launch's parameter values, and the encoding rules checked
// before the driver (or the simulator) sees them (hw-semantics.md §3.1). The runtime and the
// simulator call the same checks, so both report a broken rule with the same message.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::ir {

inline constexpr int kTensorMapMaxRank = 5;
inline constexpr int kTensorMapMaxBox = 256;
inline constexpr int kTensorMapBytes = 128, kTensorMapAlignment = 64;
// Tensor maps one kernel may take (each is a 128-byte parameter).
inline constexpr int kMaxTensorMapsPerKernel = 8;

// TMA moves packed f4e2m1, f6e2m3 and f6e3m2 elements only into tiles of 16-element chunks, 16 to
// each 16-byte chunk of shared memory (the driver's 16U4_ALIGN16B and 16U6_ALIGN16B types, sm_100a),
// in box rows of 128 elements: one shared byte per element. Other types take their own size.
inline constexpr int kTmaPackedRow = 128, kTmaPackedChunk = 16;
inline int64_t tma_shared_element_bytes(DType t) { return is_packed(t) ? 1 : dtype_bytes(t); }

// The box a shared tile makes in a view of `view_rank` dimensions: the tile's extents at `dims`, 1
// elsewhere (outermost first).
std::vector<int> tma_box(const SharedTensorNode& tile, int view_rank, const std::vector<int>& dims);

// One tensor map's values at one launch, innermost dimension first as the driver takes them.
struct TensorMapValues {
  DType dtype = DType::F16;
  int rank = 0;
  uint64_t address = 0;
  std::array<uint64_t, kTensorMapMaxRank> extents{};  // elements
  // Bytes; strides[0] is the element's size when contiguous (0 for packed elements, always contiguous).
  std::array<int64_t, kTensorMapMaxRank> strides{};
  std::array<uint32_t, kTensorMapMaxRank> box{};  // elements
  int swizzle_bytes = 0;                          // 0, 32, 64 or 128
  bool operator==(const TensorMapValues&) const = default;
};

// Evaluates `map`'s view; `lookup` gives the kernel parameters' values (as for the grid).
TensorMapValues evaluate_tensor_map(const TensorMap& map, const std::function<Scalar(const ExprNode&)>& lookup);

// Throws tessel::Error at `loc`, naming the rule broken, unless cuTensorMapEncodeTiled accepts
// `map`: rank 1 to 5, 16-byte aligned address, a contiguous last dimension, other strides
// multiples of 16 bytes below 2^40, extents 1 to 2^32, box extents 1 to 256, box rows a multiple
// of 16 bytes and no wider than the swizzle span; of packed elements, a 32-byte aligned address,
// strides of 32 bytes, rows of a multiple of 128 elements and box rows of 128.
void check_tensor_map(const TensorMapValues& map, const SourceLoc& loc);

// Throws tessel::Error at `loc` unless TMA accepts a box of `box` elements (outermost first) of
// `dtype` with a swizzle of `swizzle_bytes` (0: none): 1 to 256 elements per dimension, rows a
// multiple of 16 bytes and no wider than the swizzle span. check_tensor_map includes it.
void check_tma_box(const std::vector<int>& box, DType dtype, int swizzle_bytes, const SourceLoc& loc);

// Throws tessel::Error at `loc` unless a TMA box may start at byte `byte` of shared memory: 128-byte
// aligned, and on the pattern's repeat (8 lines of the span) when swizzled, so that the image TMA
// writes is the tile's swizzle.
void check_tma_shared_address(int64_t byte, int swizzle_bytes, const SourceLoc& loc);

}  // namespace tessel::ir
