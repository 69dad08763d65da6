// IR -> CUDA C++. The emitted source is meant to be read by a CUDA engineer: each tile
// instruction is a commented block that says who runs it (which thread group) and where its data
// lives, and it includes a small device header of tessel's own (no CUDA library headers, so
// NVRTC compiles it quickly).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::codegen {

struct CudaModule {
  std::string kernel_name;  // the extern "C" symbol
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;  // (include name, contents)

  // The source with each header's text in place of its #include: one translation unit that nvcc,
  // ncu's source view or compute-sanitizer take without tessel's files.
  std::string standalone_source() const;
};

CudaModule emit_cuda(const ir::KernelNode& k, ir::Arch arch);

// The device header every generated kernel includes.
const std::string& device_header();
inline constexpr const char* kDeviceHeaderName = "tessel_device.h";

}  // namespace tessel::codegen
