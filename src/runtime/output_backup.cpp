#include "tessel/runtime/output_backup.hpp"

#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::runtime {

OutputBackup::OutputBackup(std::span<const void* const> pointers) {
  auto& d = CudaDriver::get();
  for (const void* p : pointers) {
    if (!p) continue;
    CUdeviceptr base = 0;
    size_t bytes = 0;
    d.check(d.memGetAddressRange(&base, &bytes, CUdeviceptr(p)), "cuMemGetAddressRange",
            "saving a kernel argument before tuning");
    bool seen = false;
    for (const Saved& s : saved_) seen = seen || s.base == base;
    if (seen) continue;
    CUdeviceptr copy = 0;
    d.check(d.memAlloc(&copy, bytes), "cuMemAlloc", "saving a kernel argument before tuning");
    saved_.push_back({base, copy, bytes});
    d.check(d.memcpyDtoD(copy, base, bytes), "cuMemcpyDtoD", "saving a kernel argument before tuning");
  }
}

OutputBackup::~OutputBackup() {
  auto& d = CudaDriver::get();
  if (d.hung()) return;
  for (const Saved& s : saved_) d.memFree(s.copy);
}

void OutputBackup::restore() const {
  auto& d = CudaDriver::get();
  d.check(d.ctxSynchronize(), "cuCtxSynchronize", "the timing runs of tuning");
  for (const Saved& s : saved_)
    d.check(d.memcpyDtoD(s.base, s.copy, s.bytes), "cuMemcpyDtoD", "restoring a kernel argument after tuning");
}

}  // namespace tessel::runtime
