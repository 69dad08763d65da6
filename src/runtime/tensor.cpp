#include "tessel/runtime/tensor.hpp"

#include <fmt/ranges.h>

namespace tessel::detail {

std::vector<int64_t> tensor_strides(const std::vector<int64_t>& shape, std::vector<int64_t> strides, SourceLoc loc) {
  for (const int64_t extent : shape)
    if (extent < 0)
      throw Error(loc, fmt::format("Tensor: the shape [{}] has a negative extent", fmt::join(shape, ", ")));
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
    return strides;
  }
  if (strides.size() != shape.size())
    throw Error(loc, fmt::format("Tensor: {} strides given for the shape [{}] of rank {}", strides.size(),
                                 fmt::join(shape, ", "), shape.size()));
  for (const int64_t stride : strides)
    if (stride < 0)
      throw Error(loc, fmt::format("Tensor: the strides [{}] have a negative one; pass the pointer to the element "
                                   "with the lowest address and non-negative strides",
                                   fmt::join(strides, ", ")));
  return strides;
}

int64_t tensor_span(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return 0;
    last += (shape[d] - 1) * strides[d];
  }
  return last + 1;
}

void check_fits_buffer(const std::vector<int64_t>& shape, int64_t span, size_t size, SourceLoc loc) {
  if (span > int64_t(size))
    throw Error(loc, fmt::format("Tensor: the shape [{}] spans {} elements, but the buffer holds {}",
                                 fmt::join(shape, ", "), span, size));
}

}  // namespace tessel::detail
