#include "tessel/runtime/cuda_driver.hpp"

#include <type_traits>
#include <vector>

#include <dlfcn.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessel/error.hpp"

// cuda.h #defines many API names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2,
// cuEventElapsedTime -> cuEventElapsedTime_v2 in CUDA 13). `api` is macro-expanded before it is
// stringized, so the symbol looked up is exactly the one whose declaration gave the member its
// type: the two cannot disagree, whatever the toolkit version.
#define TESSEL_STRINGIZE(x) #x
#define TESSEL_SYMBOL_NAME(api) TESSEL_STRINGIZE(api)
#define TESSEL_BIND(member, api) bind<decltype(&::api)>(library_, member, TESSEL_SYMBOL_NAME(api), missing)

namespace tessel::runtime {
namespace {

// Resolves `symbol` into `slot`, or records it as missing. F is given explicitly (see
// TESSEL_BIND), so binding a member to an entry point of another type does not compile.
template <class F>
void bind(void* library, std::type_identity_t<F>& slot, const char* symbol, std::vector<std::string>& missing) {
  slot = reinterpret_cast<F>(::dlsym(library, symbol));
  if (!slot) missing.emplace_back(symbol);
}

}  // namespace

CudaDriver& CudaDriver::get() {
  // Never destroyed: at exit, other static objects may still free device memory or unload
  // modules, which must find the driver loaded and the context alive.
  static CudaDriver* const driver = new CudaDriver("libcuda.so.1");
  return *driver;
}

// load() runs in the body, once every member has its initial value, because it assigns many of them.
CudaDriver::CudaDriver(const std::string& library) { unavailable_reason_ = load(library); }

CudaDriver::~CudaDriver() {
  if (context_) devicePrimaryCtxRelease(device_);
  if (library_) ::dlclose(library_);
}

std::string CudaDriver::load(const std::string& library) {
  library_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) return fmt::format("{} not found (no NVIDIA driver on this machine): {}", library, ::dlerror());

  std::vector<std::string> missing;
  TESSEL_BIND(init, cuInit);
  TESSEL_BIND(driverGetVersion, cuDriverGetVersion);
  TESSEL_BIND(getErrorName, cuGetErrorName);
  TESSEL_BIND(getErrorString, cuGetErrorString);
  TESSEL_BIND(deviceGet, cuDeviceGet);
  TESSEL_BIND(deviceGetCount, cuDeviceGetCount);
  TESSEL_BIND(deviceGetName, cuDeviceGetName);
  TESSEL_BIND(deviceGetAttribute, cuDeviceGetAttribute);
  TESSEL_BIND(deviceTotalMem, cuDeviceTotalMem);
  TESSEL_BIND(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
  TESSEL_BIND(devicePrimaryCtxRelease, cuDevicePrimaryCtxRelease);
  TESSEL_BIND(ctxSetCurrent, cuCtxSetCurrent);
  TESSEL_BIND(ctxPushCurrent, cuCtxPushCurrent);
  TESSEL_BIND(ctxPopCurrent, cuCtxPopCurrent);
  TESSEL_BIND(ctxSynchronize, cuCtxSynchronize);
  TESSEL_BIND(moduleLoadData, cuModuleLoadData);
  TESSEL_BIND(moduleUnload, cuModuleUnload);
  TESSEL_BIND(moduleGetFunction, cuModuleGetFunction);
  TESSEL_BIND(funcSetAttribute, cuFuncSetAttribute);
  TESSEL_BIND(funcGetAttribute, cuFuncGetAttribute);
  TESSEL_BIND(launchKernel, cuLaunchKernel);
  TESSEL_BIND(launchKernelEx, cuLaunchKernelEx);
  TESSEL_BIND(tensorMapEncodeTiled, cuTensorMapEncodeTiled);
  TESSEL_BIND(memAlloc, cuMemAlloc);
  TESSEL_BIND(memFree, cuMemFree);
  TESSEL_BIND(memcpyHtoD, cuMemcpyHtoD);
  TESSEL_BIND(memcpyDtoH, cuMemcpyDtoH);
  TESSEL_BIND(memcpyDtoD, cuMemcpyDtoD);
  TESSEL_BIND(memsetD8, cuMemsetD8);
  TESSEL_BIND(memsetD32, cuMemsetD32);
  TESSEL_BIND(memsetD8Async, cuMemsetD8Async);
  TESSEL_BIND(memGetAddressRange, cuMemGetAddressRange);
  TESSEL_BIND(streamCreate, cuStreamCreate);
  TESSEL_BIND(streamDestroy, cuStreamDestroy);
  TESSEL_BIND(streamSynchronize, cuStreamSynchronize);
  TESSEL_BIND(streamIsCapturing, cuStreamIsCapturing);
  TESSEL_BIND(threadExchangeStreamCaptureMode, cuThreadExchangeStreamCaptureMode);
  TESSEL_BIND(eventCreate, cuEventCreate);
  TESSEL_BIND(eventRecord, cuEventRecord);
  TESSEL_BIND(eventQuery, cuEventQuery);
  TESSEL_BIND(eventElapsedTime, cuEventElapsedTime);
  TESSEL_BIND(eventDestroy, cuEventDestroy);
  if (!missing.empty())
    return fmt::format(
        "{} does not export {}: the NVIDIA driver is older than CUDA {}.{}, which tessel was built "
        "with; update the driver",
        library, fmt::join(missing, ", "), CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);

  if (CUresult r = init(0); r != CUDA_SUCCESS) return fmt::format("cuInit failed: {}", describe(r));
  int count = 0;
  if (CUresult r = deviceGetCount(&count); r != CUDA_SUCCESS)
    return fmt::format("cuDeviceGetCount failed: {}", describe(r));
  if (count == 0) return "the NVIDIA driver found no CUDA device";
  if (CUresult r = deviceGet(&device_, 0); r != CUDA_SUCCESS) return fmt::format("cuDeviceGet failed: {}", describe(r));
  return {};
}

std::string CudaDriver::describe(CUresult result) const {
  const char* name = nullptr;
  const char* description = nullptr;
  if (getErrorName && getErrorName(result, &name) == CUDA_SUCCESS && getErrorString &&
      getErrorString(result, &description) == CUDA_SUCCESS && name && description)
    return fmt::format("{}: {}", name, description);
  return fmt::format("CUresult {}", int(result));
}

void CudaDriver::check(CUresult result, const char* call, std::string_view for_what) const {
  if (result == CUDA_SUCCESS) return;
  throw CudaError(result, fmt::format("CUDA driver call {} failed{}{}: {}", call, for_what.empty() ? "" : " for ",
                                      for_what, describe(result)));
}

bool CudaError::context_lost() const {
  // The errors that cuda.h says leave the process in an inconsistent state, every later CUDA call
  // failing alike; a launch timeout is a run that did not finish.
  switch (result_) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK: return true;
    default: return false;
  }
}

void CudaDriver::require_available(std::string_view action) const {
  if (!available()) throw Error(fmt::format("cannot {}: {}", action, unavailable_reason_));
}

CUcontext CudaDriver::context() {
  require_available("create a CUDA context");
  std::lock_guard lock(context_mutex_);
  if (!context_) check(devicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  check(ctxSetCurrent(context_), "cuCtxSetCurrent");
  return context_;
}

CudaDriver::DeviceInfo CudaDriver::device_info() const {
  require_available("query the CUDA device");
  DeviceInfo info;
  char name[256] = {};
  check(deviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  info.name = name;
  auto attribute = [&](CUdevice_attribute which, std::string_view what) {
    int value = 0;
    check(deviceGetAttribute(&value, which, device_), "cuDeviceGetAttribute", what);
    return value;
  };
  info.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "the compute capability");
  info.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "the compute capability");
  info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "the SM count");
  info.max_shared_per_block_optin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "the opt-in shared memory size");
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "the L2 cache size");
  check(deviceTotalMem(&info.total_memory, device_), "cuDeviceTotalMem");
  check(driverGetVersion(&info.driver_version), "cuDriverGetVersion");
  return info;
}

}  // namespace tessel::runtime
