// In-process CUDA C++ -> cubin compilation with NVRTC. Compiling in-process (rather than running
// nvcc) keeps JIT latency low and lets machines without a GPU build and inspect kernels.
#pragma once

#include <string>
#include <string_view>
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
  double time_limit_s = 0;           // cancel the compile after this long; 0: no limit
};

// What ptxas reports for the kernel: the figures autotuning prunes and ranks by.
struct ResourceUsage {
  int registers = -1;  // per thread; -1 when ptxas did not say
  int spill_store_bytes = 0, spill_load_bytes = 0, stack_bytes = 0;
  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

// Reads the `ptxas info` lines of a compile log (ptxas -v).
ResourceUsage parse_ptxas_info(std::string_view log);

struct CompileResult {
  std::vector<char> cubin;  // an ELF image for cuModuleLoadData
  std::string ptx;          // the PTX the cubin was assembled from, NUL-terminated for cuModuleLoadData
  std::string log;          // NVRTC's warnings, trimmed, without ptxas's resource report
  // ptxas's warnings and its "Potential Performance Loss" notes (a wgmma serialized), one a line:
  // what the kernel's author can act on, where the front end's warnings are about generated code.
  std::string ptxas_warnings;
  ResourceUsage resources;
  double milliseconds = 0;  // wall time NVRTC took
};

// Compiles with -std=c++17, -default-device, -lineinfo, ptxas -v and the CUDA toolkit's include
// directory on the include path. Safe to call from several threads at once. Throws tessel::Error
// for an unsupported arch, for a compile error (the message is "NVRTC failed to compile kernel
// '<name>' for <arch>:\n<log>"), for a compile cancelled at its time limit and for any failing
// NVRTC call.
CompileResult compile_to_cubin(const CompileRequest& request);

// The NVRTC library's version, e.g. "13.0". Part of every compile cache key.
std::string nvrtc_version();

}  // namespace tessel::runtime
