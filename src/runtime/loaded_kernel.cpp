#include "tessel/runtime/loaded_kernel.hpp"

#include "tessel/ir/target_limits.hpp"

namespace tessel::runtime {

namespace {

// Blocks may use this much shared memory without opting in to more (CUDA C++ Programming
// Guide, "Shared Memory": above 48 KB a kernel must raise its dynamic shared memory limit).
constexpr int64_t kSharedBytesWithoutOptIn = 48 * 1024;

}  // namespace

std::optional<ir::Arch> native_target(const CudaDriver::DeviceInfo& gpu) {
  return ir::native_target(gpu.cc_major, gpu.cc_minor);
}

void require_runnable(ir::Arch arch, const CudaDriver::DeviceInfo& gpu, std::string_view label) {
  const std::optional<ir::Arch> native = native_target(gpu);
  // PTX of a target without the "a" suffix is compiled by the driver for any later GPU (CUDA C++
  // Programming Guide, "Application Compatibility").
  if (native == arch || (arch == ir::Arch::Sm80 && gpu.cc_major > 8)) return;
  const std::string fix = gpu.cc_major < 8
                              ? "tessel has no target for it"
                              : fmt::format("build it for {} (KernelOptions::arch, or --arch on the command line)",
                                            ir::arch_name(native.value_or(ir::Arch::Sm80)));
  throw Error(fmt::format("{} is built for {}, which runs on {}; this GPU, {}, has compute capability {}.{}: {}", label,
                          ir::arch_name(arch), ir::gpus_running(arch), gpu.name, gpu.cc_major, gpu.cc_minor, fix));
}

const void* module_image(const KernelBinary& binary, const CudaDriver::DeviceInfo& gpu, std::string_view label) {
  require_runnable(binary.arch, gpu, label);
  if (native_target(gpu) == binary.arch) return binary.cubin.data();
  TESSEL_CHECK(!binary.ptx.empty(), "{}: its sm_80 binary holds no PTX", label);
  return binary.ptx.c_str();
}

LoadedKernel::LoadedKernel(const KernelBinary& binary, const ir::KernelNode& k)
    : params_(ParamLayout::of(k, binary.debug)),
      tensor_maps_(std::make_unique<TensorMapEncoder>(k)),
      label_("kernel " + k.name) {
  auto& d = CudaDriver::get();
  d.context();
  CUmodule module = nullptr;
  const CudaDriver::DeviceInfo gpu = d.device_info();
  const void* image = module_image(binary, gpu, label_);
  const CUresult loaded = d.moduleLoadData(&module, image);
  // The driver compiles PTX of its own CUDA version or older: sm_80 code on a later GPU needs a
  // driver at least as new as the NVRTC that wrote the PTX.
  if (loaded == CUDA_ERROR_UNSUPPORTED_PTX_VERSION && image == binary.ptx.c_str())
    throw Error(
        fmt::format("{}: this GPU runs sm_80 code from its PTX, which NVRTC {} wrote and the driver (CUDA "
                    "{}.{}) is too old to compile; update the driver, or build for {}",
                    label_, nvrtc_version(), gpu.driver_version / 1000, gpu.driver_version % 1000 / 10,
                    ir::arch_name(native_target(gpu).value_or(ir::Arch::Sm80))));
  d.check(loaded, "cuModuleLoadData", label_);
  module_.reset(module);
  d.check(d.moduleGetFunction(&function_, module, binary.symbol.c_str()), "cuModuleGetFunction", label_);
  if (k.shared_bytes > kSharedBytesWithoutOptIn)
    d.check(d.funcSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(k.shared_bytes)),
            "cuFuncSetAttribute", label_);
}

void LoadedKernel::Unload::operator()(CUmodule m) const {
  if (!CudaDriver::get().hung()) CudaDriver::get().moduleUnload(m);
}

}  // namespace tessel::runtime
