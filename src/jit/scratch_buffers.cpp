#include "scratch_buffers.hpp"

#include <algorithm>
#include <cstring>

#include "tessel/ir/derived_params.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::detail {

ScratchBuffers::~ScratchBuffers() {
  for (Buffer& b : buffers_) release(b);
}

void ScratchBuffers::release(Buffer& b) {
  if (!b.address || (device_.is_gpu() && runtime::CudaDriver::get().hung())) return;
  // A launch in flight may still use it.
  if (device_.is_gpu()) runtime::CudaDriver::get().ctxSynchronize();
  device_.free(b.address);
  b.address = nullptr;
}

ScratchBuffers::Buffer& ScratchBuffers::buffer(size_t ordinal, bool zeroed, size_t bytes) {
  auto found = std::find_if(buffers_.begin(), buffers_.end(),
                            [&](const Buffer& b) { return b.ordinal == ordinal && b.zeroed == zeroed; });
  Buffer& b = found != buffers_.end() ? *found : buffers_.emplace_back(Buffer{ordinal, zeroed, 0, nullptr});
  if (b.address && b.bytes >= bytes) return b;
  release(b);
  b.bytes = bytes;
  b.address = device_.alloc(bytes);  // 256-byte aligned on both devices
  if (!device_.is_gpu()) {
    std::memset(b.address, 0, b.bytes);
  } else if (zeroed) {
    auto& d = runtime::CudaDriver::get();
    d.check(d.memsetD8(CUdeviceptr(b.address), 0, std::max<size_t>(b.bytes, 1)), "cuMemsetD8",
            "a zeroed global_scratch buffer");
    d.check(d.ctxSynchronize(), "cuCtxSynchronize", "a zeroed global_scratch buffer");
  }
  return b;
}

void ScratchBuffers::provide(const ir::KernelNode& k, std::span<ir::Scalar> values, int multiprocessors) {
  const size_t call = k.call_params();
  size_t ordinal = 0;
  for (size_t i = 0; i < k.derived_params.size(); ++i) {
    const ir::DerivedParam& p = k.derived_params[i];
    if (!p.is_scratch()) continue;
    const auto bytes = size_t(ir::scratch_bytes(k, p, values, multiprocessors));
    const bool zeroed = p.value == ir::DerivedValue::ZeroedScratch;
    Buffer& b = buffer(ordinal++, zeroed, bytes);
    if (!device_.is_gpu() && !zeroed) std::memset(b.address, 0xFF, b.bytes);
    values[call + i].i = int64_t(reinterpret_cast<uintptr_t>(b.address));
  }
}

}  // namespace tessel::detail
