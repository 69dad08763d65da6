// The GPUs tessel reasons about without running on them: per-SM resource limits, memory
// bandwidth and peak math rates, for tile analysis and rooflines (docs/analysis.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/ir/ir.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::analysis {

// What a matmul's inner product runs on: tensor cores fed with f16, bf16, tf32, f8 (e4m3/e5m2)
// or i8 elements, or f32 FMA on the SIMT cores.
enum class MathType { F16, BF16, TF32, F8, I8, F32 };

std::string_view math_type_name(MathType t);  // "f16", "bf16", "tf32", "f8", "i8", "f32"
// Throws tessel::Error naming the valid spellings.
MathType parse_math_type(std::string_view name);
// Bytes of one input element in memory (tf32 is stored as f32).
int input_bytes(MathType t);

// Peak dense rates in operations per second (a multiply-add counts as two); 0 where the GPU
// has no such path. Tensor rates accumulate in f32 (i32 for i8).
struct PeakRates {
  double tensor_f16 = 0, tensor_bf16 = 0, tensor_tf32 = 0, tensor_f8 = 0, tensor_i8 = 0;
  double simt_f32 = 0;
};

struct GpuSpec {
  std::string key;   // "a100": what --gpu takes
  std::string name;  // "A100", or the device's own name from from_device
  std::string part;  // "SXM4 80GB": which product the figures are for
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;

  // Per-SM and per-block limits: the target's (ir/target_limits.hpp), or the device's.
  int64_t shared_per_sm = 0;              // bytes, with the largest shared-memory carveout
  int64_t shared_per_block_optin = 0;     // bytes one block may opt in to
  int64_t shared_reserved_per_block = 0;  // bytes the driver keeps per resident block

  int registers_per_sm = 0;  // 32-bit registers
  int registers_per_block = 0;
  int max_registers_per_thread = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;

  int64_t l2_bytes = 0;
  double hbm_bandwidth = 0;  // bytes/s
  PeakRates peak;

  // Tensor memory (Blackwell): lanes x columns of 32-bit cells per SM; 0 x 0 where there is none.
  int tmem_lanes = 0, tmem_columns = 0;

  // Where figures came from when they are not all the table's (see from_device).
  std::vector<std::string> notes;

  bool has_tmem() const { return tmem_columns > 0; }
  std::string arch() const;  // "sm_90"
  // The code-generation target kernels for it are built for: sm_100a from compute capability 10,
  // sm_90a for 9.x, sm_80 below.
  ir::Arch target() const;
  std::string full_name() const;  // "A100 SXM4 80GB"
};

// The table: A100, H100, H200, B200.
const std::vector<GpuSpec>& known_gpus();

// A target's own limits with no particular GPU behind them (named after the target, "sm_90a";
// no SM count, bandwidth or rates): what a kernel is checked against on the simulator, or on a
// GPU the table does not know.
GpuSpec target_spec(ir::Arch target);

// Looks a GPU up by key, case-insensitively ("a100", "H100"); throws tessel::Error listing the
// known keys for anything else.
const GpuSpec& gpu_spec(std::string_view key);

// The live device: the table entry whose key its name contains, with the SM count, compute
// capability and opt-in shared memory the driver reported. Bandwidth and peak rates stay the
// table's; `notes` says so when the device differs from the entry (an H100 PCIe is not an SXM).
// Throws tessel::Error for a device the table does not know.
GpuSpec from_device(const runtime::CudaDriver::DeviceInfo& info);

// Peak rate of `t` on `gpu`; throws tessel::Error when the GPU has no such path (f8 on A100).
double peak_rate(const GpuSpec& gpu, MathType t);

}  // namespace tessel::analysis
