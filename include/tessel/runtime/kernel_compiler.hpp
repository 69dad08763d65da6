// Lowered IR -> cubin through the disk cache: code generation, the cache lookup, NVRTC on a miss.
// Safe to call from several threads at once; autotuning compiles its candidates this way.
#pragma once

#include <string>
#include <vector>

#include "tessel/ir/ir.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel::runtime {

struct KernelBinary {
  ir::Arch arch = ir::Arch::Sm90a;  // the target it was compiled for
  std::vector<char> cubin;
  // For sm_80, the PTX too: sm_80 machine code runs on compute capability 8.x only, and a later
  // GPU runs the kernel by the driver's compiling this (module_image). Empty for sm_90a and
  // sm_100a, whose PTX no other GPU accepts either.
  std::string ptx;
  std::string symbol;  // the kernel's name in the cubin
  ResourceUsage resources;
  std::string warnings;  // CompileResult::ptxas_warnings, cached with the cubin
  bool from_cache = false;
  bool debug = false;  // generated in debug mode: it takes the allocations of its pointers (ParamLayout)
  double codegen_ms = 0, compile_ms = 0;  // compile_ms: NVRTC, or the cache load on a hit
};

struct KernelCompileOptions {
  double time_limit_s = 0;      // NVRTC time limit; 0: none
  bool require_cached = false;  // a cache miss is an error (TESSEL_STRICT_CACHE=1)
  bool debug = false;           // codegen::EmitOptions::debug
};

KernelBinary compile_kernel(const ir::KernelNode& k, ir::Arch arch, const KernelCompileOptions& options = {});

}  // namespace tessel::runtime
