// The GPU half of a kernel's timeline (docs/debugging.md, "A timeline"): while TESSEL_TRACE names
// a file, each GPU launch of a kernel with trace_region marks gets a Kernel object's timeline
// buffer, and after it the Chrome trace of its records is written there. Otherwise the marks get
// a null buffer and record nothing.
#pragma once

#include <span>
#include <string>

#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/ir.hpp"
#include "tessel/runtime/device.hpp"

namespace tessel::detail {

class GpuTimeline {
 public:
  explicit GpuTimeline(Device device) : device_(device) {}
  GpuTimeline(const GpuTimeline&) = delete;
  GpuTimeline& operator=(const GpuTimeline&) = delete;
  ~GpuTimeline();

  // Fills `k`'s timeline parameter, if it has one: the buffer, its count zeroed, when a trace is
  // asked for on the GPU, else null. Returns whether the launch records.
  bool provide(const ir::KernelNode& k, std::span<ir::Scalar> values);
  // After a launch that records: waits for it on `stream`, reads the records and writes the trace.
  void write(const ir::KernelNode& k, void* stream) const;

 private:
  Device device_;
  void* buffer_ = nullptr;
};

}  // namespace tessel::detail
