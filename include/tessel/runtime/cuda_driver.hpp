// The CUDA driver API, loaded at run time. libcuda is opened with dlopen rather than linked so
// that tessel builds, compiles kernels and simulates them on machines without an NVIDIA driver;
// only running on a GPU needs one.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include <cuda.h>  // types, enums and declarations only; libcuda is never linked

#include "tessel/error.hpp"

namespace tessel::runtime {

// A CUDA driver call that failed, with the driver's result.
class CudaError : public Error {
 public:
  CudaError(CUresult result, const std::string& message) : Error(message), result_(result) {}
  CUresult result() const { return result_; }
  // Whether the process's CUDA context can run nothing more: a fault in a kernel (the driver's
  // sticky errors, which every later call returns too), or work that never finished.
  bool context_lost() const;

 private:
  CUresult result_;
};

class CudaDriver {
 public:
  // The process-wide driver, loaded from libcuda.so.1 on first use. Thread-safe. A missing
  // driver or device does not throw: it makes available() false and is explained by
  // unavailable_reason().
  static CudaDriver& get();

  // Loads `library` (a file name for dlopen's search or a path). get() is what tessel uses;
  // this exists so that tests can load other builds, such as the toolkit's stub libcuda.
  explicit CudaDriver(const std::string& library);
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  // True when the library loaded, exported every entry point below, cuInit succeeded and there is
  // at least one device.
  bool available() const { return unavailable_reason_.empty(); }
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // Throws CudaError("CUDA driver call <call> failed[ for <for_what>]: <NAME>: <description>")
  // unless `result` is CUDA_SUCCESS. `call` is the API name as written in code, e.g. "cuMemAlloc".
  void check(CUresult result, const char* call, std::string_view for_what = {}) const;
  // "<NAME>: <description>" for a CUresult, or its number when the driver cannot describe it.
  std::string describe(CUresult result) const;

  // The primary context of device 0, retained on first use and made current on the calling thread.
  // Throws tessel::Error when the driver is unavailable.
  CUcontext context();

  // The GPU runs work that will never finish (a timed run past its limit: tuning/gpu_timer.hpp). No
  // call can end it short of the process's end, and every call that waits for it, as cuMemFree,
  // cuModuleUnload and cuCtxSynchronize do, would wait forever: once hung(), cleanup that would
  // make such a call skips it and leaves what it would free to the process's end.
  void mark_hung() { hung_ = true; }
  bool hung() const { return hung_; }

  struct DeviceInfo {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t total_memory = 0;
    int max_shared_per_block_optin = 0;  // bytes of shared memory a block may opt in to
    int l2_bytes = 0;
    int driver_version = 0;  // as cuDriverGetVersion reports it, e.g. 13000
  };
  // Describes device 0. Throws tessel::Error when the driver is unavailable.
  DeviceInfo device_info() const;

  // Entry points, named after the cuda.h function without its "cu" prefix. Each has exactly the
  // type of cuda.h's declaration, which for many names is a versioned symbol (cuMemAlloc is
  // cuMemAlloc_v2); the matching symbol is what gets resolved. Null unless the library loaded.
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuGetErrorString) getErrorString = nullptr;

  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGetName) deviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDeviceTotalMem) deviceTotalMem = nullptr;

  decltype(&::cuDevicePrimaryCtxRetain) devicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) devicePrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuCtxPushCurrent) ctxPushCurrent = nullptr;
  decltype(&::cuCtxPopCurrent) ctxPopCurrent = nullptr;
  decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;

  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&::cuFuncGetAttribute) funcGetAttribute = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuLaunchKernelEx) launchKernelEx = nullptr;              // launches with clusters
  decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled = nullptr;  // TMA tensor maps

  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) memcpyDtoH = nullptr;
  decltype(&::cuMemcpyDtoD) memcpyDtoD = nullptr;
  decltype(&::cuMemsetD8) memsetD8 = nullptr;
  decltype(&::cuMemsetD32) memsetD32 = nullptr;
  decltype(&::cuMemsetD8Async) memsetD8Async = nullptr;
  decltype(&::cuMemGetAddressRange) memGetAddressRange = nullptr;

  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy) streamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuStreamIsCapturing) streamIsCapturing = nullptr;
  decltype(&::cuThreadExchangeStreamCaptureMode) threadExchangeStreamCaptureMode = nullptr;

  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuEventQuery) eventQuery = nullptr;
  decltype(&::cuEventElapsedTime) eventElapsedTime = nullptr;
  decltype(&::cuEventDestroy) eventDestroy = nullptr;

 private:
  // Opens the library and resolves the entry points; returns why the driver is unusable, or "".
  std::string load(const std::string& library);
  void require_available(std::string_view action) const;

  void* library_ = nullptr;
  std::string unavailable_reason_;
  CUdevice device_ = 0;
  std::mutex context_mutex_;
  CUcontext context_ = nullptr;
  std::atomic<bool> hung_ = false;
};

}  // namespace tessel::runtime
