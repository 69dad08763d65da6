#include "tessel/runtime/device.hpp"

#include <cstdlib>
#include <cstring>

#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel {

namespace {

runtime::CudaDriver& driver() {
  auto& d = runtime::CudaDriver::get();
  d.context();
  return d;
}

}  // namespace

Device Device::simulator() { return Device(Kind::Simulator); }

Device Device::gpu() {
  auto& d = runtime::CudaDriver::get();
  if (!d.available()) throw Error("no GPU available: " + d.unavailable_reason());
  return Device(Kind::Gpu);
}

Device Device::default_device() {
  return runtime::CudaDriver::get().available() ? Device(Kind::Gpu) : Device(Kind::Simulator);
}

Device Device::named(const std::string& name) {
  if (name == "sim") return simulator();
  if (name == "gpu") return gpu();
  throw Error(fmt::format("unknown device '{}'; use 'sim' or 'gpu'", name));
}

std::string Device::name() const {
  if (kind_ == Kind::Simulator) return "tessel CPU simulator";
  return runtime::CudaDriver::get().device_info().name;
}

void* Device::alloc(size_t bytes) const {
  const size_t n = bytes == 0 ? 1 : bytes;
  if (kind_ == Kind::Simulator) {
    void* p = std::aligned_alloc(256, (n + 255) / 256 * 256);
    if (!p) throw Error(fmt::format("simulator: out of host memory allocating {} bytes", bytes));
    sim::register_allocation(p, bytes);
    return p;
  }
  CUdeviceptr p = 0;
  auto& d = driver();
  d.check(d.memAlloc(&p, n), "cuMemAlloc", fmt::format("{} bytes", bytes));
  return reinterpret_cast<void*>(p);
}

void Device::free(void* p) const {
  if (!p) return;
  if (kind_ == Kind::Simulator) {
    sim::unregister_allocation(p);
    std::free(p);
    return;
  }
  auto& d = runtime::CudaDriver::get();
  if (!d.hung()) d.memFree(reinterpret_cast<CUdeviceptr>(p));  // errors while freeing are not actionable
}

void Device::upload(void* dst, const void* src, size_t bytes) const {
  if (kind_ == Kind::Simulator) {
    sim::host_synchronized();
    std::memcpy(dst, src, bytes);
    return;
  }
  auto& d = driver();
  d.check(d.memcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
}

void Device::download(void* dst, const void* src, size_t bytes) const {
  if (kind_ == Kind::Simulator) {
    sim::host_synchronized();
    std::memcpy(dst, src, bytes);
    return;
  }
  auto& d = driver();
  d.check(d.memcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
}

void Device::synchronize() const {
  if (kind_ == Kind::Simulator) {
    sim::host_synchronized();
    return;
  }
  auto& d = driver();
  if (d.hung())
    throw Error(
        "cannot synchronize with the GPU: it runs a kernel that will never finish (a tuning run past its time "
        "limit), and only the process's end stops it");
  d.check(d.ctxSynchronize(), "cuCtxSynchronize");
}

}  // namespace tessel
