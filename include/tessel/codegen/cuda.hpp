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

struct EmitOptions {
  // Debug mode (docs/debugging.md): mbarrier waits that time out report the barrier and the user's
  // line and trap, and every global access is checked against the allocation its view's pointer
  // lies in. The kernel then takes, after its own parameters and tensor maps, one
  // `tessel_allocation` per pointer parameter, in order (runtime::ParamLayout places them).
  bool debug = false;
  // Comments name the user's line of each instruction, for a reader of `tessel cuda`. The source
  // that is compiled (runtime::compile_kernel) leaves them out: its text is the compile cache's
  // key, which must not change when lines above a kernel do, or the checkout moves. Debug mode's
  // messages still carry their lines.
  bool source_locations = true;
};

CudaModule emit_cuda(const ir::KernelNode& k, ir::Arch arch, const EmitOptions& options = {});

// The device header every generated kernel includes.
const std::string& device_header();
inline constexpr const char* kDeviceHeaderName = "tessel_device.h";
// The header a kernel generated in debug mode includes as well.
const std::string& debug_header();
inline constexpr const char* kDebugHeaderName = "tessel_debug.h";

}  // namespace tessel::codegen
