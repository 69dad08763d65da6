#include "tessel/ir/target_limits.hpp"

#include <cstdint>

namespace tessel::ir {

namespace {

constexpr int64_t KiB = 1024;

// Unless noted, figures are from the CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability" (compute capabilities 8.0, 9.0 and 10.0): grids of up to 2^31 - 1 blocks
// along x and 65535 along y and z, 1024 threads per block, 2048 threads and 32 blocks per SM, 64K
// 32-bit registers per SM and per block, 255 per thread; shared memory per SM and per block
// (opt-in) as below. The 1 KB reserved per block is the guide's compute capability 8.x section
// (cudaDevAttrReservedSharedMemoryPerBlock), unchanged since.
constexpr TargetLimits common() {
  TargetLimits l;
  l.max_grid_blocks = {INT32_MAX, 65535, 65535};
  l.max_threads_per_block = 1024;
  l.shared_bytes_reserved_per_block = 1 * KiB;
  l.registers_per_sm = 65536;
  l.registers_per_block = 65536;
  l.max_registers_per_thread = 255;
  l.max_threads_per_sm = 2048;
  l.max_blocks_per_sm = 32;
  return l;
}

constexpr TargetLimits sm80() {
  TargetLimits l = common();
  l.max_shared_bytes_per_block = 163 * KiB;
  l.shared_bytes_per_sm = 164 * KiB;
  return l;
}

// Clusters: the guide's "Thread Block Clusters" section: 8 blocks is the portable maximum (a
// larger cluster needs cudaFuncAttributeNonPortableClusterSizeAllowed and a GPU that has it).
constexpr TargetLimits sm90a() {
  TargetLimits l = common();
  l.max_shared_bytes_per_block = 227 * KiB;
  l.shared_bytes_per_sm = 228 * KiB;
  l.max_cluster_blocks = 8;
  return l;
}

// Tensor memory: 128 lanes x 512 columns of 32-bit cells per SM (PTX ISA, tcgen05 "Tensor Memory").
constexpr TargetLimits sm100a() {
  TargetLimits l = sm90a();
  l.tmem_lanes = 128;
  l.tmem_columns = 512;
  return l;
}

constexpr TargetLimits kSm80 = sm80();
constexpr TargetLimits kSm90a = sm90a();
constexpr TargetLimits kSm100a = sm100a();

}  // namespace

const TargetLimits& target_limits(Arch arch) {
  switch (arch) {
    case Arch::Sm80: return kSm80;
    case Arch::Sm90a: return kSm90a;
    case Arch::Sm100a: return kSm100a;
  }
  TESSEL_CHECK(false, "unknown target {}", int(arch));
}

int compute_capability_major(Arch arch) {
  switch (arch) {
    case Arch::Sm80: return 8;
    case Arch::Sm90a: return 9;
    case Arch::Sm100a: return 10;
  }
  TESSEL_CHECK(false, "unknown target {}", int(arch));
}

std::optional<Arch> native_target(int major, int minor) {
  for (Arch arch : {Arch::Sm80, Arch::Sm90a, Arch::Sm100a})
    if (major == compute_capability_major(arch) && (arch == Arch::Sm80 || minor == 0)) return arch;
  return std::nullopt;
}

std::string gpus_running(Arch arch) {
  return fmt::format("GPUs of compute capability {}.0 {}", compute_capability_major(arch),
                     arch == Arch::Sm80 ? "and later" : "only");
}

}  // namespace tessel::ir
