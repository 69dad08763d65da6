#include "tessel/runtime/loaded_kernel.hpp"

namespace tessel::runtime {

namespace {

// Blocks may use this much shared memory without opting in to more (CUDA C++ Programming
// Guide, "Shared Memory": above 48 KB a kernel must raise its dynamic shared memory limit).
constexpr int64_t kSharedBytesWithoutOptIn = 48 * 1024;

}  // namespace

LoadedKernel::LoadedKernel(const KernelBinary& binary, const ir::KernelNode& k)
    : params_(ParamLayout::of(k, binary.debug)),
      tensor_maps_(std::make_unique<TensorMapEncoder>(k)),
      label_("kernel " + k.name) {
  auto& d = CudaDriver::get();
  d.context();
  CUmodule module = nullptr;
  d.check(d.moduleLoadData(&module, binary.cubin.data()), "cuModuleLoadData", label_);
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
