// The shared-memory image of a TMA box (hw-semantics.md §3.2, §3.3): how the box at some
// coordinates of a tensor map is laid out in shared memory, for loads (global -> image) and
// stores (image -> global). Boxes are row-major with the innermost dimension fastest; a row takes
// a full swizzle span when it is narrower, and the swizzle XORs the 16-byte chunk index with the
// 128-byte line index of the absolute shared address.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tessel/ir/tensor_map.hpp"

namespace tessel::sim {

// Bytes of shared memory a box occupies from its first byte (rows times the row pitch).
int64_t box_footprint(const ir::TensorMapValues& map);

// Which of the bytes [begin, begin + box_footprint) the box's elements occupy (1) and which are
// row padding (0).
std::vector<uint8_t> box_element_mask(const ir::TensorMapValues& map, int64_t begin);

// The image a load writes: bytes [begin, begin + box_footprint) of shared memory, and which of
// them the box writes (the tail of a row narrower than the swizzle span keeps its old value).
struct BoxImage {
  int64_t begin = 0;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> written;  // 1 where the box writes
};

// The image of the box at `coords` (one per dimension, innermost first, signed) of `map`, for a box
// whose first byte is shared byte `begin`: elements inside the tensor read from global memory
// (checked against the simulator's allocations, reported at `loc`), elements outside it zero.
BoxImage load_box_image(const ir::TensorMapValues& map, std::span<const int64_t> coords, int64_t begin,
                        const SourceLoc& loc);

// Whether no element of the box at `coords` (innermost first) lies inside the tensor.
bool box_outside_tensor(const ir::TensorMapValues& map, std::span<const int64_t> coords);

// Writes the box whose image starts at byte `begin` of `smem` (the block's shared memory) to the
// tensor at `coords`; elements outside the tensor are not written.
void store_box_image(const ir::TensorMapValues& map, std::span<const int64_t> coords, std::span<const uint8_t> smem,
                     int64_t begin, const SourceLoc& loc);

// Calls `visit(address, bytes)` for the global memory of each element (each 16-element chunk of
// packed ones) of the box at `coords` that lies inside the tensor.
void for_each_global_element(const ir::TensorMapValues& map, std::span<const int64_t> coords,
                             const std::function<void(uint64_t address, int64_t bytes)>& visit);

// The same bytes as runs: neighbouring elements' bytes merged, `visit(address, bytes)` per run.
void for_each_global_run(const ir::TensorMapValues& map, std::span<const int64_t> coords,
                         const std::function<void(uint64_t address, int64_t bytes)>& visit);

}  // namespace tessel::sim
