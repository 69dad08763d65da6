#include "tessel/analysis/kernel_fit.hpp"

#include <fmt/format.h>

#include "tessel/passes/pipeline.hpp"

namespace tessel::analysis {

std::optional<std::string> thread_overflow(const ir::KernelNode& k, const GpuSpec& gpu) {
  if (k.threads() <= gpu.max_threads_per_block) return std::nullopt;
  return fmt::format("{} threads per block; {} allows {}", k.threads(), gpu.name, gpu.max_threads_per_block);
}

std::optional<std::string> shared_memory_overflow(const ir::KernelNode& k, const GpuSpec& gpu) {
  if (k.shared_bytes <= gpu.shared_per_block_optin) return std::nullopt;
  return fmt::format("needs {} bytes of shared memory per block; {} allows {}", k.shared_bytes, gpu.name,
                     gpu.shared_per_block_optin);
}

std::optional<std::string> register_overflow(const ir::KernelNode& k, int registers, const GpuSpec& gpu) {
  if (int64_t(registers) * k.threads() <= gpu.registers_per_block) return std::nullopt;
  return fmt::format("{} registers x {} threads exceed the {} registers a block may use on {}", registers, k.threads(),
                     gpu.registers_per_block, gpu.name);
}

std::optional<std::string> tensor_memory_overflow(const ir::KernelNode& k, const GpuSpec& gpu) {
  const int columns = passes::tensor_memory_use(k).peak_columns;
  if (columns <= gpu.tmem_columns) return std::nullopt;
  return fmt::format("holds {} columns of tensor memory at once; {} has {}", columns, gpu.name, gpu.tmem_columns);
}

}  // namespace tessel::analysis
