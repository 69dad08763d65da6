// The shared-memory image of a TMA box: one walk over the box's elements that pairs each with its
// global address (when inside the tensor) and its swizzled shared byte; loads and stores copy along it.
#include "tessel/sim/tma_box.hpp"

#include <cstring>

#include "machine.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel::sim {

namespace {

int swizzle_bits_of(int swizzle_bytes) {
  return swizzle_bytes == 0 ? 0 : swizzle_bytes == 32 ? 1 : swizzle_bytes == 64 ? 2 : 3;
}

// What one step along a row moves: `count` elements, `global_bytes` of global memory into
// `shared_bytes` of the image; packed elements move 16 to a 16-byte chunk, the rest of it zeros.
struct Step {
  int64_t count, global_bytes, shared_bytes;
};

Step step_of(const ir::TensorMapValues& map) {
  constexpr int64_t chunk = ir::kTmaPackedChunk;
  if (is_packed(map.dtype)) return {chunk, chunk * dtype_bits(map.dtype) / 8, chunk};
  const int64_t bytes = dtype_bytes(map.dtype);
  return {1, bytes, bytes};
}

int64_t row_pitch(const ir::TensorMapValues& map) {
  const int64_t row_bytes = int64_t(map.box[0]) * ir::tma_shared_element_bytes(map.dtype);
  return map.swizzle_bytes > 0 && row_bytes < map.swizzle_bytes ? map.swizzle_bytes : row_bytes;
}

// Calls `visit(shared_byte, inside, global_address)` for every step of the box (step_of), in image
// order; the address means nothing for elements outside the tensor.
template <class Visit>
void for_each_element(const ir::TensorMapValues& map, std::span<const int64_t> coords, int64_t begin, Visit&& visit) {
  TESSEL_CHECK(int(coords.size()) == map.rank, "a box of rank {} at {} coordinates", map.rank, coords.size());
  const Step step = step_of(map);
  const int64_t bits_per_element = dtype_bits(map.dtype), pitch = row_pitch(map);
  const int bits = swizzle_bits_of(map.swizzle_bytes);
  int64_t rows = 1;
  for (int d = 1; d < map.rank; ++d) rows *= map.box[size_t(d)];
  for (int64_t row = 0; row < rows; ++row) {
    // The row's coordinates in dimensions 1.., and whether they are inside the tensor.
    int64_t rest = row, row_address = int64_t(map.address);
    bool row_inside = true;
    for (int d = 1; d < map.rank; ++d) {
      const int64_t g = coords[size_t(d)] + rest % map.box[size_t(d)];
      rest /= map.box[size_t(d)];
      row_inside &= g >= 0 && g < int64_t(map.extents[size_t(d)]);
      row_address += g * map.strides[size_t(d)];
    }
    for (int64_t x = 0; x < map.box[0]; x += step.count) {
      const int64_t g = coords[0] + x;
      const bool inside = row_inside && g >= 0 && g < int64_t(map.extents[0]);
      const int64_t byte = swizzle_byte(begin + row * pitch + x / step.count * step.shared_bytes, bits);
      visit(byte, inside, uint64_t(row_address + g * bits_per_element / 8));
    }
  }
}

}  // namespace

int64_t box_footprint(const ir::TensorMapValues& map) {
  int64_t rows = 1;
  for (int d = 1; d < map.rank; ++d) rows *= map.box[size_t(d)];
  return rows * row_pitch(map);
}

bool box_outside_tensor(const ir::TensorMapValues& map, std::span<const int64_t> coords) {
  for (int d = 0; d < map.rank; ++d) {
    const int64_t first = coords[size_t(d)], end = first + int64_t(map.box[size_t(d)]);
    if (end <= 0 || first >= int64_t(map.extents[size_t(d)])) return true;
  }
  return false;
}

std::vector<uint8_t> box_element_mask(const ir::TensorMapValues& map, int64_t begin) {
  const size_t element = size_t(step_of(map).shared_bytes);
  const int64_t rank = map.rank;
  std::vector<uint8_t> mask(size_t(box_footprint(map)), 0);
  const std::array<int64_t, ir::kTensorMapMaxRank> origin{};
  for_each_element(map, std::span(origin).first(size_t(rank)), begin,
                   [&](int64_t byte, bool, uint64_t) { std::memset(&mask[size_t(byte - begin)], 1, element); });
  return mask;
}

BoxImage load_box_image(const ir::TensorMapValues& map, std::span<const int64_t> coords, int64_t begin,
                        const SourceLoc& loc) {
  const Step step = step_of(map);
  BoxImage image{begin, std::vector<uint8_t>(size_t(box_footprint(map)), 0),
                 std::vector<uint8_t>(size_t(box_footprint(map)), 0)};
  for_each_element(map, coords, begin, [&](int64_t byte, bool inside, uint64_t address) {
    const size_t at = size_t(byte - begin);
    TESSEL_CHECK(at + size_t(step.shared_bytes) <= image.bytes.size(),
                 "box element at shared byte {} outside its footprint", byte);
    if (inside) {
      check_global_access(address, size_t(step.global_bytes), false, loc);
      std::memcpy(&image.bytes[at], reinterpret_cast<const void*>(address), size_t(step.global_bytes));
    }
    std::memset(&image.written[at], 1, size_t(step.shared_bytes));
  });
  return image;
}

void store_box_image(const ir::TensorMapValues& map, std::span<const int64_t> coords, std::span<const uint8_t> smem,
                     int64_t begin, const SourceLoc& loc) {
  const Step step = step_of(map);
  for_each_element(map, coords, begin, [&](int64_t byte, bool inside, uint64_t address) {
    TESSEL_CHECK(byte >= 0 && size_t(byte) + size_t(step.shared_bytes) <= smem.size(),
                 "box element at shared byte {} of {}", byte, smem.size());
    if (!inside) return;
    check_global_access(address, size_t(step.global_bytes), true, loc);
    std::memcpy(reinterpret_cast<void*>(address), &smem[size_t(byte)], size_t(step.global_bytes));
  });
}

void for_each_global_element(const ir::TensorMapValues& map, std::span<const int64_t> coords,
                             const std::function<void(uint64_t address, int64_t bytes)>& visit) {
  const int64_t bytes = step_of(map).global_bytes;
  for_each_element(map, coords, 0, [&](int64_t, bool inside, uint64_t address) {
    if (inside) visit(address, bytes);
  });
}

void for_each_global_run(const ir::TensorMapValues& map, std::span<const int64_t> coords,
                         const std::function<void(uint64_t address, int64_t bytes)>& visit) {
  uint64_t start = 0;
  int64_t n = 0;
  for_each_global_element(map, coords, [&](uint64_t address, int64_t bytes) {
    if (n > 0 && start + uint64_t(n) == address) {
      n += bytes;
      return;
    }
    if (n > 0) visit(start, n);
    start = address;
    n = bytes;
  });
  if (n > 0) visit(start, n);
}

}  // namespace tessel::sim
