// In-process CUDA C++ -> cubin compilation with NVRTC. Compiling in-process (rather than running
// nvcc) keeps JIT latency low and lets machines without a GPU build and inspect kernels.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tessel::runtime {

struct CompileRequest {
  std::string source;       // CUDA C++ source
  std::string kernel_name;  // used in messages and as the program name in NVRTC diagnostics
  std::string arch;         // "sm_80", "sm_90a" or "sm_100a"
  // (include name, contents) pairs that `#include "name"` in the source resolves to.
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> options;  // extra NVRTC options, after tessel's own
};

struct CompileResult {
  std::vector<char> cubin;  // an ELF image for cuModuleLoadData
  std::string log;          // NVRTC's warnings, trimmed; empty when there were none
  double milliseconds = 0;  // wall time NVRTC took
};

// Compiles with -std=c++17, -default-device, -lineinfo and the CUDA toolkit's include directory
// on the include path. Throws tessel::Error for an unsupported arch, for a compile error (the
// message is "NVRTC failed to compile kernel '<name>' for <arch>:\n<log>") and for any failing
// NVRTC call.
CompileResult compile_to_cubin(const CompileRequest& request);

// The NVRTC library's version, e.g. "13.0". Part of every compile cache key.
std::string nvrtc_version();

}  // namespace tessel::runtime
