// Whether a lowered kernel's block fits a GPU: threads, shared memory, registers and tensor
// memory against the GPU's per-block limits. The autotuner drops candidates that do not fit, and
// `tessel space` shows why (docs/tuning.md). Each check returns why the kernel does not fit, or
// nothing when it does.
#pragma once

#include <optional>
#include <string>

#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::analysis {

std::optional<std::string> thread_overflow(const ir::KernelNode& k, const GpuSpec& gpu);

// The kernel's planned shared memory against what one block may opt in to.
std::optional<std::string> shared_memory_overflow(const ir::KernelNode& k, const GpuSpec& gpu);

// `registers` per thread, as ptxas reported them, times the block's threads against the
// registers one block may use.
std::optional<std::string> register_overflow(const ir::KernelNode& k, int registers, const GpuSpec& gpu);

// Tensor memory: the columns of all the kernel's tcgen05 allocations, held at once by one block,
// against the SM's `gpu.tmem_columns` (512 on sm_100a; none before it), counted as
// plan_tensor_memory counts them. A kernel without tensor memory needs no columns and always fits.
std::optional<std::string> tensor_memory_overflow(const ir::KernelNode& k, const GpuSpec& gpu);

}  // namespace tessel::analysis
