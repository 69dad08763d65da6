// The global scratch buffers of one Kernel object (global_scratch): allocated at the first launch
// that needs them, grown when a launch needs more, and kept for the object's life, so that a
// steady-state launch allocates nothing.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "tessel/ir/evaluate.hpp"
#include "tessel/runtime/device.hpp"

namespace tessel::detail {

class ScratchBuffers {
 public:
  explicit ScratchBuffers(Device device) : device_(device) {}
  ScratchBuffers(const ScratchBuffers&) = delete;
  ScratchBuffers& operator=(const ScratchBuffers&) = delete;
  ~ScratchBuffers();

  // Writes the address of each scratch buffer of `k` into its parameter's value, `values` holding
  // the call's values first. On the GPU a zeroed buffer is zeroed when it is allocated and the
  // kernel keeps it so; on the simulator an undefined one is filled with 0xFF bytes (NaN, -1) at
  // every launch, so that reading what the launch did not write shows.
  void provide(const ir::KernelNode& k, std::span<ir::Scalar> values, int multiprocessors);

 private:
  struct Buffer {
    size_t ordinal = 0;  // among the kernel's scratch parameters
    bool zeroed = false;
    size_t bytes = 0;
    void* address = nullptr;
  };
  Buffer& buffer(size_t ordinal, bool zeroed, size_t bytes);
  void release(Buffer& b);

  Device device_;
  std::vector<Buffer> buffers_;
};

}  // namespace tessel::detail
