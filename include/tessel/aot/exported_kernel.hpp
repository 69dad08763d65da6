// Ahead-of-time export (docs/usage.md, "Ahead-of-time export"): a chosen variant of a kernel as a
// cubin and a C++ header whose launcher checks a call's arguments as the JIT does, computes what a
// launch computes (the grid, fast_divmod magic numbers, the multiprocessor count, scratch buffers,
// TMA tensor maps) and launches through the CUDA driver API alone.
#pragma once

#include <string>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::aot {

// A global view of a pointer parameter whose reach the launcher checks against the buffer passed.
struct CheckedView {
  ir::GlobalTensor view;
  size_t param = 0;  // its pointer parameter, an index into the kernel's parameters
};

struct ExportedKernel {
  std::string name;   // the launcher's class name, a C++ identifier
  ir::Kernel kernel;  // the variant, lowered
  std::vector<char> cubin;
  std::string ptx;     // for sm_80, what a GPU after 8.x runs, compiled by its driver; else empty
  std::string symbol;  // the kernel's entry in the cubin
  std::string arch;
  std::string compiled_for;  // the compile-time arguments, hyperparameters and specialization, in words
  std::vector<CheckedView> checked_views;
};

// The header with one launcher class per kernel, in namespace tessel_aot; each embeds its cubin.
// Throws tessel::Error naming what a launcher cannot compute (a float computed at launch, say).
std::string launcher_header(const std::vector<ExportedKernel>& kernels);

}  // namespace tessel::aot
