// tessel::Tensor<T>: device memory with a shape and strides. It owns nothing (the memory belongs to
// a Buffer, or to whoever handed over the pointer) and is passed to a kernel wherever a Ptr<T> is
// taken. The launch then checks that every global_view the kernel builds over that parameter
// stays inside the tensor, on the GPU and on the simulator, before anything runs.
#pragma once

#include <cstdint>
#include <source_location>
#include <utility>
#include <vector>

#include "tessel/runtime/device.hpp"

namespace tessel {

namespace detail {

// The strides of a tensor of `shape`: `strides` checked against it, or row-major when empty.
// Throws tessel::Error at `loc` for a negative extent or stride, or a rank that differs.
std::vector<int64_t> tensor_strides(const std::vector<int64_t>& shape, std::vector<int64_t> strides, SourceLoc loc);
// The elements from a tensor's first to one past its last: 0 when it is empty.
int64_t tensor_span(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);
// Throws tessel::Error at `loc` unless `span` elements fit in a buffer of `size`.
void check_fits_buffer(const std::vector<int64_t>& shape, int64_t span, size_t size, SourceLoc loc);

}  // namespace detail

template <class T> class Tensor {
 public:
  using element_type = T;

  // `data` on `device`, row-major unless `strides` (in elements) are given.
  Tensor(Device device, T* data, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
         std::source_location loc = std::source_location::current())
      : device_(device),
        data_(data),
        shape_(std::move(shape)),
        strides_(detail::tensor_strides(shape_, std::move(strides), SourceLoc::from(loc))),
        span_(detail::tensor_span(shape_, strides_)) {}
  // The memory of `buffer`, which must hold the whole tensor.
  Tensor(const Buffer<T>& buffer, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
         std::source_location loc = std::source_location::current())
      : Tensor(buffer.device(), buffer.data(), std::move(shape), std::move(strides), loc) {
    detail::check_fits_buffer(shape_, span_, buffer.size(), SourceLoc::from(loc));
  }

  T* data() const { return data_; }
  const Device& device() const { return device_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int rank() const { return int(shape_.size()); }
  // The elements a kernel may reach from data(): up to and including the last element.
  int64_t span() const { return span_; }

 private:
  Device device_;
  T* data_;
  std::vector<int64_t> shape_, strides_;
  int64_t span_;
};

}  // namespace tessel
