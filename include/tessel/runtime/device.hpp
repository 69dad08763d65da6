// Where kernels run: an NVIDIA GPU through the driver, or the CPU simulator. Both offer the
// same memory interface, so a program switches between them by choosing a Device.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessel/dtype.hpp"
#include "tessel/error.hpp"

namespace tessel {

class Device {
 public:
  enum class Kind { Simulator, Gpu };
  static Device simulator();
  static Device gpu();
  // The GPU when a driver and a device are present, otherwise the simulator.
  static Device default_device();
  // "sim" or "gpu"; throws tessel::Error for anything else, and for "gpu" without a GPU.
  static Device named(const std::string& name);

  Kind kind() const { return kind_; }
  bool is_gpu() const { return kind_ == Kind::Gpu; }
  std::string name() const;

  // Device memory: on the simulator, host memory the simulator tracks for bounds checks.
  void* alloc(size_t bytes) const;
  void free(void* p) const;
  void upload(void* dst, const void* src, size_t bytes) const;
  void download(void* dst, const void* src, size_t bytes) const;
  void synchronize() const;

  bool operator==(const Device&) const = default;

 private:
  explicit Device(Kind k) : kind_(k) {}
  Kind kind_;
};

// A typed allocation on a device that frees itself.
template <class T> class Buffer {
 public:
  Buffer(Device d, size_t n) : device_(d), n_(n), ptr_(static_cast<T*>(d.alloc(n * sizeof(T)))) {}
  Buffer(Device d, const std::vector<T>& host) : Buffer(d, host.size()) { upload(host); }
  ~Buffer() { device_.free(ptr_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : device_(o.device_), n_(o.n_), ptr_(o.ptr_) {
    o.ptr_ = nullptr;
    o.n_ = 0;
  }

  void upload(const std::vector<T>& host) {
    if (host.size() != n_)
      throw Error(fmt::format("Buffer::upload: {} elements given for a buffer of {}", host.size(), n_));
    device_.upload(ptr_, host.data(), n_ * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    device_.download(host.data(), ptr_, n_ * sizeof(T));
    return host;
  }
  T* data() const { return ptr_; }
  size_t size() const { return n_; }
  // The elements a kernel may reach from data(): all of them. A buffer passed to a kernel is
  // checked like a one-dimensional tessel::Tensor.
  int64_t span() const { return int64_t(n_); }
  const Device& device() const { return device_; }

 private:
  Device device_;
  size_t n_;
  T* ptr_;
};

}  // namespace tessel
