#include "scratch_buffers.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "tessel/ir/derived_params.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::detail {

namespace {

bool is_capturing(void* stream) {
  auto& d = runtime::CudaDriver::get();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  d.check(d.streamIsCapturing(static_cast<CUstream>(stream), &status), "cuStreamIsCapturing",
          "a launch with a global_scratch");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Allows, on this thread, the calls that a capture would otherwise refuse (an allocation, which
// the graph does not replay: the buffer belongs to the Kernel object), as long as it lives.
class RelaxedCapture {
 public:
  RelaxedCapture() { exchange(); }
  ~RelaxedCapture() { exchange(); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  void exchange() {
    auto& d = runtime::CudaDriver::get();
    d.check(d.threadExchangeStreamCaptureMode(&mode_), "cuThreadExchangeStreamCaptureMode",
            "a global_scratch buffer allocated during a CUDA graph capture");
  }
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

}  // namespace

ScratchBuffers::~ScratchBuffers() {
  std::vector<void*> addresses = std::move(held_by_graphs_);
  for (const Buffer& b : buffers_)
    if (b.address) addresses.push_back(b.address);
  if (addresses.empty()) return;
  wait_for_launches();
  for (void* address : addresses) device_.free(address);
}

void ScratchBuffers::wait_for_launches() const {
  if (device_.is_gpu() && !runtime::CudaDriver::get().hung()) runtime::CudaDriver::get().ctxSynchronize();
}

void ScratchBuffers::release(Buffer& b) {
  wait_for_launches();
  device_.free(b.address);
  b.address = nullptr;
}

void ScratchBuffers::zero_on(const Buffer& b, void* stream) const {
  auto& d = runtime::CudaDriver::get();
  d.check(d.memsetD8Async(CUdeviceptr(b.address), 0, std::max<size_t>(b.bytes, 1), static_cast<CUstream>(stream)),
          "cuMemsetD8Async", "a zeroed global_scratch buffer");
}

void ScratchBuffers::allocate(Buffer& b, void* stream, bool capturing) {
  if (!device_.is_gpu()) {
    b.address = device_.alloc(b.bytes);  // 256-byte aligned on both devices
    std::memset(b.address, 0, b.bytes);
    return;
  }
  std::optional<RelaxedCapture> relaxed;
  if (capturing) relaxed.emplace();
  b.address = device_.alloc(b.bytes);
  relaxed.reset();
  // Zeroed in the stream's order, before the launch; in a graph, before each replay.
  if (b.zeroed) zero_on(b, stream);
  b.zero_before_use = b.zeroed && capturing;  // for a launch outside the graph before any replay
}

ScratchBuffers::Buffer& ScratchBuffers::buffer(const Stream& stream, size_t ordinal, bool zeroed, size_t bytes,
                                               bool capturing) {
  auto found = std::find_if(buffers_.begin(), buffers_.end(), [&](const Buffer& b) {
    return b.stream == stream && b.ordinal == ordinal && b.zeroed == zeroed;
  });
  Buffer& b = found != buffers_.end() ? *found : buffers_.emplace_back(Buffer{stream, ordinal, zeroed});
  if (!b.address || b.bytes < bytes) {
    if (b.address && (b.in_graph || capturing)) {
      held_by_graphs_.push_back(b.address);
    } else if (b.address) {
      release(b);
    }
    b.bytes = bytes;
    b.in_graph = false;
    allocate(b, stream.handle, capturing);
  } else if (b.zero_before_use && !capturing) {
    zero_on(b, stream.handle);
    b.zero_before_use = false;
  }
  b.in_graph = b.in_graph || capturing;
  return b;
}

void ScratchBuffers::provide(const ir::KernelNode& k, std::span<ir::Scalar> values, int multiprocessors, void* stream) {
  const size_t call = k.call_params();
  const Stream on{stream, stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : std::thread::id()};
  bool capturing = false;
  size_t ordinal = 0;
  for (size_t i = 0; i < k.derived_params.size(); ++i) {
    const ir::DerivedParam& p = k.derived_params[i];
    if (!p.is_scratch()) continue;
    if (ordinal == 0 && device_.is_gpu()) capturing = is_capturing(stream);
    const auto bytes = size_t(ir::scratch_bytes(k, p, values, multiprocessors));
    const bool zeroed = p.value == ir::DerivedValue::ZeroedScratch;
    Buffer& b = buffer(on, ordinal++, zeroed, bytes, capturing);
    if (!device_.is_gpu() && !zeroed) std::memset(b.address, 0xFF, b.bytes);
    values[call + i].i = int64_t(reinterpret_cast<uintptr_t>(b.address));
  }
}

}  // namespace tessel::detail
