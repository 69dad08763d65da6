// A compiled kernel loaded into the GPU's context: its module, its function, set up for its
// shared memory, and the description of its parameters that every launch fills.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tessel/ir/ir.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/kernel_compiler.hpp"
#include "tessel/runtime/kernel_params.hpp"
#include "tessel/runtime/tensor_maps.hpp"

namespace tessel::runtime {

// The target whose machine code `gpu` runs, if tessel has one: sm_80 for compute capability 8.x,
// sm_90a for 9.0, sm_100a for 10.0.
std::optional<ir::Arch> native_target(const CudaDriver::DeviceInfo& gpu);

// Throws tessel::Error naming the target `gpu` needs where it runs no code of `arch`: neither its
// machine code (sm_80 code on compute capability 8.x, sm_90a on 9.0, sm_100a on 10.0) nor, after
// 8.x, sm_80's PTX. `label` names the kernel in the message ("kernel gemm").
void require_runnable(ir::Arch arch, const CudaDriver::DeviceInfo& gpu, std::string_view label);

// What of `binary` `gpu` runs: the cubin, or sm_80's PTX for the driver to compile; checked by
// require_runnable.
const void* module_image(const KernelBinary& binary, const CudaDriver::DeviceInfo& gpu, std::string_view label);

class LoadedKernel {
 public:
  // Loads `binary`, the compiled form of `k`, into the current context (the driver's, made
  // current here), as module_image picks it. Throws tessel::Error when the driver refuses it.
  LoadedKernel(const KernelBinary& binary, const ir::KernelNode& k);
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  CUfunction function() const { return function_; }
  const ParamLayout& params() const { return params_; }
  const std::string& label() const { return label_; }  // "kernel <name>", for driver errors
  // Its tensor maps, encoded per launch (cached per distinct tensors).
  TensorMapEncoder& tensor_maps() const { return *tensor_maps_; }

 private:
  struct Unload {
    void operator()(CUmodule m) const;
  };
  std::unique_ptr<CUmod_st, Unload> module_;  // unloaded with the kernel, or when loading fails half-way
  CUfunction function_ = nullptr;
  ParamLayout params_;
  // Boxed so that a const kernel can encode: its cache changes, the kernel does not.
  std::unique_ptr<TensorMapEncoder> tensor_maps_;
  std::string label_;
};

}  // namespace tessel::runtime
