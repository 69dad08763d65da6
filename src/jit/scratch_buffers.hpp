// The global scratch buffers of one Kernel object (global_scratch): a set for each stream it launches
// on, so that launches on two streams, which may run at once, never share one; allocated at the
// first launch on the stream that needs them, grown when a launch needs more, and kept for the
// object's life, so that a steady-state launch allocates nothing.
#pragma once

#include <cstddef>
#include <span>
#include <thread>
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

  // Writes the address of each scratch buffer of `k` for a launch on `stream` into its parameter's
  // value, `values` holding the call's values first. On the GPU a zeroed buffer is zeroed when it
  // is allocated and the kernel keeps it so; on the simulator an undefined one is filled with 0xFF
  // bytes (NaN, -1) at every launch, so that reading what the launch did not write shows. A launch
  // captured in a CUDA graph may allocate (the graph then zeroes a zeroed buffer before each
  // replay), and a buffer that a graph holds is never freed before the object goes.
  void provide(const ir::KernelNode& k, std::span<ir::Scalar> values, int multiprocessors, void* stream);

 private:
  // A stream as the GPU runs it: the per-thread default stream is one for each host thread.
  struct Stream {
    void* handle = nullptr;
    std::thread::id thread;
    bool operator==(const Stream&) const = default;
  };
  struct Buffer {
    Stream stream;
    size_t ordinal = 0;  // among the kernel's scratch parameters
    bool zeroed = false;
    size_t bytes = 0;
    void* address = nullptr;
    bool in_graph = false;         // a captured launch used it
    bool zero_before_use = false;  // zeroed, made during a capture, and not yet zeroed outside it
  };
  Buffer& buffer(const Stream& stream, size_t ordinal, bool zeroed, size_t bytes, bool capturing);
  void allocate(Buffer& b, void* stream, bool capturing);
  void zero_on(const Buffer& b, void* stream) const;
  void wait_for_launches() const;
  void release(Buffer& b);

  Device device_;
  std::vector<Buffer> buffers_;
  std::vector<void*> held_by_graphs_;  // outgrown buffers that a captured graph may still use
};

}  // namespace tessel::detail
