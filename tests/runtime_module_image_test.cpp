// Which image of a compiled kernel a GPU is given: the cubin where it runs the target's machine
// code, sm_80's PTX on later GPUs, and otherwise an error that names the target the GPU needs.
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/runtime/loaded_kernel.hpp"

namespace tessel::runtime {
namespace {

KernelBinary binary_for(ir::Arch arch) {
  KernelBinary b;
  b.arch = arch;
  b.cubin = {'\x7f', 'E', 'L', 'F'};
  if (arch == ir::Arch::Sm80) b.ptx = ".version 9.0\n.target sm_80\n";
  return b;
}

CudaDriver::DeviceInfo gpu(std::string name, int major, int minor) {
  CudaDriver::DeviceInfo info;
  info.name = std::move(name);
  info.cc_major = major;
  info.cc_minor = minor;
  return info;
}

std::string refusal(const KernelBinary& b, const CudaDriver::DeviceInfo& g) {
  try {
    module_image(b, g, "kernel gemm");
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

TEST(ModuleImage, EachTargetsOwnGpusRunItsCubin) {
  for (const auto& [arch, device] : {std::pair{ir::Arch::Sm80, gpu("A100", 8, 0)},
                                     {ir::Arch::Sm80, gpu("L40S", 8, 9)},
                                     {ir::Arch::Sm90a, gpu("H200", 9, 0)},
                                     {ir::Arch::Sm100a, gpu("B200", 10, 0)}}) {
    const KernelBinary b = binary_for(arch);
    EXPECT_EQ(module_image(b, device, "kernel gemm"), b.cubin.data()) << ir::arch_name(arch) << " on " << device.name;
  }
}

TEST(ModuleImage, LaterGpusRunSm80CodeFromItsPtx) {
  const KernelBinary b = binary_for(ir::Arch::Sm80);
  for (const auto& device : {gpu("H200", 9, 0), gpu("B200", 10, 0), gpu("RTX 5090", 12, 0)})
    EXPECT_EQ(module_image(b, device, "kernel gemm"), b.ptx.c_str()) << device.name;
}

TEST(ModuleImage, ArchitectureSpecificCodeOnAnotherGpuNamesTheTargetItNeeds) {
  EXPECT_EQ(refusal(binary_for(ir::Arch::Sm90a), gpu("NVIDIA A100-SXM4-80GB", 8, 0)),
            "kernel gemm is built for sm_90a, which runs on GPUs of compute capability 9.0 only; this GPU, NVIDIA "
            "A100-SXM4-80GB, has compute capability 8.0: build it for sm_80 (KernelOptions::arch, or --arch on the "
            "command line)");
  EXPECT_EQ(refusal(binary_for(ir::Arch::Sm100a), gpu("NVIDIA H200", 9, 0)),
            "kernel gemm is built for sm_100a, which runs on GPUs of compute capability 10.0 only; this GPU, NVIDIA "
            "H200, has compute capability 9.0: build it for sm_90a (KernelOptions::arch, or --arch on the command "
            "line)");
  EXPECT_EQ(refusal(binary_for(ir::Arch::Sm90a), gpu("NVIDIA GeForce RTX 5090", 12, 0)),
            "kernel gemm is built for sm_90a, which runs on GPUs of compute capability 9.0 only; this GPU, NVIDIA "
            "GeForce RTX 5090, has compute capability 12.0: build it for sm_80 (KernelOptions::arch, or --arch on "
            "the command line)");
}

TEST(ModuleImage, GpusBeforeAmpereHaveNoTarget) {
  EXPECT_EQ(refusal(binary_for(ir::Arch::Sm80), gpu("Tesla V100-SXM2-16GB", 7, 0)),
            "kernel gemm is built for sm_80, which runs on GPUs of compute capability 8.0 and later; this GPU, Tesla "
            "V100-SXM2-16GB, has compute capability 7.0: tessel has no target for it");
}

TEST(ModuleImage, NativeTargets) {
  EXPECT_EQ(native_target(gpu("A100", 8, 0)), ir::Arch::Sm80);
  EXPECT_EQ(native_target(gpu("RTX 4090", 8, 9)), ir::Arch::Sm80);
  EXPECT_EQ(native_target(gpu("H200", 9, 0)), ir::Arch::Sm90a);
  EXPECT_EQ(native_target(gpu("B200", 10, 0)), ir::Arch::Sm100a);
  EXPECT_EQ(native_target(gpu("B300", 10, 3)), std::nullopt);
  EXPECT_EQ(native_target(gpu("V100", 7, 0)), std::nullopt);
}

}  // namespace
}  // namespace tessel::runtime
