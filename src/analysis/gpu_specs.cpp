#include "tessel/analysis/gpu_specs.hpp"

#include <algorithm>
#include <cctype>

#include "tessel/error.hpp"
#include "tessel/ir/target_limits.hpp"

namespace tessel::analysis {

namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// The per-SM and per-block limits are the target's (ir/target_limits.cpp cites their sources);
// the entries below add what differs between GPUs of one target.
GpuSpec base(std::string key, std::string name, std::string part, int major, int minor, ir::Arch target) {
  const ir::TargetLimits& limits = ir::target_limits(target);
  GpuSpec g;
  g.key = std::move(key);
  g.name = std::move(name);
  g.part = std::move(part);
  g.cc_major = major;
  g.cc_minor = minor;
  g.shared_per_sm = limits.shared_bytes_per_sm;
  g.shared_per_block_optin = limits.max_shared_bytes_per_block;
  g.shared_reserved_per_block = limits.shared_bytes_reserved_per_block;
  g.registers_per_sm = limits.registers_per_sm;
  g.registers_per_block = limits.registers_per_block;
  g.max_registers_per_thread = limits.max_registers_per_thread;
  g.max_threads_per_sm = limits.max_threads_per_sm;
  g.max_warps_per_sm = limits.max_threads_per_sm / 32;
  g.max_blocks_per_sm = limits.max_blocks_per_sm;
  g.max_threads_per_block = limits.max_threads_per_block;
  g.tmem_lanes = limits.tmem_lanes;
  g.tmem_columns = limits.tmem_columns;
  return g;
}

std::vector<GpuSpec> make_table() {
  std::vector<GpuSpec> t;

  // A100 SXM4 80GB. SMs and L2: NVIDIA A100 Tensor Core GPU Architecture whitepaper (108 SMs,
  // 40 MB L2). Rates: A100 datasheet, dense (the sparse figures are twice these): f16/bf16 312
  // TFLOPS, tf32 156, i8 624 TOPS, f32 19.5. Bandwidth: the datasheet says 2,039 GB/s for the
  // 80GB SXM part; the table uses 2.0 TB/s, the figure the tiling seed (and most texts) reason
  // with, so that its ridge point of 156 FLOP/B comes out.
  GpuSpec a100 = base("a100", "A100", "SXM4 80GB", 8, 0, ir::Arch::Sm80);
  a100.sm_count = 108;
  a100.l2_bytes = 40 * MiB;
  a100.hbm_bandwidth = 2.0e12;
  a100.peak = {.tensor_f16 = 312e12,
               .tensor_bf16 = 312e12,
               .tensor_tf32 = 156e12,
               .tensor_f8 = 0,
               .tensor_i8 = 624e12,
               .simt_f32 = 19.5e12};
  t.push_back(a100);

  // H100 SXM5 80GB. SMs and L2: NVIDIA H100 Tensor Core GPU Architecture whitepaper (132 SMs,
  // 50 MB L2). Rates: H100 datasheet (H100 SXM column), which gives sparse tensor figures; these
  // are half of them: f16/bf16 1,979 -> 989.5 TFLOPS, tf32 989 -> 494.5, f8 3,958 -> 1,979,
  // i8 3,958 -> 1,979 TOPS; f32 67 TFLOPS. Bandwidth 3.35 TB/s (datasheet).
  GpuSpec h100 = base("h100", "H100", "SXM5 80GB", 9, 0, ir::Arch::Sm90a);
  h100.sm_count = 132;
  h100.l2_bytes = 50 * MiB;
  h100.hbm_bandwidth = 3.35e12;
  h100.peak = {.tensor_f16 = 989.5e12,
               .tensor_bf16 = 989.5e12,
               .tensor_tf32 = 494.5e12,
               .tensor_f8 = 1979e12,
               .tensor_i8 = 1979e12,
               .simt_f32 = 67e12};
  t.push_back(h100);

  // H200 SXM 141GB: the H100's GH100 die (132 SMs, compute capability 9.0) with HBM3e. H200
  // datasheet: 4.8 TB/s; tensor rates as the H100 SXM's (the datasheet's sparse figures halved)
  // and f32 67 TFLOPS. The datasheet does not give the L2 size: an H200 reports 60 MiB
  // (cudaDevAttrL2CacheSize = 62914560, read on one with CUDA 13.0), not the H100 SXM's 50 MB.
  GpuSpec h200 = h100;
  h200.key = "h200";
  h200.name = "H200";
  h200.part = "SXM 141GB";
  h200.hbm_bandwidth = 4.8e12;
  h200.l2_bytes = 60 * MiB;
  t.push_back(h200);

  // B200 (HGX B200, 1000 W). Rates: NVIDIA HGX B200 specifications per GPU, sparse figures
  // halved: f16/bf16 4.5 -> 2.25 PFLOPS, tf32 2.2 -> 1.1, f8 9 -> 4.5, i8 9 -> 4.5 POPS; f32 75
  // TFLOPS. Bandwidth 7.7 TB/s for the 180 GB part (the same page; the DGX B200 datasheet's
  // 64 TB/s over 8 GPUs is 8 TB/s). NVIDIA's datasheets give neither SM count nor L2 size: 148
  // SMs (74 enabled on each of two dies) and about 126 MB of L2 are Chips and Cheese's findings
  // on a B200 ("Nvidia's B200: Keeping the CUDA Juggernaut Rolling", 2025).
  GpuSpec b200 = base("b200", "B200", "HGX 180GB", 10, 0, ir::Arch::Sm100a);
  b200.sm_count = 148;
  b200.l2_bytes = 126 * MiB;
  b200.hbm_bandwidth = 7.7e12;
  b200.peak = {.tensor_f16 = 2.25e15,
               .tensor_bf16 = 2.25e15,
               .tensor_tf32 = 1.1e15,
               .tensor_f8 = 4.5e15,
               .tensor_i8 = 4.5e15,
               .simt_f32 = 75e12};
  t.push_back(b200);
  return t;
}

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}

std::string known_keys() {
  std::vector<std::string> keys;
  for (const GpuSpec& g : known_gpus()) keys.push_back(g.key);
  return fmt::format("{}", fmt::join(keys, ", "));
}

}  // namespace

std::string_view math_type_name(MathType t) {
  switch (t) {
    case MathType::F16: return "f16";
    case MathType::BF16: return "bf16";
    case MathType::TF32: return "tf32";
    case MathType::F8: return "f8";
    case MathType::I8: return "i8";
    case MathType::F32: return "f32";
  }
  TESSEL_CHECK(false, "bad math type {}", int(t));
}

MathType parse_math_type(std::string_view name) {
  for (MathType t : {MathType::F16, MathType::BF16, MathType::TF32, MathType::F8, MathType::I8, MathType::F32})
    if (lower(name) == math_type_name(t)) return t;
  throw Error(fmt::format("unknown dtype '{}' (known: f16, bf16, tf32, f8, i8, f32)", name));
}

int input_bytes(MathType t) {
  switch (t) {
    case MathType::F16:
    case MathType::BF16: return 2;
    case MathType::F8:
    case MathType::I8: return 1;
    case MathType::TF32:
    case MathType::F32: return 4;
  }
  TESSEL_CHECK(false, "bad math type {}", int(t));
}

std::string GpuSpec::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

// The GPU's own target, and sm_80 for a GPU without one: after compute capability 8.x the driver
// runs sm_80 code from its PTX, and before it nothing runs (runtime::require_runnable says so).
ir::Arch GpuSpec::target() const { return ir::native_target(cc_major, cc_minor).value_or(ir::Arch::Sm80); }

std::string GpuSpec::full_name() const { return part.empty() ? name : name + " " + part; }

const std::vector<GpuSpec>& known_gpus() {
  static const std::vector<GpuSpec> table = make_table();
  return table;
}

GpuSpec target_spec(ir::Arch target) {
  const std::string name(ir::arch_name(target));
  switch (target) {
    case ir::Arch::Sm80: return base(name, name, "", 8, 0, target);
    case ir::Arch::Sm90a: return base(name, name, "", 9, 0, target);
    case ir::Arch::Sm100a: return base(name, name, "", 10, 0, target);
  }
  TESSEL_CHECK(false, "unknown target {}", int(target));
}

const GpuSpec& gpu_spec(std::string_view key) {
  const std::string k = lower(key);
  for (const GpuSpec& g : known_gpus())
    if (g.key == k) return g;
  throw Error(fmt::format("unknown GPU '{}' (known: {})", key, known_keys()));
}

GpuSpec from_device(const runtime::CudaDriver::DeviceInfo& info) {
  const std::string name = lower(info.name);
  const auto& table = known_gpus();
  const auto entry =
      std::find_if(table.begin(), table.end(), [&](const GpuSpec& g) { return name.find(g.key) != std::string::npos; });
  if (entry == table.end())
    throw Error(fmt::format("the GPU '{}' (sm_{}{}) is not in tessel's table (known: {}); name one of those instead",
                            info.name, info.cc_major, info.cc_minor, known_keys()));
  GpuSpec g = *entry;
  g.name = info.name;
  g.part.clear();
  if (info.sm_count != g.sm_count || info.cc_major != g.cc_major || info.cc_minor != g.cc_minor)
    g.notes.push_back(
        fmt::format("the device is sm_{}{} with {} SMs, the table's {} sm_{}{} with {}: its bandwidth "
                    "and peak rates are the table's and may not be this device's",
                    info.cc_major, info.cc_minor, info.sm_count, entry->full_name(), entry->cc_major, entry->cc_minor,
                    entry->sm_count));
  g.cc_major = info.cc_major;
  g.cc_minor = info.cc_minor;
  g.sm_count = info.sm_count;
  if (info.max_shared_per_block_optin > 0) g.shared_per_block_optin = info.max_shared_per_block_optin;
  g.notes.push_back(
      fmt::format("SM count, compute capability and opt-in shared memory from the device; the rest "
                  "from the table's {}",
                  entry->full_name()));
  return g;
}

double peak_rate(const GpuSpec& gpu, MathType t) {
  const PeakRates& p = gpu.peak;
  double rate = 0;
  switch (t) {
    case MathType::F16: rate = p.tensor_f16; break;
    case MathType::BF16: rate = p.tensor_bf16; break;
    case MathType::TF32: rate = p.tensor_tf32; break;
    case MathType::F8: rate = p.tensor_f8; break;
    case MathType::I8: rate = p.tensor_i8; break;
    case MathType::F32: rate = p.simt_f32; break;
  }
  if (rate <= 0) throw Error(fmt::format("{} ({}) has no {} tensor cores", gpu.name, gpu.arch(), math_type_name(t)));
  return rate;
}

}  // namespace tessel::analysis
